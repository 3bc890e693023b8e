import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../http/errors.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { transactWrite } from './transactions.js';

export interface Agreement {
  id: string;
  url: string;
  createdAt: string;
}

export interface Consent {
  id: string;
  createdAt: string;
  agreementId: string;
  userId: string;
}

const getItem = async (key: { pk: string; sk: string }) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/** Publishes an agreement (operators): the agreement and the "latest" copy in one transaction. */
export const publishAgreement = async (url: string, now = new Date()): Promise<Agreement> => {
  const agreement: Agreement = { id: randomUUID(), url, createdAt: now.toISOString() };
  await transactWrite(
    [
      { Put: { TableName: tableName(), Item: { ...keys.agreement(agreement.id), ...agreement } } },
      { Put: { TableName: tableName(), Item: { ...keys.latestAgreement(), ...agreement } } },
    ],
    () => new Error('Publishing an agreement has no condition that can fail'),
  );
  return agreement;
};

export const latestAgreement = async (): Promise<Agreement | undefined> => {
  const item = await getItem(keys.latestAgreement());
  return item ? { id: String(item.id), url: String(item.url), createdAt: String(item.createdAt) } : undefined;
};

const toConsent = (item: Record<string, unknown>): Consent => ({
  id: String(item.id),
  createdAt: String(item.createdAt),
  agreementId: String(item.agreementId),
  userId: String(item.userId),
});

/** Whether the principal accepted the latest agreement; true while none is published. */
export const hasAcceptedLatest = async (orgId: string, principalId: string): Promise<boolean> => {
  const latest = await latestAgreement();
  return !latest || (await getItem(keys.consent(orgId, principalId, latest.id))) !== undefined;
};

class ConsentExists extends Error {}

/**
 * Records the principal's consent to an agreement (404 for an unknown one). Idempotent: a repeat
 * answers the consent recorded first.
 */
export const recordConsent = async (
  orgId: string,
  principalId: string,
  agreementId: string,
  now = new Date(),
): Promise<Consent> => {
  const consent: Consent = {
    id: randomUUID(),
    createdAt: now.toISOString(),
    agreementId,
    userId: principalId,
  };
  try {
    await transactWrite(
      [
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: keys.agreement(agreementId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.consent(orgId, principalId, agreementId), ...consent },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      (index) => (index === 0 ? notFound('Agreement') : new ConsentExists()),
    );
    return consent;
  } catch (error) {
    if (!(error instanceof ConsentExists)) throw error;
  }
  return toConsent((await getItem(keys.consent(orgId, principalId, agreementId))) as Record<string, unknown>);
};
