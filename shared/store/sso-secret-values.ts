import { randomBytes } from 'node:crypto';
import { secretStore, ssoSecretName } from '../auth/secret-store.js';
import { DomainError } from '../domain/errors.js';
import { logger } from '../http/logger.js';

/**
 * An SSO provider's client secret: each value is stored under a name of its own, and the
 * provider's item names the one in use (`secretVersion`). A new value is stored first and is in use
 * only once the provider's transaction naming it commits, so a change that is refused or loses a
 * race leaves the provider's secret as it was (no half-applied write). Whichever value lost is
 * then deleted: the new one after a refusal, the replaced one after the commit.
 */

/** What a commit answers: its result, and the provider it replaced (none for a new provider). */
export interface SecretCommit<T> {
  result: T;
  replaced: { secretVersion?: string | undefined } | undefined;
}

/** Deletes a value no provider names any more; one left behind costs money, not safety. */
export const dropSecretValue = async (clientId: string, version: string | undefined): Promise<void> => {
  try {
    await (await secretStore()).delete(ssoSecretName(clientId, version));
  } catch (error) {
    logger.warn('an SSO client secret value no longer in use was not deleted', {
      clientId,
      secretVersion: version ?? 'unversioned',
      error: (error as Error).name,
    });
  }
};

/**
 * Runs `commit` with the version of `value`, stored first (or with none: the provider keeps its
 * secret), then deletes the value that lost. A value whose commit may have landed (an error that
 * is not a refusal: a lost answer, a timeout) is kept, as the provider may name it.
 */
export const withSecretValue = async <T>(
  clientId: string,
  value: string | undefined,
  commit: (secretVersion: string | undefined) => Promise<SecretCommit<T>>,
): Promise<T> => {
  if (value === undefined) return (await commit(undefined)).result;
  const version = randomBytes(12).toString('hex');
  await (await secretStore()).create(ssoSecretName(clientId, version), value);
  let committed: SecretCommit<T>;
  try {
    committed = await commit(version);
  } catch (error) {
    if (error instanceof DomainError) await dropSecretValue(clientId, version);
    throw error;
  }
  // A retry after a commit whose answer was lost reads its own value as the one it replaced.
  const replaced = committed.replaced;
  if (replaced && replaced.secretVersion !== version) await dropSecretValue(clientId, replaced.secretVersion);
  return committed.result;
};
