import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type CfnResource, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, describe, expect, it } from 'vitest';
import type { IdpFunction } from '../../lib/idp-function.js';
import { NONCURRENT_PICTURE_DAYS } from '../../lib/picture-bucket.js';
import { systemDataHash } from '../../lib/system-data-seed.js';
import type { EndpointGroup } from '../../shared/api/route-definition.js';
import { ROUTES } from '../../shared/api/routes.js';
import { GROUP_TABLE_ACCESS } from '../../shared/api/table-access.js';
import { groupTableGrant, stringLike } from '../../shared/api/table-requests.js';
import { MANAGED_ROLES, PERMISSION_CATALOGUE } from '../../shared/domain/permission-catalogue.js';
import { pictureKey } from '../../shared/pictures/picture-store.js';
import type { TableItemAction } from '../../shared/store/dynamo.js';
import {
  AUDIT_DIGEST_PREFIX,
  AUDIT_PREFIX,
  keys,
  RATE_COUNTER_PARTITIONS,
  TABLE_SCHEMA,
} from '../../shared/store/keys.js';
import {
  describeStatement,
  logicalIdOf,
  removeProjectTempDir,
  type Statement,
  statementsOfRole,
  synthesizeIdp,
} from './synthesize.js';

afterAll(removeProjectTempDir);

// The app as deployed, CDK's CloudFormation validation included (checked below).
const { app, stack } = synthesizeIdp({}, { validate: true });
// Synthesis runs the cdk-nag plugin too: this line throws if any finding is left unacknowledged.
const template = Template.fromStack(stack);
const resources = template.toJSON().Resources;

const everyFunction = () => [
  ...Object.values(stack.functions),
  stack.systemData.handler,
  stack.auditStream.forwarder,
  stack.auditDigests.writer,
];
const statementsOf = (fn: IdpFunction): Statement[] => statementsOfRole(template, logicalIdOf(fn.role));
const environmentOf = (fn: IdpFunction): Record<string, unknown> =>
  resources[logicalIdOf(fn.lambda)]?.Properties.Environment.Variables;
const allows = (statement: Statement, action: string) =>
  statement.Effect === 'Allow' && statement.Action.includes(action);
const tableArn = { 'Fn::GetAtt': [logicalIdOf(stack.table), 'Arn'] };

/**
 * What the stack must hold, written out here rather than read from the source (the route table,
 * GROUP_TABLE_ACCESS, table-grants.ts): a route, a function or a grant added or widened in the
 * source fails this file until someone writes the change here too.
 */
const FUNCTIONS: readonly EndpointGroup[] = [
  'accounts',
  'audit',
  'clients',
  'console',
  'cors',
  'federation',
  'oauth',
  'openapi',
  'organizations',
  'passkeys',
  'permissions',
  'policies',
  'roles',
  'scim',
  'scim-tokens',
  'signin',
  'sso',
  'user-groups',
  'user-passwords',
  'user-pictures',
  'users',
];

