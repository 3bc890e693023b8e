import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { IdpFunction } from '../../lib/idp-function.js';
import { IdpSecrets } from '../../lib/idp-secrets.js';
import { IdpTable } from '../../lib/idp-table.js';
import { PictureBucket } from '../../lib/picture-bucket.js';
import { middlewareWritesOf } from '../../lib/table-grants.js';
import type { RouteDefinition } from '../../shared/api/route-definition.js';
import { routes } from '../../shared/api/routes.js';
import { logicalIdOf, removeProjectTempDir, statementsOfRole, useProjectTempDir } from './synthesize.js';

const postRoute: RouteDefinition = { ...routes.listOrganizations, method: 'POST' };
const getRoute: RouteDefinition = routes.listOrganizations;
const publicRoute: RouteDefinition = routes.jwks;

afterAll(removeProjectTempDir);

const bareStack = () => {
  useProjectTempDir();
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Bare');
  return { app, stack, table: new IdpTable(stack, 'Table') };
};

const functionWith = (stack: Stack, routesServed: RouteDefinition[], id = 'Fn') =>
  new IdpFunction(stack, id, {
    entry: 'functions/organizations.ts',
    description: 'test',
    routes: routesServed,
  });

describe('middlewareWritesOf', () => {
  it('follows the middleware chain: management routes are rate limited, non-GET ones idempotent', () => {
    expect(middlewareWritesOf([])).toEqual({ rateLimitCounters: false, idempotencyRecords: false });
    expect(middlewareWritesOf([publicRoute])).toEqual({
      rateLimitCounters: false,
      idempotencyRecords: false,
    });
    expect(middlewareWritesOf([getRoute])).toEqual({ rateLimitCounters: true, idempotencyRecords: false });
    expect(middlewareWritesOf([getRoute, postRoute])).toEqual({
      rateLimitCounters: true,
      idempotencyRecords: true,
    });
    // A POST that is not a management route (the token endpoint) has no idempotency middleware.
    expect(middlewareWritesOf([routes.issueToken])).toEqual({
      rateLimitCounters: false,
      idempotencyRecords: false,
    });
  });
});

describe('IdpFunction.bindTable', () => {
  const statementsFor = (routesServed: RouteDefinition[], access: 'read' | 'read-write') => {
    const { stack, table } = bareStack();
    const fn = functionWith(stack, routesServed);
    fn.bindTable(table, access);
    return statementsOfRole(Template.fromStack(stack), logicalIdOf(fn.role)).filter((s) =>
      s.Action.some((action) => action.startsWith('dynamodb:')),
    );
  };

  it("'read' with a non-GET management route adds idempotency writes confined to the IDEMPOTENCY partition", () => {
    const statements = statementsFor([postRoute], 'read');
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['IDEMPOTENCY#*'] } },
      }),
    );
  });

  it("'read' with GET routes only may not write idempotency records", () => {
    const statements = statementsFor([getRoute], 'read');
    expect(JSON.stringify(statements)).not.toContain('IDEMPOTENCY');
    expect(statements.filter((s) => s.Effect !== 'Deny' && s.Action.includes('dynamodb:PutItem'))).toEqual(
      [],
    );
  });

  it("'read-write' reads and writes items without a partition condition", () => {
    const statements = statementsFor([], 'read-write');
    const writes = statements.find(
      (s) => s.Effect !== 'Deny' && s.Action.includes('dynamodb:BatchWriteItem'),
    );
    expect(writes?.Action).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
    );
    expect(writes?.Condition).toBeUndefined();
  });
});

describe('IdpSecrets.grantSsoClientSecrets', () => {
  it('confines the future sso function to <prefix>sso/* and passes cdk-nag', () => {
    const { app, stack } = bareStack();
    const secrets = new IdpSecrets(stack, 'Secrets', { prefix: 'idp/' });
    const sso = functionWith(stack, []);
    secrets.grantSsoClientSecrets(sso);

    const statements = statementsOfRole(Template.fromStack(stack), logicalIdOf(sso.role));
    const ssoStatement = statements.find((s) => s.Action.includes('secretsmanager:CreateSecret'));
    expect(JSON.stringify(ssoStatement?.Resource)).toContain(':secret:idp/sso/*');
    expect(JSON.stringify(statements)).not.toContain(logicalIdOf(secrets.signingKeys));
    expect(JSON.stringify(statements)).not.toContain(logicalIdOf(secrets.idTokenSigningKeys));
    expect(new AwsSolutionsChecks(app).validateScope(app).violations).toEqual([]);
  });
});

describe('PictureBucket.grantPictureAccess', () => {
  const pictureSetup = (granted: number) => {
    const { app, stack } = bareStack();
    const pictures = new PictureBucket(stack, 'Pictures');
    const functions = [0, 1, 2].map((index) => functionWith(stack, [], `Fn${index}`));
    for (const fn of functions.slice(0, granted)) pictures.grantPictureAccess(fn);
    const template = Template.fromStack(stack);
    const denyOfOthers = Object.values(template.findResources('AWS::S3::BucketPolicy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .find((statement) => statement.Sid === 'OnlyGrantedRolesReadOrWritePictures');
    const s3Actions = (fn: IdpFunction) =>
      statementsOfRole(template, logicalIdOf(fn.role)).flatMap((s) =>
        s.Action.filter((action) => action.startsWith('s3:')),
      );
    const pictureBucketOf = (fn: IdpFunction) =>
      template.toJSON().Resources[logicalIdOf(fn.lambda)].Properties.Environment.Variables.IDP_PICTURE_BUCKET;
    return {
      app,
      functions,
      denyOfOthers,
      s3Actions,
      pictureBucketOf,
      bucketRef: { Ref: logicalIdOf(pictures.bucket) },
    };
  };

  it('grants Get(Version)/PutObject and the bucket name to granted functions only, and passes cdk-nag', () => {
    const { app, functions, denyOfOthers, s3Actions, pictureBucketOf, bucketRef } = pictureSetup(2);
    const [first, second, ungranted] = functions as [IdpFunction, IdpFunction, IdpFunction];
    expect(pictureBucketOf(first)).toEqual(bucketRef);
    expect(pictureBucketOf(second)).toEqual(bucketRef);
    expect(pictureBucketOf(ungranted)).toBeUndefined();
    expect(s3Actions(first)).toEqual(['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject']);
    expect(s3Actions(second)).toEqual(['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject']);
    expect(s3Actions(ungranted)).toEqual([]);
    // The bucket policy's exception lists exactly the granted roles.
    expect(denyOfOthers?.Condition.ArnNotEquals['aws:PrincipalArn']).toEqual([
      { 'Fn::GetAtt': [logicalIdOf(first.role), 'Arn'] },
      { 'Fn::GetAtt': [logicalIdOf(second.role), 'Arn'] },
    ]);
    expect(new AwsSolutionsChecks(app).validateScope(app).violations).toEqual([]);
  });

  it('without a grant, has no exception to make and still passes cdk-nag', () => {
    const { app, functions, denyOfOthers, s3Actions } = pictureSetup(0);
    expect(denyOfOthers).toBeUndefined();
    for (const fn of functions) expect(s3Actions(fn)).toEqual([]);
    expect(new AwsSolutionsChecks(app).validateScope(app).violations).toEqual([]);
  });
});
