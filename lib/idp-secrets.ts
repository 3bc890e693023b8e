import { ArnFormat, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import {
  PUBLIC_KEY_SECRETS,
  SIGNING_KEY_SECRETS,
  SSO_SECRET_FOLDER,
  TOTP_KEY_SECRET,
} from '../shared/auth/secret-store.js';
import type { IdpFunction } from './idp-function.js';

export interface IdpSecretsProps {
  /** Every secret of the service is named `<prefix><name>` (see shared/auth/secret-store.ts). */
  readonly prefix: string;
}

/**
 * The service's secrets in Secrets Manager (encrypted with the AWS managed key
 * aws/secretsmanager). The token-signing key sets (ES256, and RS256 for ID tokens) exist from
 * the start, as generated placeholders that the oauth function replaces with real key sets on
 * first use; SSO client secrets are created at runtime under `<prefix>sso/`.
 */
/**
 * GetSecretValue alone: `Secret.grantRead` adds DescribeSecret (the secret's metadata, rotation and
 * tags), which no function calls.
 */
const grantValueRead = (fn: IdpFunction, secrets: Secret[]): void => {
  fn.lambda.addToRolePolicy(
    new PolicyStatement({
      actions: ['secretsmanager:GetSecretValue'],
      resources: secrets.map((secret) => secret.secretArn),
    }),
  );
};

export class IdpSecrets extends Construct {
  readonly prefix: string;
  readonly signingKeys: Secret;
  readonly idTokenSigningKeys: Secret;
  /**
   * Each ring's published public keys, written by the oauth function beside its key set: what the
   * functions that only verify the service's tokens read, so that none of them can sign one.
   */
  readonly publicSigningKeys: Secret;
  readonly publicIdTokenSigningKeys: Secret;
  /** Seals TOTP secrets in the table (shared/auth/totp-sealing.ts); generated here, never replaced. */
  readonly totpKey: Secret;
  /** What a function needs to find the secrets: the Secrets Manager adapter and the prefix. */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: IdpSecretsProps) {
    super(scope, id);
    this.prefix = props.prefix;
    this.environment = { IDP_SECRET_STORE: 'aws', IDP_SECRET_PREFIX: props.prefix };

    this.signingKeys = this.keySet(
      'SigningKeys',
      SIGNING_KEY_SECRETS.ES256,
      'token-signing key set (ES256 JWKs)',
    );
    this.idTokenSigningKeys = this.keySet(
      'IdTokenSigningKeys',
      SIGNING_KEY_SECRETS.RS256,
      'ID-token-signing key set (RS256 JWKs)',
    );
    this.publicSigningKeys = this.keySet(
      'PublicSigningKeys',
      PUBLIC_KEY_SECRETS.ES256,
      'published token-signing public keys (ES256, no private key)',
    );
    this.publicIdTokenSigningKeys = this.keySet(
      'PublicIdTokenSigningKeys',
      PUBLIC_KEY_SECRETS.RS256,
      'published ID-token-signing public keys (RS256, no private key)',
    );
    this.totpKey = new Secret(this, 'TotpKey', {
      secretName: `${this.prefix}${TOTP_KEY_SECRET}`,
      description: 'IDP key sealing the TOTP secrets stored in the table',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ id: '1' }),
        generateStringKey: 'material',
        passwordLength: 64,
        excludePunctuation: true,
      },
      // Losing it would leave every enrolled person's authenticator app unusable.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.totpKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Every sealed TOTP secret names its key; a Secrets Manager rotation would replace the key without ' +
        're-sealing them and lock every enrolled person out of two-step verification.',
    });
  }

  /** Read only: the functions that run sign-in steps seal a new enrolment and open a stored secret. */
  grantTotpKeyRead(fn: IdpFunction): void {
    grantValueRead(fn, [this.totpKey]);
  }

  private keySet(id: string, name: string, what: string): Secret {
    const secret = new Secret(this, id, {
      secretName: `${this.prefix}${name}`,
      description: `IDP ${what}; a placeholder until the oauth function first runs`,
      // Losing it would invalidate every issued token and the published JWKS.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key set is rotated by the service itself (rotateSigningKeys in shared/auth/signing-keys.ts), which keeps ' +
        'the previous public key in the JWKS until tokens signed with it expire; a Secrets Manager rotation ' +
        'Lambda would replace the set without that overlap and break tokens in flight.',
    });
    return secret;
  }

  /**
   * The signer (the oauth function): read both key sets and their published keys, write each key
   * set once to replace its placeholder, and publish its public keys (PutSecretValue only).
   */
  grantSigningKeys(fn: IdpFunction): void {
    const secrets = [
      this.signingKeys,
      this.idTokenSigningKeys,
      this.publicSigningKeys,
      this.publicIdTokenSigningKeys,
    ];
    fn.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
        resources: secrets.map((secret) => secret.secretArn),
      }),
    );
  }

  /**
   * Read the published public keys only, of both rings or of the ES256 ring (access tokens'): the
   * functions that verify the service's tokens (signin: logout's ID token hints; scim: API
   * clients' access tokens) and cannot sign one.
   */
  grantVerificationKeyRead(fn: IdpFunction, rings: 'ES256' | 'both'): void {
    grantValueRead(
      fn,
      rings === 'both' ? [this.publicSigningKeys, this.publicIdTokenSigningKeys] : [this.publicSigningKeys],
    );
  }

  /** Read the ES256 key set: the audit digests are signed with it (and verified). */
  grantAccessTokenKeyRead(fn: IdpFunction): void {
    grantValueRead(fn, [this.signingKeys]);
  }

  /**
   * For the SSO providers function: a new secret value is a new secret under `<prefix>sso/`, and
   * the value it replaced is deleted (shared/store/sso-secret-values.ts); no value is changed in
   * place. It never reads them: nothing in this service hands a secret back.
   */
  grantSsoClientSecrets(fn: IdpFunction): void {
    this.grantOnSsoSecrets(fn, ['secretsmanager:CreateSecret', 'secretsmanager:DeleteSecret']);
  }

  /** For the federation function: it reads a provider's secret to exchange the upstream's code. */
  grantSsoClientSecretRead(fn: IdpFunction): void {
    this.grantOnSsoSecrets(fn, ['secretsmanager:GetSecretValue']);
  }

  /** SSO secrets are named at runtime, one per provider, and so known only by prefix. */
  private grantOnSsoSecrets(fn: IdpFunction, actions: string[]): void {
    const ssoSecrets = Stack.of(this).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${this.prefix}${SSO_SECRET_FOLDER}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    fn.lambda.addToRolePolicy(new PolicyStatement({ actions, resources: [ssoSecrets] }));
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${this.prefix}${SSO_SECRET_FOLDER}*]`,
      reason:
        'SSO client secrets are created at runtime, one per provider, so they can only be named by their ' +
        'prefix; the wildcard is confined to the sso/ folder of this service.',
    });
  }
}