/** Every API Gateway route: `<route key> <function> <authorization>`. */
const ROUTE_TABLE = [
  'DELETE /idp/clearDefaultRole roles JWT',
  'DELETE /idp/clients/{id} clients JWT',
  'DELETE /idp/policies/{id} policies JWT',
  'DELETE /idp/roles/{id} roles JWT',
  'DELETE /idp/scimTokens/{id} scim-tokens JWT',
  'DELETE /idp/userGroups/{id} user-groups JWT',
  'DELETE /idp/users/{id}/managedRoles/{roleId} users JWT',
  'DELETE /idp/users/{id}/passkeys/{passkeyId} users JWT',
  'DELETE /idp/users/{id}/policies/{policyId} users JWT',
  'DELETE /idp/users/{id}/sso-links/{clientId} users JWT',
  'DELETE /idp/users/{id}/userGroups/{userGroupId} users JWT',
  'DELETE /scim/v2/Groups/{id} scim NONE',
  'DELETE /scim/v2/Me scim NONE',
  'DELETE /scim/v2/Users/{id} scim NONE',
  'GET /.well-known/jwks.json oauth NONE',
  'GET /.well-known/openid-configuration oauth NONE',
  'GET /console/assets/{file} console NONE',
  'GET /console/{organizationId} console NONE',
  'GET /idp/additionalUserProperties users JWT',
  'GET /idp/auditEvents audit JWT',
  'GET /idp/clients clients JWT',
  'GET /idp/clients/name clients JWT',
  'GET /idp/clients/{id} clients JWT',
  'GET /idp/consent organizations JWT',
  'GET /idp/dependentPermissions permissions JWT',
  'GET /idp/getDefaultRole roles JWT',
  'GET /idp/latestAgreement organizations JWT',
  'GET /idp/managedRoles roles JWT',
  'GET /idp/managedRoles/{id} roles JWT',
  'GET /idp/me/ui-permissions users JWT',
  'GET /idp/openapi.json openapi NONE',
  'GET /idp/organizations organizations JWT',
  'GET /idp/organizations/{id} organizations JWT',
  'GET /idp/permissions permissions JWT',
  'GET /idp/permissions/{id} permissions JWT',
  'GET /idp/plugins permissions JWT',
  'GET /idp/plugins/{id} permissions JWT',
  'GET /idp/policies policies JWT',
  'GET /idp/policies/{id} policies JWT',
  'GET /idp/roles roles JWT',
  'GET /idp/roles/{id} roles JWT',
  'GET /idp/roles/{id}/plugin/{pluginId} roles JWT',
  'GET /idp/scimTokens scim-tokens JWT',
  'GET /idp/sso-providers sso JWT',
  'GET /idp/userGroups/count user-groups JWT',
  'GET /idp/userGroups/list user-groups JWT',
  'GET /idp/userGroups/{id} user-groups JWT',
  'GET /idp/users users JWT',
  'GET /idp/users/search users JWT',
  'GET /idp/users/{id} users JWT',
  'GET /idp/users/{id}/passkeys users JWT',
  'GET /idp/users/{id}/picture user-pictures JWT',
  'GET /idp/users/{id}/sso-links users JWT',
  'GET /oauth2/authorize signin NONE',
  'GET /oauth2/logout signin NONE',
  'GET /oauth2/userinfo oauth NONE',
  'GET /scim/v2/Groups scim NONE',
  'GET /scim/v2/Groups/{id} scim NONE',
  'GET /scim/v2/Me scim NONE',
  'GET /scim/v2/ResourceTypes scim NONE',
  'GET /scim/v2/ResourceTypes/{id} scim NONE',
  'GET /scim/v2/Schemas scim NONE',
  'GET /scim/v2/Schemas/{id} scim NONE',
  'GET /scim/v2/ServiceProviderConfig scim NONE',
  'GET /scim/v2/Users scim NONE',
  'GET /scim/v2/Users/{id} scim NONE',
  'GET /signin/account passkeys NONE',
  'GET /signin/enrol accounts NONE',
  'GET /signin/forgot accounts NONE',
  'GET /signin/invitation accounts NONE',
  'GET /signin/passkeys.js passkeys NONE',
  'GET /signin/reset accounts NONE',
  'GET /signin/sso federation NONE',
  'GET /signin/sso/callback/{clientId} federation NONE',
  'OPTIONS /{proxy+} cors NONE',
  'PATCH /idp/clients/{id} clients JWT',
  'PATCH /idp/userGroups/{id} user-groups JWT',
  'PATCH /scim/v2/Groups/{id} scim NONE',
  'PATCH /scim/v2/Me scim NONE',
  'PATCH /scim/v2/Users/{id} scim NONE',
  'POST /idp/clients clients JWT',
  'POST /idp/clients/{id}/rotateSecret clients JWT',
  'POST /idp/consent/{agreementId} organizations JWT',
  'POST /idp/policies policies JWT',
  'POST /idp/roles roles JWT',
  'POST /idp/roles/{id}/permissions/assign roles JWT',
  'POST /idp/roles/{id}/permissions/revoke roles JWT',
  'POST /idp/roles/{id}/plugin/{pluginId}/assign roles JWT',
  'POST /idp/roles/{id}/plugin/{pluginId}/revoke roles JWT',
  'POST /idp/scimTokens scim-tokens JWT',
  'POST /idp/services/by-ids organizations JWT',
  'POST /idp/setDefaultRole roles JWT',
  'POST /idp/sso-providers/{clientId} sso JWT',
  'POST /idp/userGroups user-groups JWT',
  'POST /idp/userGroups/{id}/duplicate user-groups JWT',
  'POST /idp/users users JWT',
  'POST /oauth2/authorize signin NONE',
  'POST /oauth2/introspect oauth NONE',
  'POST /oauth2/logout signin NONE',
  'POST /oauth2/par oauth NONE',
  'POST /oauth2/revoke oauth NONE',
  'POST /oauth2/token oauth NONE',
  'POST /oauth2/userinfo oauth NONE',
  'POST /scim/v2/Bulk scim NONE',
  'POST /scim/v2/Groups scim NONE',
  'POST /scim/v2/Groups/.search scim NONE',
  'POST /scim/v2/Me scim NONE',
  'POST /scim/v2/Users scim NONE',
  'POST /scim/v2/Users/.search scim NONE',
  'POST /signin signin NONE',
  'POST /signin/account/passkeys passkeys NONE',
  'POST /signin/account/passkeys/remove passkeys NONE',
  'POST /signin/account/passkeys/rename passkeys NONE',
  'POST /signin/account/recovery-codes passkeys NONE',
  'POST /signin/consent signin NONE',
  'POST /signin/continue signin NONE',
  'POST /signin/forgot accounts NONE',
  'POST /signin/invitation accounts NONE',
  'POST /signin/passkey passkeys NONE',
  'POST /signin/passkeys passkeys NONE',
  'POST /signin/passkeys/options passkeys NONE',
  'POST /signin/passkeys/skip passkeys NONE',
  'POST /signin/reset accounts NONE',
  'POST /signin/totp signin NONE',
  'PUT /idp/me/endSessions users JWT',
  'PUT /idp/me/resetMfa users JWT',
  'PUT /idp/policies/{id} policies JWT',
  'PUT /idp/roles/{id} roles JWT',
  'PUT /idp/roles/{id}/plugin/{pluginId} roles JWT',
  'PUT /idp/userGroups/{id}/managedRoles/assign user-groups JWT',
  'PUT /idp/userGroups/{id}/managedRoles/unassign user-groups JWT',
  'PUT /idp/userGroups/{id}/policies/assign user-groups JWT',
  'PUT /idp/userGroups/{id}/policies/unassign user-groups JWT',
  'PUT /idp/userGroups/{id}/roles/assign user-groups JWT',
  'PUT /idp/userGroups/{id}/roles/unassign user-groups JWT',
  'PUT /idp/users/{id} users JWT',
  'PUT /idp/users/{id}/additionalProperties/grant users JWT',
  'PUT /idp/users/{id}/additionalProperties/revoke users JWT',
  'PUT /idp/users/{id}/changePassword user-passwords JWT',
  'PUT /idp/users/{id}/endSessions users JWT',
  'PUT /idp/users/{id}/managedRoles/{roleId} users JWT',
  'PUT /idp/users/{id}/picture user-pictures JWT',
  'PUT /idp/users/{id}/policies/{policyId} users JWT',
  'PUT /idp/users/{id}/resendJoinEmail users JWT',
  'PUT /idp/users/{id}/resetMfa users JWT',
  'PUT /idp/users/{id}/roles/{roleName}/grant users JWT',
  'PUT /idp/users/{id}/roles/{roleName}/revoke users JWT',
  'PUT /idp/users/{id}/setUserStatus users JWT',
  'PUT /idp/users/{id}/userGroups/{userGroupId} users JWT',
  'PUT /idp/users/{id}/userType/{type} users JWT',
  'PUT /scim/v2/Groups/{id} scim NONE',
  'PUT /scim/v2/Me scim NONE',
  'PUT /scim/v2/Users/{id} scim NONE',
];

// The statements every role's policy holds, one line each (describeStatement's form).
const LOGS = 'logs:CreateLogStream logs:PutLogEvents on its log group';
const READS =
  'dynamodb:BatchGetItem dynamodb:ConditionCheckItem dynamodb:GetItem dynamodb:Query on table, table/index/gsi1, table/index/gsi8, table/index/lsi1';
/** Audit records: nobody reads, changes or deletes them; writers with scoped grants may append. */
const NO_AUDIT =
  'Deny dynamodb:BatchGetItem dynamodb:BatchWriteItem dynamodb:ConditionCheckItem dynamodb:DeleteItem dynamodb:GetItem dynamodb:Query dynamodb:UpdateItem on table where ForAnyValue:StringLike dynamodb:LeadingKeys AUDIT#*';
/** Digests: only their writer puts one (NO_DIGEST_REWRITES), and nobody changes or deletes one. */
const NO_DIGEST_CHANGES =
  'Deny dynamodb:BatchWriteItem dynamodb:DeleteItem dynamodb:PutItem dynamodb:UpdateItem on table where ForAnyValue:StringLike dynamodb:LeadingKeys DIGEST#*';
const NO_DIGEST_REWRITES =
  'Deny dynamodb:BatchWriteItem dynamodb:DeleteItem dynamodb:UpdateItem on table where ForAnyValue:StringLike dynamodb:LeadingKeys DIGEST#*';
const AUDIT_APPEND = 'dynamodb:PutItem on table where ForAllValues:StringLike dynamodb:LeadingKeys AUDIT#*';
const AUDIT_INDEX_READS =
  'dynamodb:Query on table/index/gsi2, table/index/gsi3, table/index/gsi4, table/index/gsi5, table/index/gsi6, table/index/gsi7';
