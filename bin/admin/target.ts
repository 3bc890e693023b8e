import { join, resolve } from 'node:path';
import { reloadConfig } from '../../shared/config.js';
import { LOCAL_REGION, storedAccessKeyId } from '../local/local-access-key.js';

export interface TargetOptions {
  table?: string | undefined;
  region?: string | undefined;
  endpoint?: string | undefined;
  secretPrefix?: string | undefined;
}

/** Where the CLI's writes go, for the summary line and error messages. */
export interface Target {
  description: string;
  local: boolean;
}

/**
 * Points the shared store and secret store at the target, through the environment variables
 * the functions read (see lib/idp-stack.ts and bin/local/service.ts), before anything uses them.
 *
 * - Local (default): the DynamoDB Local of `npm start` (`IDP_DYNAMODB_PORT`, default 8000), its
 *   table `idp` and its secret files under `IDP_DATA_DIR` (default `.data`).
 * - Deployed (`--table`): that table and Secrets Manager under `--secret-prefix` (default `idp/`),
 *   with the standard AWS credential chain and `--region` (or AWS_REGION).
 */
export const configureTarget = (options: TargetOptions, env = process.env): Target => {
  if (options.table === undefined) {
    const endpoint = options.endpoint ?? `http://localhost:${env.IDP_DYNAMODB_PORT ?? 8000}`;
    const dataDirectory = resolve(env.IDP_DATA_DIR ?? '.data');
    Object.assign(env, {
      IDP_TABLE_NAME: 'idp',
      IDP_DYNAMODB_ENDPOINT: endpoint,
      IDP_SECRET_STORE: 'file',
      IDP_DATA_DIR: dataDirectory,
    });
    // DynamoDB Local picks a database by access key id and region: `npm start`'s own, kept with its
    // data (bin/local/local-access-key.ts); otherwise placeholders when the shell has none (the
    // tests pass their own).
    const own = storedAccessKeyId(join(dataDirectory, 'dynamodb'));
    if (own) Object.assign(env, { AWS_ACCESS_KEY_ID: own, AWS_REGION: LOCAL_REGION });
    env.AWS_ACCESS_KEY_ID ??= 'local';
    env.AWS_SECRET_ACCESS_KEY ??= 'local';
    env.AWS_REGION ??= LOCAL_REGION;
    delete env.AWS_PROFILE;
    reloadConfig();
    return { description: `local DynamoDB at ${endpoint}`, local: true };
  }
  const region = options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new UsageError('--table needs --region (or AWS_REGION)');
  if (options.endpoint !== undefined) throw new UsageError('--endpoint is for the local DynamoDB only');
  delete env.IDP_DYNAMODB_ENDPOINT;
  Object.assign(env, {
    IDP_TABLE_NAME: options.table,
    AWS_REGION: region,
    IDP_SECRET_STORE: 'aws',
    IDP_SECRET_PREFIX: options.secretPrefix ?? 'idp/',
  });
  reloadConfig();
  return { description: `table ${options.table} in ${region}`, local: false };
};

/**
 * Against a deployed table, the operator's credentials are the SDK's default chain (environment,
 * profile, SSO, ...) as the store's client resolves them: resolved once before the command, so
 * that none found stops it before any call, said plainly rather than as an AWS error.
 */
export const requireOperatorCredentials = async (env = process.env): Promise<void> => {
  const { dynamoDbClient } = await import('../../shared/store/dynamo.js');
  await dynamoDbClient()
    .config.credentials()
    .catch((error: Error) => {
      throw new CredentialsMissing(
        `No AWS credentials${env.AWS_PROFILE ? ` for profile "${env.AWS_PROFILE}"` : ''} (${error.message}): sign in (e.g. aws sso login) or set AWS_PROFILE`,
      );
    });
};

/** The standard chain found no credentials: said as such, not as an AWS error. */
export class CredentialsMissing extends Error {
  override name = 'CredentialsMissing';
}

/** The command line itself is wrong: exit code 2 and the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}
