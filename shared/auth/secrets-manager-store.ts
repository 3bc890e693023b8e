import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SecretStore } from './secret-store.js';

/** A fixed version token makes the first initialization win: a different value with the same
 * token is refused by Secrets Manager (ResourceExistsException). */
const INITIAL_VERSION_TOKEN = '00000000-0000-4000-8000-000000000001';

const named = (error: unknown, name: string) => error instanceof Error && error.name === name;

/** Deployed adapter. Names are prefixed so the stack can grant access to exactly that prefix. */
export class SecretsManagerSecretStore implements SecretStore {
  constructor(
    private readonly prefix: string,
    private readonly client = new SecretsManagerClient({}),
  ) {}

  async get(name: string): Promise<string | undefined> {
    try {
      const result = await this.client.send(new GetSecretValueCommand({ SecretId: this.prefix + name }));
      return result.SecretString;
    } catch (error) {
      if (named(error, 'ResourceNotFoundException')) return undefined;
      throw error;
    }
  }

  async put(name: string, value: string): Promise<void> {
    try {
      await this.client.send(
        new PutSecretValueCommand({ SecretId: this.prefix + name, SecretString: value }),
      );
    } catch (error) {
      if (!named(error, 'ResourceNotFoundException')) throw error;
      await this.client.send(new CreateSecretCommand({ Name: this.prefix + name, SecretString: value }));
    }
  }

  async initialize(name: string, value: string, isInitialized: (current: string) => boolean) {
    const current = await this.get(name);
    if (current !== undefined && isInitialized(current)) return current;
    try {
      if (current === undefined) {
        await this.client.send(
          new CreateSecretCommand({
            Name: this.prefix + name,
            SecretString: value,
            ClientRequestToken: INITIAL_VERSION_TOKEN,
          }),
        );
      } else {
        await this.client.send(
          new PutSecretValueCommand({
            SecretId: this.prefix + name,
            SecretString: value,
            ClientRequestToken: INITIAL_VERSION_TOKEN,
          }),
        );
      }
      return value;
    } catch (error) {
      if (!named(error, 'ResourceExistsException')) throw error;
      return (await this.get(name)) ?? value;
    }
  }
}