const WRITES = 'dynamodb:BatchWriteItem dynamodb:DeleteItem dynamodb:PutItem dynamodb:UpdateItem on table';
const WRITES_ONLY = `${WRITES} where ForAllValues:StringLike dynamodb:LeadingKeys`;
const RATE_COUNTERS =
  'dynamodb:UpdateItem on table where ForAllValues:StringLike dynamodb:LeadingKeys RATE#*';
/** Records of `Idempotency-Key`, for a function with scoped writes whose routes honour it. */
const IDEMPOTENCY_RECORDS =
  'dynamodb:DeleteItem dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem on table where ForAllValues:StringLike dynamodb:LeadingKeys IDEMPOTENCY#*';
/** The functions that run sign-in steps open and seal TOTP secrets (shared/auth/totp-sealing.ts). */
const TOTP_KEY_READ = 'secretsmanager:GetSecretValue on totp-key secret';
const SSO_SECRETS = 'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:idp/sso/*';

/** Each role's every IAM statement: the endpoint functions and the system-data seed's two. */
const GRANTS: Record<string, string[]> = {
  audit: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, AUDIT_INDEX_READS, RATE_COUNTERS],
  accounts: [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    `${WRITES_ONLY} LOCKOUT#*#*, ORG#*, OUTBOX#*, PWLINK#*, SIGNIN_IP#*#*`,
    AUDIT_APPEND,
    TOTP_KEY_READ,
  ],
  clients: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  passkeys: [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    `${WRITES_ONLY} AUTHREQ#*, CODE#*, LOCKOUT#*#*, ORG#*, OUTBOX#*, PASSKEYID#*, RFAMILY#*, SESSION#*, SIGNIN_IP#*#*, WEBAUTHN#*`,
    AUDIT_APPEND,
    TOTP_KEY_READ,
  ],
  console: [LOGS],
  cors: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES],
  federation: [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    `${WRITES_ONLY} AUTHREQ#*, CODE#*, FEDSTATE#*, ORG#*, RFAMILY#*, SESSION#*`,
    AUDIT_APPEND,
    // One statement: CDK merges statements of the same actions.
    `secretsmanager:GetSecretValue on ${SSO_SECRETS}, totp-key secret`,
  ],
  oauth: [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    `${WRITES_ONLY} ASSERTION#*#*, CODE#*, PAR#*, REFRESH#*, RFAMILY#*, SESSION#*`,
    AUDIT_APPEND,
    // The signer: both key sets, and their published public keys.
    'secretsmanager:GetSecretValue secretsmanager:PutSecretValue on signing-keys-rs256 secret, signing-keys-rs256-public secret, signing-keys-public secret, signing-keys secret',
  ],
  openapi: [LOGS],
  organizations: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  permissions: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, RATE_COUNTERS],
  policies: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  roles: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  signin: [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    `${WRITES_ONLY} AUTHREQ#*, CODE#*, LOCKOUT#*#*, ORG#*, OUTBOX#*, PAR#*, RFAMILY#*, SESSION#*, SIGNIN_IP#*#*`,
    AUDIT_APPEND,
    // One statement: the published public keys (logout's ID token hints) and the TOTP key are read
    // alike; never a key set, so it cannot sign.
    'secretsmanager:GetSecretValue on signing-keys-rs256-public secret, signing-keys-public secret, totp-key secret',
  ],
  sso: [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    `${WRITES_ONLY} SSO#*, SSOORG#*`,
    AUDIT_APPEND,
    RATE_COUNTERS,
    `secretsmanager:CreateSecret secretsmanager:DeleteSecret on ${SSO_SECRETS}`,
  ],
  // SCIM tokens: their lookup items, and in organizations' partitions their entries and count.
  'scim-tokens': [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    `${WRITES_ONLY} ORG#*, SCIMTOKEN#*`,
    AUDIT_APPEND,
    RATE_COUNTERS,
    IDEMPOTENCY_RECORDS,
  ],
  'user-groups': [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  'user-passwords': [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  'user-pictures': [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    WRITES,
    's3:GetObject s3:GetObjectVersion s3:PutObject on pictures bucket/pictures/*/*',
  ],
  users: [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  // API clients' tokens are verified by the function itself (SCIM bearer secrets are not JWTs).
  scim: [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_CHANGES,
    WRITES,
    // Verifies API clients' access tokens: the published ES256 keys, never the key set.
    'secretsmanager:GetSecretValue on signing-keys-public secret',
    // A directory's DELETE takes the leaver's picture away; it reads and writes none.
    's3:DeleteObject on pictures bucket/pictures/*/*',
  ],
  'system-data handler': [LOGS, READS, NO_AUDIT, NO_DIGEST_CHANGES, WRITES],
  // The only role that reads the table's stream; it writes nothing to the table.
  'audit digests': [
    LOGS,
    READS,
    NO_AUDIT,
    NO_DIGEST_REWRITES,
    AUDIT_INDEX_READS,
    `${WRITES_ONLY} DIGEST#*, DIGEST#*#*`,
    AUDIT_APPEND,
    'secretsmanager:GetSecretValue on signing-keys secret',
  ],
  'audit forwarder': [
    LOGS,
    'dynamodb:DescribeStream dynamodb:GetRecords dynamodb:GetShardIterator dynamodb:ListStreams on table stream',
    'events:PutEvents on events bus',
    'sqs:GetQueueAttributes sqs:GetQueueUrl sqs:SendMessage on dead letters',
  ],
  'system-data provider': [
    LOGS,
    'lambda:GetFunction on system-data handler',
    'lambda:InvokeFunction on system-data handler, system-data handler:*',
  ],
};

describe('API routes', () => {
  const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
  const authorizerId = { Ref: logicalIdOf(stack.api.httpApi.node.findChild('JwtAuthorizer')) };

  it('has exactly the routes of the written route table, each to its function, JWT-authorized as written', () => {
    const functionOf = new Map(FUNCTIONS.map((name) => [logicalIdOf(stack.functions[name].lambda), name]));
    const described = routes.map(({ Properties: route }) => {
      const integrationId = route.Target['Fn::Join'][1][1].Ref;
      const target = resources[integrationId]?.Properties.IntegrationUri['Fn::GetAtt'][0];
      return `${route.RouteKey} ${functionOf.get(target) ?? target} ${route.AuthorizationType}`;
    });
    expect(described.sort()).toEqual(ROUTE_TABLE);
    for (const { Properties: route } of routes) {
      expect(route.AuthorizerId, route.RouteKey).toEqual(
        route.AuthorizationType === 'JWT' ? authorizerId : undefined,
      );
    }
  });

  it('lets API Gateway invoke each routed function through this API only, with one permission each', () => {
    // One per function, not per route: a stack holds at most 500 resources.
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).map(
      ({ Properties: permission }) => permission,
    );
    const byApi = permissions.filter((permission) => permission.Principal === 'apigateway.amazonaws.com');
    const routed = FUNCTIONS.filter((name) => stack.functions[name].routes.length > 0);
    expect(byApi.map((permission) => permission.FunctionName['Fn::GetAtt'][0]).sort()).toEqual(
      routed.map((name) => logicalIdOf(stack.functions[name].lambda)).sort(),
    );
    const apiId = { Ref: logicalIdOf(stack.api.httpApi) };
    for (const permission of byApi) {
      expect(permission.Action).toBe('lambda:InvokeFunction');
      expect(JSON.stringify(permission.SourceArn)).toContain(JSON.stringify(apiId));
      expect(JSON.stringify(permission.SourceArn)).toMatch(/\/\*\/\*"\]\]\}$/);
    }
  });

  it('verifies tokens of the service itself: issuer = the API origin = IDP_ISSUER, audience idp', () => {
    const origin = { 'Fn::GetAtt': [logicalIdOf(stack.api.httpApi), 'ApiEndpoint'] };
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Audience: ['idp'], Issuer: origin },
    });
    for (const group of FUNCTIONS) {
      expect(environmentOf(stack.functions[group])).toMatchObject({
        IDP_ISSUER: origin,
        IDP_AUDIENCE: 'idp',
      });
    }
  });

  it('throttles the default stage and writes JSON access logs', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stages).toHaveLength(1);
    const { StageName, DefaultRouteSettings, AccessLogSettings } = stages[0]?.Properties ?? {};
    expect(StageName).toBe('$default');
    // Above the per-organization allowance of 20 requests in a second (rate 10 + burst 10).
    expect(DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThan(20);
    expect(DefaultRouteSettings.ThrottlingBurstLimit).toBeGreaterThanOrEqual(
      DefaultRouteSettings.ThrottlingRateLimit,
    );
    expect(JSON.parse(AccessLogSettings.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
  });
});

