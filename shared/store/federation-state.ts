import { ttlSeconds } from './entity.js';
import { digestOf, newOpaqueValue } from './opaque-values.js';
import { FederationStateEntity, type FederationStateRecord } from './sign-in-entities.js';
import { put, takeItem, writeOne } from './writes.js';

/** Long enough to sign in at the upstream (its own MFA included), short enough to be useless later. */
const FEDERATION_LIFETIME_MILLIS = 10 * 60 * 1000;

/** Starts a federated sign-in: answers the `state` to send upstream (only its digest is stored). */
export const saveFederationState = async (
  fields: Pick<
    FederationStateRecord,
    'requestId' | 'browserDigest' | 'providerClientId' | 'issuer' | 'nonce' | 'codeVerifier' | 'fresh'
  >,
  now = Date.now(),
): Promise<string> => {
  const state = newOpaqueValue();
  const record: FederationStateRecord = {
    ...fields,
    createdAt: now,
    expiresAt: ttlSeconds(now + FEDERATION_LIFETIME_MILLIS),
  };
  await writeOne(put(FederationStateEntity.item({ digest: digestOf(state) }, record)));
  return state;
};

/**
 * The sign-in a `state` started, removed in the same call so that it is used once, and only by the
 * browser that started it: another browser's attempt leaves it in place. Undefined when unknown,
 * expired or of another browser.
 */
export const takeFederationState = async (
  state: string,
  browserBinding: string | undefined,
  now = Date.now(),
): Promise<FederationStateRecord | undefined> => {
  if (!browserBinding) return undefined;
  const taken = await takeItem(FederationStateEntity.key({ digest: digestOf(state) }), {
    condition: 'browserDigest = :browser',
    values: { ':browser': digestOf(browserBinding) },
  });
  const record = taken ? FederationStateEntity.decode(taken) : undefined;
  return record && record.expiresAt * 1000 > now ? record : undefined;
};
