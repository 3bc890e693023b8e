import { perStoreSettings } from '../config.js';

/**
 * Where secret values live: AWS Secrets Manager when deployed, files under the local data
 * directory in development. Secret values never go to the table, to logs or to responses.
 */
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  /** Creates the secret or replaces its value. */
  put(name: string, value: string): Promise<void>;
  /** Creates a secret of a name not used before (never replaces one). */
  create(name: string, value: string): Promise<void>;
  /** Deletes the secret at once (no recovery window); a missing secret is fine. */
  delete(name: string): Promise<void>;
  /**
   * Stores `value` unless the secret was already initialized, atomically; answers the value that
   * won. `isInitialized` tells a real value from a placeholder the stack created.
   */
  initialize(name: string, value: string, isInitialized: (current: string) => boolean): Promise<string>;
}

/** The adapter the environment asks for, loaded on first use so each bundle only pays for its own. */
const configured = perStoreSettings(async (settings): Promise<SecretStore> => {
  const { secretStore: where } = settings;
  if (where.kind === 'aws') {
    const { SecretsManagerSecretStore, secretsManagerClient } = await import('./secrets-manager-store.js');
    return new SecretsManagerSecretStore(where.prefix, secretsManagerClient(where.endpoint));
  }
  // Deployed bundles define this as true (lib/bundling.ts): the branch, and the file adapter
  // with it, drops out of them.
  if (!(globalThis as { IDP_LAMBDA_BUNDLE?: true }).IDP_LAMBDA_BUNDLE) {
    const { FileSecretStore } = await import('./file-secret-store.js');
    return new FileSecretStore(where.directory);
  }
  throw new Error('A deployed function keeps its secrets in AWS Secrets Manager (IDP_SECRET_STORE=aws)');
});

export const secretStore = (): Promise<SecretStore> => configured();

/** The token-signing key sets, one secret per algorithm (shared/auth/signing-keys.ts). */
export const SIGNING_KEY_SECRETS = { ES256: 'signing-keys', RS256: 'signing-keys-rs256' } as const;
/**
 * The public halves of each ring's published keys, apart from the private key set, so that a
 * function that only verifies the service's tokens (scim, signin) cannot sign one.
 */
export const PUBLIC_KEY_SECRETS = {
  ES256: 'signing-keys-public',
  RS256: 'signing-keys-rs256-public',
} as const;

/** The key that seals TOTP secrets in the table (shared/auth/totp-sealing.ts). */
export const TOTP_KEY_SECRET = 'totp-key';

/** SSO client secrets live in this folder; the stack grants the SSO function this folder only. */
export const SSO_SECRET_FOLDER = 'sso/';

/**
 * `sso/<clientId>/<version>/secret`: each value of a provider's secret has a name of its own, the
 * provider naming the one in use (shared/store/sso-secret-values.ts); a provider written before
 * versions has `sso/<clientId>/secret`. The fixed last segment keeps a client id ending in `-` and
 * six characters from being taken for a partial ARN by Secrets Manager.
 */
export const ssoSecretName = (clientId: string, version?: string): string =>
  `${SSO_SECRET_FOLDER}${clientId}/${version ? `${version}/` : ''}secret`;