/**
 * The app with every optional context set at once (each test below looks at its own): one synthesis
 * instead of one each, a few seconds of CPU apiece.
 */
let configuredApp: { stack: ReturnType<typeof synthesizeIdp>['stack']; template: Template } | undefined;
const configured = () => {
  if (!configuredApp) {
    const { stack: configuredStack } = synthesizeIdp({
      issuer: 'https://id.example.com',
      sesSender: 'no-reply@example.com',
      corsOrigins: 'https://console.example.com',
      secretPrefix: 'idp-staging/',
    });
    configuredApp = { stack: configuredStack, template: Template.fromStack(configuredStack) };
  }
  return configuredApp;
};

describe('with a custom domain (context issuer)', () => {
  it('trusts and issues tokens for that origin', () => {
    const customTemplate = configured().template;
    customTemplate.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: { Issuer: 'https://id.example.com' },
    });
    customTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ IDP_ISSUER: 'https://id.example.com' }) },
    });
    customTemplate.hasOutput('TokenUrl', { Value: 'https://id.example.com/oauth2/token' });
  });

  it.each([
    'https://id.example.com/',
    'http://id.example.com',
    'https://id.example.com/idp',
    'id.example.com',
  ])('refuses %s: the issuer must be an exact https origin', (issuer) => {
    expect(() => synthesizeIdp({ issuer })).toThrow(/https origin/);
  });
});

describe('mail and browser origins (context sesSender, corsOrigins)', () => {
  it('lets only the mailer send mail, from the sender only, and only the functions whose requests cause emails invoke it (users, scim, accounts, user-passwords, signin, passkeys); tells every function the extra origins', () => {
    const mailing = configured();
    const mailTemplate = mailing.template;
    const mailer = mailing.stack.mailer;
    if (!mailer) throw new Error('a sesSender makes a mailer');
    const mailerId = logicalIdOf(mailer.function.lambda);
    const actionsStarting = (role: IdpFunction['role'], prefix: string) =>
      statementsOfRole(mailTemplate, logicalIdOf(role)).filter((statement) =>
        [statement.Action].flat().some((action) => String(action).startsWith(prefix)),
      );
    const sending = actionsStarting(mailer.function.role, 'ses:');
    expect(sending).toHaveLength(1);
    expect([sending[0]?.Action].flat()).toEqual(['ses:SendEmail']);
    expect(sending[0]?.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
    expect(JSON.stringify(sending[0]?.Resource)).toContain('identity/no-reply@example.com');
    for (const group of FUNCTIONS) {
      const fn = mailing.stack.functions[group];
      expect(actionsStarting(fn.role, 'ses:'), group).toEqual([]);
      const invoking = actionsStarting(fn.role, 'lambda:');
      const variables =
        mailTemplate.toJSON().Resources[logicalIdOf(fn.lambda)].Properties.Environment.Variables;
      if (['users', 'scim', 'accounts', 'user-passwords', 'signin', 'passkeys'].includes(group)) {
        expect(invoking, group).toHaveLength(1);
        expect([invoking[0]?.Action].flat()).toEqual(['lambda:InvokeFunction']);
        expect(JSON.stringify(invoking[0]?.Resource)).toContain(mailerId);
        expect(variables.IDP_MAILER_FUNCTION).toEqual({ Ref: mailerId });
      } else {
        expect(invoking, group).toEqual([]);
        expect(variables.IDP_MAILER_FUNCTION, group).toBeUndefined();
      }
      expect(variables.IDP_SES_SENDER, group).toBeUndefined();
    }
    mailTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ IDP_SES_SENDER: 'no-reply@example.com' }) },
    });
    // Two more tries within the hour a reset link lasts, and no queue keeping the links after.
    mailTemplate.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: mailerId },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 3600,
    });
    expect(mailTemplate.toJSON().Resources[mailerId].Properties.DeadLetterConfig).toBeUndefined();
    expect(
      Object.values(mailTemplate.findResources('AWS::Lambda::Function')).filter(
        (fn) => fn.Properties?.Environment?.Variables?.IDP_CORS_ORIGINS === 'https://console.example.com',
      ).length,
    ).toBe(FUNCTIONS.length + 1);
    expect(JSON.stringify(template.toJSON())).not.toContain('ses:SendEmail');
    expect(stack.mailer).toBeUndefined();
  });
});

describe('table', () => {
  it('is built from TABLE_SCHEMA: keys, indexes and TTL', () => {
    const indexKeys = TABLE_SCHEMA.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    }));
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexKeys,
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.timeToLiveAttribute, Enabled: true },
    });
  });

  it('has the local indexes of TABLE_SCHEMA: the table partition key with their own sort key', () => {
    expect(TABLE_SCHEMA.localIndexes.map((index) => index.name)).toEqual(['lsi1']);
    const localIndexes = TABLE_SCHEMA.localIndexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    }));
    expect(localIndexes[0]?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'lsi1sk', KeyType: 'RANGE' },
    ]);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { LocalSecondaryIndexes: localIndexes });
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      AttributeDefinitions: Match.arrayWith([{ AttributeName: 'lsi1sk', AttributeType: 'S' }]),
    });
  });

  it('is on-demand, KMS-encrypted, recoverable, protected and retained', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });
});

