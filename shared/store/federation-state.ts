import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './dynamo.js';
import { ttlSeconds } from './entity.js';
import { digestOf, newOpaqueValue } from './opaque-values.js';
import { FederationStateEntity, type FederationStateRecord } from './sign-in-entities.js';
import { put, writeOne } from './writes.js';

/** Long enough to sign in at the upstream (its own MFA included), short enough to be useless later. */
const FEDERATION_LIFETIME_MILLIS = 10 * 60 * 1000;

/** Starts a federated sign-in: answers the `state` to send upstream (only its digest is stored). */
export const saveFederationState = async (
  fields: Pick<FederationStateRecord, 'requestId' | 'providerClientId' | 'issuer' | 'nonce' | 'codeVerifier'>,
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

/** The sign-in a `state` started, removed in the same call so that it is used once; undefined when unknown or expired. */
export const takeFederationState = async (
  state: string,
  now = Date.now(),
): Promise<FederationStateRecord | undefined> => {
  const { Attributes } = await db().send(
    new DeleteCommand({
      TableName: tableName(),
      Key: FederationStateEntity.key({ digest: digestOf(state) }),
      ReturnValues: 'ALL_OLD',
    }),
  );
  const record = Attributes ? FederationStateEntity.decode(Attributes) : undefined;
  return record && record.expiresAt * 1000 > now ? record : undefined;
};
