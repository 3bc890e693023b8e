import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import type { SecretStore } from './secret-store.js';

/** A fixed version token makes the first initialization win: a different value with the same
 * token is refused by Secrets Manager (ResourceExistsException). */
const INITIAL_VERSION_TOKEN = '00000000-0000-4000-8000-000000000001';

/** The process's Secrets Manager client: region and credentials from the SDK's default chain. */
export const secretsManagerClient = (endpoint?: string): SecretsManagerClient =>
  new SecretsManagerClient({ ...(endpoint ? { endpoint } : {}), requestHandler: awsRequestHandler() });

/** Deployed adapter. Names are prefixed so the stack can grant access to exactly that prefix. */
export class SecretsManagerSecretStore implements SecretStore {
  constructor(
    private readonly prefix: string,
    private readonly client: SecretsManagerClient = secretsManagerClient(),
  ) {}

  async get(name: string): Promise<string | undefined> {
    try {
      const result = await this.client.send(new GetSecretValueCommand({ SecretId: this.prefix + name }));
      return result.SecretString;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }

  async put(name: string, value: string): Promise<void> {
    try {
      await this.client.send(
        new PutSecretValueCommand({ SecretId: this.prefix + name, SecretString: value }),
      );
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      await this.client.send(new CreateSecretCommand({ Name: this.prefix + name, SecretString: value }));
    }
  }

  async create(name: string, value: string): Promise<void> {
    await this.client.send(new CreateSecretCommand({ Name: this.prefix + name, SecretString: value }));
  }

  async delete(name: string): Promise<void> {
    try {
      // Without a recovery window, so that a provider of the same client id can be created again.
      await this.client.send(
        new DeleteSecretCommand({ SecretId: this.prefix + name, ForceDeleteWithoutRecovery: true }),
      );
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }

  async initialize(name: string, value: string, isInitialized: (current: string) => boolean) {
    const current = await this.get(name);
    if (current !== undefined && isInitialized(current)) return current;
    try {
      const secret = { SecretString: value, ClientRequestToken: INITIAL_VERSION_TOKEN };
      if (current === undefined)
        await this.client.send(new CreateSecretCommand({ Name: this.prefix + name, ...secret }));
      else await this.client.send(new PutSecretValueCommand({ SecretId: this.prefix + name, ...secret }));
      return value;
    } catch (error) {
      if (!(error instanceof ResourceExistsException)) throw error;
      return (await this.get(name)) ?? value;
    }
  }
}