describe('least privilege per function', () => {
  /** Every role with a policy in the template, named as GRANTS names it. */
  const namedRoles = (): Map<string, string> => {
    const seed = Object.values(template.findResources('Custom::IdpSystemData'))[0];
    const providerFunction = resources[seed?.Properties.ServiceToken['Fn::GetAtt'][0]];
    return new Map([
      ...FUNCTIONS.map((name) => [logicalIdOf(stack.functions[name].role), name] as const),
      [logicalIdOf(stack.systemData.handler.role), 'system-data handler'],
      [logicalIdOf(stack.auditStream.forwarder.role), 'audit forwarder'],
      [logicalIdOf(stack.auditDigests.writer.role), 'audit digests'],
      [providerFunction?.Properties.Role['Fn::GetAtt'][0], 'system-data provider'],
    ]);
  };
  /** The log group a role's function writes to, by the function's logging configuration. */
  const logGroupOfRole = (roleId: string): string | undefined =>
    Object.values(template.findResources('AWS::Lambda::Function')).find(
      (fn) => fn.Properties.Role['Fn::GetAtt'][0] === roleId,
    )?.Properties.LoggingConfig.LogGroup.Ref;
  const grantsOf = (roleId: string) => {
    const names = new Map([
      [logicalIdOf(stack.table), 'table'],
      [logicalIdOf(stack.secrets.signingKeys), 'signing-keys secret'],
      [logicalIdOf(stack.secrets.idTokenSigningKeys), 'signing-keys-rs256 secret'],
      [logicalIdOf(stack.secrets.publicSigningKeys), 'signing-keys-public secret'],
      [logicalIdOf(stack.secrets.publicIdTokenSigningKeys), 'signing-keys-rs256-public secret'],
      [logicalIdOf(stack.secrets.totpKey), 'totp-key secret'],
      [logicalIdOf(stack.pictures.bucket), 'pictures bucket'],
      [logicalIdOf(stack.systemData.handler.lambda), 'system-data handler'],
      [logicalIdOf(stack.auditStream.bus), 'events bus'],
      [logicalIdOf(stack.auditStream.deadLetters), 'dead letters'],
      [logGroupOfRole(roleId) ?? '', 'its log group'],
    ]);
    return statementsOfRole(template, roleId)
      .map((statement) => describeStatement(statement, names))
      .sort();
  };

  it('has a function for each written name, and only those', () => {
    expect(Object.keys(stack.functions).sort()).toEqual(FUNCTIONS);
    const lambdas = Object.keys(template.findResources('AWS::Lambda::Function'));
    // Besides the endpoint functions: the seed handler, its provider, the audit forwarder and digests.
    expect(lambdas).toHaveLength(FUNCTIONS.length + 4);
  });

  it('grants every role exactly the statements written in GRANTS, and no role is left out', () => {
    const roles = namedRoles();
    const withPolicies = new Set(
      Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
        policy.Properties.Roles.map((role: { Ref: string }) => role.Ref),
      ),
    );
    expect([...withPolicies].map((roleId) => roles.get(roleId) ?? roleId).sort()).toEqual(
      Object.keys(GRANTS).sort(),
    );
    for (const [roleId, name] of roles) {
      expect(grantsOf(roleId), name).toEqual([...(GRANTS[name] ?? [])].sort());
    }
    // No role takes a managed policy (AWSLambdaBasicExecutionRole would log to any group).
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it("refuses locally exactly the table requests each function's IAM statements refuse (the local gateway's check)", () => {
    // IAM's evaluation of the statements these roles hold: a Deny that applies
    // wins, else an Allow that applies (a single item's partition: ForAllValues and ForAnyValue agree).
    const onResource = (statement: Statement, resource: object) =>
      statement.Resource.some((named) => JSON.stringify(named) === JSON.stringify(resource));
    const applies = (statement: Statement, action: TableItemAction, partition: string) =>
      statement.Action.includes(`dynamodb:${action}`) &&
      onResource(statement, tableArn) &&
      Object.values(statement.Condition ?? {}).every((condition) =>
        [condition['dynamodb:LeadingKeys'] ?? []].flat().some((pattern) => stringLike(pattern, partition)),
      );
    const iamAllows = (statements: Statement[], action: TableItemAction, partition: string) =>
      !statements.some((statement) => statement.Effect === 'Deny' && applies(statement, action, partition)) &&
      statements.some((statement) => statement.Effect === 'Allow' && applies(statement, action, partition));
    const indexArn = (name: string) => ({ 'Fn::Join': ['', [tableArn, `/index/${name}`]] });
    const iamAllowsIndexQuery = (statements: Statement[], index: string) =>
      statements.some(
        (statement) =>
          statement.Effect === 'Allow' &&
          statement.Action.includes('dynamodb:Query') &&
          onResource(statement, indexArn(index)),
      );
    const indexes = [...TABLE_SCHEMA.indexes, ...TABLE_SCHEMA.localIndexes].map((index) => index.name);
    // One partition of each pattern any function is granted, and of what none is.
    const partitions = [
      ...Object.values(GROUP_TABLE_ACCESS).flatMap((access) =>
        typeof access === 'object' ? access.writesPartitions : [],
      ),
      `${AUDIT_PREFIX}*`,
      `${AUDIT_DIGEST_PREFIX}*`,
      RATE_COUNTER_PARTITIONS,
      keys.idempotencyRecord('*').pk,
      keys.user('*', '*').pk,
      'UNKNOWN#*',
    ].map((pattern) => pattern.replaceAll('*', 'x1'));
    const actions: TableItemAction[] = [
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'BatchWriteItem',
      'ConditionCheckItem',
      'GetItem',
      'BatchGetItem',
      'Query',
    ];
    for (const group of FUNCTIONS) {
      const statements = statementsOf(stack.functions[group]);
      const granted = groupTableGrant(group, ROUTES);
      for (const partition of partitions)
        for (const action of actions)
          expect(granted.allows(action, partition), `${group} ${action} ${partition}`).toBe(
            iamAllows(statements, action, partition),
          );
      for (const index of indexes)
        expect(granted.queriesIndex(index), `${group} Query ${index}`).toBe(
          iamAllowsIndexQuery(statements, index),
        );
    }
    // The audit indexes are queried by the audit function alone; every function with the table
    // queries the others.
    const auditReaders = FUNCTIONS.filter((group) => groupTableGrant(group, ROUTES).queriesIndex('gsi2'));
    expect(auditReaders).toEqual(['audit']);
  });

  it('no function may Scan, and reads name the indexes one by one', () => {
    const everyStatement = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement,
    );
    expect(JSON.stringify(everyStatement)).not.toContain('dynamodb:Scan');
    expect(JSON.stringify(everyStatement)).not.toContain('/index/*');
  });

  it('only the oauth function can read and put the signing keys; the digests read the ES256 key set; signin and scim read published public keys only', () => {
    const READ = ['secretsmanager:GetSecretValue'];
    const { signingKeys, idTokenSigningKeys, publicSigningKeys, publicIdTokenSigningKeys } = stack.secrets;
    const others = FUNCTIONS.filter((group) => !['oauth', 'signin', 'scim'].includes(group)).map(
      (group) => stack.functions[group],
    );
    const actionsOn = (fn: IdpFunction, secretRef: object) =>
      statementsOf(fn)
        .filter((statement) => JSON.stringify(statement.Resource).includes(JSON.stringify(secretRef)))
        .flatMap((statement) => statement.Action)
        .sort();
    // What each reads of each secret: [key set ES256, key set RS256, public ES256, public RS256].
    const wanted = new Map<IdpFunction, string[][]>([
      [stack.functions.oauth, Array(4).fill([...READ, 'secretsmanager:PutSecretValue'])],
      [stack.auditDigests.writer, [READ, [], [], []]],
      [stack.functions.signin, [[], [], READ, READ]],
      [stack.functions.scim, [[], [], READ, []]],
      ...[...others, stack.systemData.handler].map(
        (fn) => [fn, [[], [], [], []]] as [IdpFunction, string[][]],
      ),
    ]);
    const secrets = [signingKeys, idTokenSigningKeys, publicSigningKeys, publicIdTokenSigningKeys];
    for (const [fn, actions] of wanted)
      expect(
        secrets.map((secret) => actionsOn(fn, { Ref: logicalIdOf(secret) })),
        fn.node.path,
      ).toEqual(actions);
    // Nothing else in the template points at a key set either (no resource policy, no other role).
    for (const [secret, roles] of [
      [signingKeys, 2],
      [idTokenSigningKeys, 1],
    ] as const) {
      const secretRef = JSON.stringify({ Ref: logicalIdOf(secret) });
      const referencing = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
        JSON.stringify(policy).includes(secretRef),
      );
      expect(referencing).toHaveLength(roles);
    }
  });

  it('generates the TOTP sealing key at deploy, keeps it, and lets only the sign-in step functions read it', () => {
    const secretRef = { Ref: logicalIdOf(stack.secrets.totpKey) };
    const readers = FUNCTIONS.filter((group) =>
      statementsOf(stack.functions[group]).some((statement) =>
        JSON.stringify(statement.Resource).includes(JSON.stringify(secretRef)),
      ),
    );
    expect(readers.sort()).toEqual(['accounts', 'federation', 'passkeys', 'signin']);
    for (const group of readers)
      expect(
        statementsOf(stack.functions[group])
          .filter((statement) => JSON.stringify(statement.Resource).includes(JSON.stringify(secretRef)))
          .flatMap((statement) => statement.Action)
          .sort(),
      ).toEqual(['secretsmanager:GetSecretValue']);
    const [secret] = Object.entries(template.findResources('AWS::SecretsManager::Secret')).filter(
      ([id]) => id === logicalIdOf(stack.secrets.totpKey),
    );
    expect(secret?.[1]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        Name: 'idp/totp-key',
        GenerateSecretString: { GenerateStringKey: 'material', SecretStringTemplate: '{"id":"1"}' },
      },
    });
  });

  it('only sso writes SSO client secrets and only federation reads them, under <prefix>sso/ only', () => {
    const ssoSecretActionsOf = (fn: IdpFunction) =>
      statementsOf(fn)
        .filter((statement) => JSON.stringify(statement.Resource).includes(':secret:idp/sso/*'))
        .flatMap((statement) => statement.Action)
        .sort();
    // A new value is a new secret, and the one it replaced is deleted: none is changed in place.
    expect(ssoSecretActionsOf(stack.functions.sso)).toEqual([
      'secretsmanager:CreateSecret',
      'secretsmanager:DeleteSecret',
    ]);
    expect(ssoSecretActionsOf(stack.functions.federation)).toEqual(['secretsmanager:GetSecretValue']);
    const others = FUNCTIONS.filter((group) => group !== 'sso' && group !== 'federation').map(
      (group) => stack.functions[group],
    );
    for (const fn of [...others, stack.systemData.handler]) expect(ssoSecretActionsOf(fn)).toEqual([]);
    const secretActions = statementsOf(stack.functions.sso)
      .flatMap((statement) => statement.Action)
      .filter((action) => action.startsWith('secretsmanager:'));
    expect(secretActions).not.toContain('secretsmanager:GetSecretValue');
  });

  it('every function logs to its own log group with a retention; arm64 with 1024 MB (docs/performance.md, "Lambda settings")', () => {
    for (const fn of [...Object.values(stack.functions), stack.systemData.handler]) {
      const properties = resources[logicalIdOf(fn.lambda)]?.Properties;
      expect(properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], MemorySize: 1024 });
      const logGroupId = properties.LoggingConfig.LogGroup.Ref;
      expect(resources[logGroupId]?.Properties.RetentionInDays).toBeGreaterThan(0);
      expect(properties.Environment.Variables.NODE_OPTIONS).toContain('--enable-source-maps');
      expect(properties.Environment.Variables).not.toHaveProperty('IDP_DYNAMODB_ENDPOINT');
    }
  });
});

