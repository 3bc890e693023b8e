import type { SignatureV4 } from '@smithy/signature-v4';
import { signedFetch, signerFor } from '../aws/request-signing.js';
import type { SecretStore } from './secret-store.js';

/** A fixed version token makes the first initialization win: a different value with the same
 * token is refused by Secrets Manager (ResourceExistsException). */
const INITIAL_VERSION_TOKEN = '00000000-0000-4000-8000-000000000001';

/** An error Secrets Manager answered, named by its type (`ResourceNotFoundException`, ...). */
export class SecretsManagerError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

const named = (error: unknown, name: string) => error instanceof Error && error.name === name;

/** One call of Secrets Manager's JSON API (`secretsmanager.<Operation>`). */
export type SecretsManagerCall = (
  operation: string,
  input: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/**
 * Secrets Manager's JSON protocol over a signed fetch: four operations, where the SDK client
 * would add about 24 KB to every function that reads a secret (`npm run bench`, bundle bytes).
 */
export const secretsManagerCall = (
  options: { region?: string; endpoint?: string } = {},
): SecretsManagerCall => {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const url = new URL(options.endpoint ?? `https://secretsmanager.${region}.amazonaws.com/`);
  let signer: SignatureV4 | undefined;
  return async (operation, input) => {
    signer ??= signerFor('secretsmanager', region);
    const response = await signedFetch(signer, url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': `secretsmanager.${operation}`,
      },
      body: JSON.stringify(input),
    });
    const text = await response.text();
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    if (response.ok) return body;
    // `__type` is the error's name, sometimes behind a namespace (`ns#Name`).
    const type = String(body.__type ?? `HTTP${response.status}`)
      .split('#')
      .pop() as string;
    throw new SecretsManagerError(type, String(body.message ?? body.Message ?? type));
  };
};

/** Deployed adapter. Names are prefixed so the stack can grant access to exactly that prefix. */
export class SecretsManagerSecretStore implements SecretStore {
  constructor(
    private readonly prefix: string,
    private readonly call: SecretsManagerCall = secretsManagerCall(),
  ) {}

  async get(name: string): Promise<string | undefined> {
    try {
      const result = await this.call('GetSecretValue', { SecretId: this.prefix + name });
      return typeof result.SecretString === 'string' ? result.SecretString : undefined;
    } catch (error) {
      if (named(error, 'ResourceNotFoundException')) return undefined;
      throw error;
    }
  }

  async put(name: string, value: string): Promise<void> {
    try {
      await this.call('PutSecretValue', { SecretId: this.prefix + name, SecretString: value });
    } catch (error) {
      if (!named(error, 'ResourceNotFoundException')) throw error;
      await this.call('CreateSecret', { Name: this.prefix + name, SecretString: value });
    }
  }

  async delete(name: string): Promise<void> {
    try {
      // Without a recovery window, so that a provider of the same client id can be created again.
      await this.call('DeleteSecret', { SecretId: this.prefix + name, ForceDeleteWithoutRecovery: true });
    } catch (error) {
      if (!named(error, 'ResourceNotFoundException')) throw error;
    }
  }

  async initialize(name: string, value: string, isInitialized: (current: string) => boolean) {
    const current = await this.get(name);
    if (current !== undefined && isInitialized(current)) return current;
    try {
      if (current === undefined) {
        await this.call('CreateSecret', {
          Name: this.prefix + name,
          SecretString: value,
          ClientRequestToken: INITIAL_VERSION_TOKEN,
        });
      } else {
        await this.call('PutSecretValue', {
          SecretId: this.prefix + name,
          SecretString: value,
          ClientRequestToken: INITIAL_VERSION_TOKEN,
        });
      }
      return value;
    } catch (error) {
      if (!named(error, 'ResourceExistsException')) throw error;
      return (await this.get(name)) ?? value;
    }
  }
}
