import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ENDPOINT_GROUPS, type EndpointGroup } from '../shared/api/route-definition.js';
import { ROUTES } from '../shared/api/routes.js';
import { GROUP_TABLE_ACCESS } from '../shared/api/table-access.js';
import { AuditDigests } from './audit-digests.js';
import { AuditStream } from './audit-stream.js';
import { IdpApi } from './idp-api.js';
import { IdpFunction } from './idp-function.js';
import { IdpSecrets } from './idp-secrets.js';
import { IdpTable } from './idp-table.js';
import { Mailer } from './mailer.js';
import { PictureBucket } from './picture-bucket.js';
import { SystemDataSeed } from './system-data-seed.js';

export const TOKEN_AUDIENCE = 'idp';
export const TOKEN_LIFETIME_SECONDS = 3600;
export const DEFAULT_SECRET_PREFIX = 'idp/';

export interface IdpStackProps extends StackProps {
  /**
   * The public origin when a custom domain fronts the API, e.g. `https://id.example.com`: the
   * token issuer and the authorizer's trusted issuer. Default: the API's execute-api origin.
   */
  readonly issuer?: string;
  /** @default 'idp/' */
  readonly secretPrefix?: string;
  /**
   * A verified Amazon SES identity's address, e.g. `no-reply@example.com`: join and reset emails
   * are sent from it. Without it emails stay in the outbox (the table) only.
   */
  readonly sesSender?: string;
  /** Browser origins allowed besides registered applications', comma-separated. */
  readonly corsOrigins?: string;
  /** Only while upgrading an older table: how many global indexes to declare (see IdpTable). */
  readonly globalIndexes?: number;
}

/** `https://host[:port]`, nothing after it: the issuer is compared as a string, so it must be exact. */
const assertOrigin = (issuer: string): void => {
  const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
  if (url?.protocol !== 'https:' || url.origin !== issuer) {
    throw new Error(`issuer must be an https origin without a path or trailing slash, got "${issuer}"`);
  }
};

const constructIdOf = (group: EndpointGroup): string =>
  group.replace(/(^|-)([a-z])/g, (_match, _dash, letter: string) => letter.toUpperCase());

/**
 * The IDP service: one function per endpoint group behind an HTTP API with a JWT authorizer, one
 * DynamoDB table, the signing-key secret, the private bucket of user pictures and the system-data
 * seed. Environment-agnostic: it synthesizes without AWS credentials.
 */
export class IdpStack extends Stack {
  readonly table: IdpTable;
  readonly secrets: IdpSecrets;
  readonly pictures: PictureBucket;
  readonly api: IdpApi;
  readonly functions: Record<EndpointGroup, IdpFunction>;
  readonly systemData: SystemDataSeed;
  readonly auditStream: AuditStream;
  readonly auditDigests: AuditDigests;
  /** With `sesSender` only. */
  readonly mailer?: Mailer;

  constructor(scope: Construct, id: string, props: IdpStackProps = {}) {
    super(scope, id, { description: 'IDP identity and access management service', ...props });
    if (props.issuer !== undefined) assertOrigin(props.issuer);

    this.table = new IdpTable(this, 'Table', props.globalIndexes);
    // A function reads an empty variable as unset, so it would look under the default prefix.
    if (props.secretPrefix === '')
      throw new Error(`secretPrefix must not be empty (the default is ${DEFAULT_SECRET_PREFIX})`);
    this.secrets = new IdpSecrets(this, 'Secrets', { prefix: props.secretPrefix ?? DEFAULT_SECRET_PREFIX });
    this.api = new IdpApi(this, 'Api', { issuer: props.issuer, audience: TOKEN_AUDIENCE });

    const environment = {
      IDP_ISSUER: this.api.origin,
      IDP_AUDIENCE: TOKEN_AUDIENCE,
      IDP_TOKEN_TTL_SECONDS: String(TOKEN_LIFETIME_SECONDS),
      IDP_LOG_LEVEL: 'INFO',
      ...(props.corsOrigins ? { IDP_CORS_ORIGINS: props.corsOrigins } : {}),
      ...this.secrets.environment,
    };
    this.functions = Object.fromEntries(
      ENDPOINT_GROUPS.map((group) => [group, this.endpointFunction(group, environment)]),
    ) as Record<EndpointGroup, IdpFunction>;
    this.secrets.grantSigningKeys(this.functions.oauth);
    // They verify the service's tokens (logout's ID token hints; SCIM takes an API client's token
    // as well as its own bearer secrets) with the published public keys: neither can sign one.
    this.secrets.grantVerificationKeyRead(this.functions.signin, 'both');
    this.secrets.grantVerificationKeyRead(this.functions.scim, 'ES256');
    // Only sso writes SSO secrets; only federation reads them.
    this.secrets.grantSsoClientSecrets(this.functions.sso);
    this.secrets.grantSsoClientSecretRead(this.functions.federation);
    // Every function that runs a sign-in step (continueSignIn) or shows the TOTP enrolment.
    for (const group of ['signin', 'accounts', 'passkeys', 'federation'] as const)
      this.secrets.grantTotpKeyRead(this.functions[group]);
    // Only the functions whose requests cause emails hand them to the mailer: the join email (users,
    // and scim for provisioned users), reset emails (accounts), and the notices of a change of how
    // a person signs in (accounts, user-passwords, users: password and MFA reset; signin: TOTP;
    // passkeys).
    if (props.sesSender) {
      this.mailer = new Mailer(this, 'Mailer', {
        sender: props.sesSender,
        environment: { ...environment, IDP_TABLE_NAME: this.table.tableName },
      });
      for (const group of ['users', 'scim', 'accounts', 'user-passwords', 'signin', 'passkeys'] as const)
        this.mailer.handEmailsFrom(this.functions[group]);
    }
    this.pictures = new PictureBucket(this, 'Pictures');
    this.pictures.grantPictureAccess(this.functions['user-pictures']);
    // A directory's DELETE takes the leaver's picture away.
    this.pictures.grantPictureRemoval(this.functions.scim);

    this.systemData = new SystemDataSeed(this, 'SystemData', { table: this.table });
    this.auditStream = new AuditStream(this, 'AuditStream', { table: this.table });
    this.auditDigests = new AuditDigests(this, 'AuditDigests', { table: this.table, secrets: this.secrets });

    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the management API',
      value: `${this.api.origin}/idp`,
    });
    new CfnOutput(this, 'TokenUrl', {
      description: 'OAuth 2.0 token endpoint',
      value: `${this.api.origin}/oauth2/token`,
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'PictureBucketName', { value: this.pictures.bucket.bucketName });
  }

  /** The group's Lambda (`functions/<group>.ts`), its table grants and its routes. */
  private endpointFunction(group: EndpointGroup, environment: Record<string, string>): IdpFunction {
    const fn = new IdpFunction(this, constructIdOf(group), {
      entry: `functions/${group}.ts`,
      description: `IDP ${group} endpoints`,
      routes: ROUTES.filter((route) => route.group === group),
      environment,
    });
    fn.bindTable(this.table, GROUP_TABLE_ACCESS[group]);
    this.api.addRoutesOf(fn);
    return fn;
  }
}