describe('picture bucket', () => {
  const bucketId = logicalIdOf(stack.pictures.bucket);
  const logBucketId = logicalIdOf(stack.pictures.accessLogs);
  const bucketArn = { 'Fn::GetAtt': [bucketId, 'Arn'] };
  const objectsOf = (id: string, suffix: string) => ({
    'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, suffix]],
  });
  const policyStatementsOf = (id: string): Record<string, unknown>[] => {
    const policies = Object.values(template.findResources('AWS::S3::BucketPolicy')).filter(
      (policy) => JSON.stringify(policy.Properties.Bucket) === JSON.stringify({ Ref: id }),
    );
    expect(policies).toHaveLength(1);
    return policies[0]?.Properties.PolicyDocument.Statement;
  };
  const s3StatementsOf = (fn: IdpFunction) =>
    statementsOf(fn).filter((statement) => statement.Action.some((action) => action.startsWith('s3:')));

  it.each([
    ['user-pictures', () => bucketId],
    ['access logs', () => logBucketId],
  ])('%s: all public access blocked, ACLs disabled, SSE-S3, retained', (_name, idOf) => {
    expect(resources[idOf()]).toMatchObject({
      Type: 'AWS::S3::Bucket',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      },
    });
    expect(resources[idOf()].Properties).not.toHaveProperty('AccessControl');
  });

  it.each([
    ['user-pictures', () => bucketId],
    ['access logs', () => logBucketId],
  ])('%s: denies every request that does not use TLS', (_name, idOf) => {
    expect(policyStatementsOf(idOf())).toContainEqual({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:*',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      Resource: [{ 'Fn::GetAtt': [idOf(), 'Arn'] }, objectsOf(idOf(), '/*')],
    });
  });

  it('is versioned and expires overwritten pictures', () => {
    expect(resources[bucketId].Properties).toMatchObject({
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: [
          expect.objectContaining({
            Status: 'Enabled',
            NoncurrentVersionExpiration: { NoncurrentDays: NONCURRENT_PICTURE_DAYS },
          }),
        ],
      },
    });
  });

  it('writes server access logs to the separate access-log bucket, which expires them', () => {
    expect(logBucketId).not.toBe(bucketId);
    expect(resources[bucketId].Properties.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logBucketId },
      LogFilePrefix: 'pictures-bucket/',
    });
    expect(resources[logBucketId].Properties.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({ Status: 'Enabled', ExpirationInDays: expect.any(Number) }),
    );
    // Delivered by the S3 logging service through the bucket policy, for the picture bucket only.
    expect(policyStatementsOf(logBucketId)).toContainEqual({
      Effect: 'Allow',
      Principal: { Service: 'logging.s3.amazonaws.com' },
      Action: 's3:PutObject',
      Resource: objectsOf(logBucketId, '/pictures-bucket/*'),
      Condition: {
        ArnLike: { 'aws:SourceArn': bucketArn },
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      },
    });
  });

  it('only the pictures function reads and writes pictures/<org>/<user>, and only SCIM deletes them', () => {
    expect(pictureKey('*', '*')).toBe('pictures/*/*');
    expect(s3StatementsOf(stack.functions['user-pictures'])).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject'],
        Resource: [objectsOf(bucketId, '/pictures/*/*')],
      },
    ]);
    expect(s3StatementsOf(stack.functions.scim)).toEqual([
      { Effect: 'Allow', Action: ['s3:DeleteObject'], Resource: [objectsOf(bucketId, '/pictures/*/*')] },
    ]);
    const picturesFunctions = [stack.functions['user-pictures'], stack.functions.scim];
    for (const fn of everyFunction().filter((fn) => !picturesFunctions.includes(fn))) {
      expect(s3StatementsOf(fn)).toEqual([]);
    }
    // No other role in the template (the seed provider's included) may use S3 or names the bucket.
    const everyStatement = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement,
    );
    const s3Actions = everyStatement.flatMap((statement) =>
      [statement.Action].flat().filter((action: string) => action.startsWith('s3:')),
    );
    expect(s3Actions.sort()).toEqual([
      's3:DeleteObject',
      's3:GetObject',
      's3:GetObjectVersion',
      's3:PutObject',
    ]);
    const referencing = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy).includes(JSON.stringify(bucketArn)),
    );
    expect(referencing).toHaveLength(2);
  });

  it('denies object reads, writes and deletes to every principal but the pictures and SCIM roles', () => {
    expect(policyStatementsOf(bucketId)).toContainEqual({
      Sid: 'OnlyGrantedRolesReadOrWritePictures',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: ['s3:DeleteObject', 's3:GetObject', 's3:GetObjectVersion', 's3:PutObject'],
      Resource: objectsOf(bucketId, '/*'),
      Condition: {
        ArnNotEquals: {
          'aws:PrincipalArn': [
            { 'Fn::GetAtt': [logicalIdOf(stack.functions['user-pictures'].role), 'Arn'] },
            { 'Fn::GetAtt': [logicalIdOf(stack.functions.scim.role), 'Arn'] },
          ],
        },
      },
    });
    // Nothing in the bucket policy allows anyone in.
    expect(policyStatementsOf(bucketId).filter((statement) => statement.Effect === 'Allow')).toEqual([]);
  });

  it('tells the pictures and SCIM functions, and only them, where the pictures are', () => {
    const picturesFunctions = [stack.functions['user-pictures'], stack.functions.scim];
    for (const fn of picturesFunctions)
      expect(environmentOf(fn)).toMatchObject({ IDP_PICTURE_BUCKET: { Ref: bucketId } });
    for (const fn of everyFunction().filter((fn) => !picturesFunctions.includes(fn))) {
      expect(environmentOf(fn)).not.toHaveProperty('IDP_PICTURE_BUCKET');
    }
    template.hasOutput('PictureBucketName', { Value: { Ref: bucketId } });
  });
});

describe('signing-key secret', () => {
  it('exists as a generated placeholder named <prefix>signing-keys and is retained', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ Name: 'idp/signing-keys', GenerateSecretString: Match.anyValue() }),
    });
    expect(environmentOf(stack.functions.oauth)).toMatchObject({
      IDP_SECRET_STORE: 'aws',
      IDP_SECRET_PREFIX: 'idp/',
    });
  });

  it('follows the secretPrefix context', () => {
    const prefixedTemplate = configured().template;
    prefixedTemplate.hasResourceProperties('AWS::SecretsManager::Secret', {
      Name: 'idp-staging/signing-keys',
    });
    prefixedTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ IDP_SECRET_PREFIX: 'idp-staging/' }) },
    });
  });
});

describe('system-data seed', () => {
  it('is a custom resource of the Provider framework whose handler may write the table', () => {
    const seed = stack.systemData;
    const customResources = Object.values(template.findResources('Custom::IdpSystemData'));
    expect(customResources).toHaveLength(1);
    expect(customResources[0]?.Properties).toMatchObject({ systemDataHash: systemDataHash() });
    const serviceTokenFunction = customResources[0]?.Properties.ServiceToken['Fn::GetAtt'][0];
    expect(
      resources[serviceTokenFunction]?.Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN,
    ).toEqual({
      'Fn::GetAtt': [logicalIdOf(seed.handler.lambda), 'Arn'],
    });
    const writes = statementsOf(seed.handler).filter((s) => allows(s, 'dynamodb:BatchWriteItem'));
    expect(writes).toEqual([expect.objectContaining({ Resource: [tableArn] })]);
    expect(writes[0]?.Condition).toBeUndefined();
  });

  it('changes its hash when the catalogue or the managed roles change, so a deployment re-seeds', () => {
    const renamed = PERMISSION_CATALOGUE.map((permission, index) =>
      index === 0 ? { ...permission, moduleDisplayName: 'Renamed' } : permission,
    );
    expect(systemDataHash(renamed, MANAGED_ROLES)).not.toBe(systemDataHash());
    expect(systemDataHash(PERMISSION_CATALOGUE, MANAGED_ROLES.slice(1))).not.toBe(systemDataHash());
    expect(systemDataHash([...PERMISSION_CATALOGUE], [...MANAGED_ROLES])).toBe(systemDataHash());
  });
});

describe('alarms and outputs', () => {
  it('alarms on errors of every function and on the rate of API 5xx', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    for (const fn of [...Object.values(stack.functions), stack.systemData.handler]) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          MetricName: 'Errors',
          Namespace: 'AWS/Lambda',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(fn.lambda) } }],
        }),
      );
    }
    const expressionOf = (alarm: Record<string, unknown>) =>
      (alarm.Metrics as { Expression?: string }[] | undefined)?.find((metric) => metric.Expression)
        ?.Expression;
    const rate = alarms.find((alarm) => expressionOf(alarm) === '100 * errors / MAX([requests, 1])');
    expect(rate).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(JSON.stringify(rate)).toContain('"MetricName":"5xx"');
    expect(JSON.stringify(rate)).toContain('"MetricName":"Count"');
  });

  it('alarms on throttled invocations of every function', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    const throttling = alarms.filter((alarm) => alarm.MetricName === 'Throttles');
    expect(throttling.map((alarm) => alarm.Dimensions[0].Value.Ref).sort()).toEqual(
      everyFunction()
        .map((fn) => logicalIdOf(fn.lambda))
        .sort(),
    );
    for (const alarm of throttling) expect(alarm).toMatchObject({ Threshold: 1, Statistic: 'Sum' });
  });

  it('alarms when audit records reach the dead letters or the forwarder falls behind the stream', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::GetAtt': [logicalIdOf(stack.auditStream.deadLetters), 'QueueName'] },
          },
        ],
        Threshold: 1,
      }),
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({
        MetricName: 'IteratorAge',
        Dimensions: [
          { Name: 'FunctionName', Value: { Ref: logicalIdOf(stack.auditStream.forwarder.lambda) } },
        ],
        Threshold: 600_000,
        Statistic: 'Maximum',
      }),
    );
  });

  it('leaves Powertools metrics on (embedded metric format) and its dev mode off in every endpoint function', () => {
    const resources = template.toJSON().Resources as Record<
      string,
      { Properties: { Environment: { Variables: Record<string, string> } } }
    >;
    for (const fn of Object.values(stack.functions)) {
      const variables = resources[logicalIdOf(fn.lambda)]?.Properties.Environment.Variables ?? {};
      expect(Object.keys(variables).filter((name) => name.startsWith('POWERTOOLS_'))).toEqual([]);
    }
  });

  it('outputs the API URL, the token URL and the table name', () => {
    const origin = { 'Fn::GetAtt': [logicalIdOf(stack.api.httpApi), 'ApiEndpoint'] };
    template.hasOutput('ApiUrl', { Value: { 'Fn::Join': ['', [origin, '/idp']] } });
    template.hasOutput('TokenUrl', { Value: { 'Fn::Join': ['', [origin, '/oauth2/token']] } });
    template.hasOutput('TableName', { Value: { Ref: logicalIdOf(stack.table) } });
  });
});

describe('cdk-nag (AWS Solutions)', () => {
  const acknowledgementsIn = (root: IConstruct) =>
    root.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>));

  it('reports no finding that is neither fixed nor acknowledged', () => {
    const report = new AwsSolutionsChecks(app).validateScope(app);
    const findings = report.violations.map(
      (violation) =>
        `${violation.severity} ${violation.ruleName} at ${violation.violatingResources.map((r) => r.constructPath)}`,
    );
    expect(findings).toEqual([]);
  });

  it('gives every acknowledgement a specific written reason', () => {
    const acknowledgements = acknowledgementsIn(app);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const [rule, reason] of acknowledgements) {
      expect(reason.split(/\s+/).length, `${rule}: ${reason}`).toBeGreaterThanOrEqual(12);
    }
  });

  it('fails the synthesis of the app when a finding is left unacknowledged', () => {
    const failing = synthesizeIdp();
    const role = new Role(failing.stack, 'CarelessRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:*'], resources: ['*'] }));
    expect(() => failing.app.synth()).toThrow(/AwsSolutions-IAM5\[Resource::\*\]/);
  });
});

describe("CDK's built-in CloudFormation validation (resource schemas and rules)", () => {
  /** What the validation report of a synthesized assembly lists (CDK reports these as warnings). */
  const findingsOf = (assemblyDirectory: string): string[] =>
    JSON.parse(
      readFileSync(path.join(assemblyDirectory, 'validation-report.json'), 'utf8'),
    ).pluginReports.flatMap((report: { violations: { ruleName: string; description: string }[] }) =>
      report.violations.map((violation) => `${violation.ruleName} ${violation.description}`),
    );

  it('finds nothing in the template', () => {
    expect(findingsOf(app.synth().directory)).toEqual([]);
  });

  it('reports a property value CloudFormation does not take (what the check above would see)', () => {
    const broken = synthesizeIdp({}, { validate: true });
    (broken.stack.table.node.defaultChild as CfnResource).addPropertyOverride('BillingMode', 'SOMETIMES');
    expect(findingsOf(broken.app.synth().directory)).toEqual([expect.stringMatching(/^W3030 BillingMode/)]);
  });
});

describe('upgrading a table deployed before its newer indexes (context globalIndexes)', () => {
  const indexNamesOf = (synthesized: Template) => {
    const tables = synthesized.findResources('AWS::DynamoDB::GlobalTable');
    const [table] = Object.values(tables);
    return ((table?.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map(
      (index) => index.IndexName,
    );
  };

  it('declares only the first N global indexes, one more per deploy; all of them by default', () => {
    expect(indexNamesOf(Template.fromStack(synthesizeIdp({ globalIndexes: 2 }).stack))).toEqual([
      'gsi1',
      'gsi2',
    ]);
    expect(indexNamesOf(template)).toEqual(TABLE_SCHEMA.indexes.map((index) => index.name));
  });

  it('refuses a count outside 1 to the number of indexes', () => {
    for (const globalIndexes of [0, TABLE_SCHEMA.indexes.length + 1, 2.5, 'x'])
      expect(() => synthesizeIdp({ globalIndexes }), String(globalIndexes)).toThrow(/globalIndexes/);
  });
});

describe('audit events (lib/audit-stream.ts)', () => {
  it('puts new audit records, and nothing else, from the table stream on the idp-events bus; outputs its ARN', () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'idp-events' });
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toMatchObject({
      FunctionName: { Ref: logicalIdOf(stack.auditStream.forwarder.lambda) },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: { Keys: { pk: { S: [{ prefix: 'AUDIT#' }] }, sk: { S: ['RECORD'] } } },
            }),
          },
        ],
      },
    });
    const table = Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))[0];
    expect(table?.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    const outputs = Object.values(template.toJSON().Outputs ?? {}) as { Value: unknown }[];
    expect(outputs.map((output) => output.Value)).toContainEqual({
      'Fn::GetAtt': [logicalIdOf(stack.auditStream.bus), 'Arn'],
    });
  });
});
