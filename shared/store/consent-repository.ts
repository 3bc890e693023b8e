import { randomUUID } from 'node:crypto';
import { changesBetween } from '../audit/changes.js';
import { NotFound } from '../domain/errors.js';
import type * as z from '../zod.js';
import { auditWrites } from './audit-records.js';
import { batchDelete } from './batch.js';
import { AgreementEntity, ConsentEntity, LatestAgreementEntity } from './entities.js';
import { type ItemKey, keys } from './keys.js';
import { queryPartition } from './query.js';
import { check, create, put, transact } from './writes.js';

export type Agreement = z.output<typeof AgreementEntity.attributes>;
export type Consent = z.output<typeof ConsentEntity.attributes>;

/** Publishes an agreement (operators): the agreement and the "latest" copy in one transaction. */
export const publishAgreement = async (url: string, now = new Date()): Promise<Agreement> => {
  const agreement: Agreement = { id: randomUUID(), url, createdAt: now.toISOString() };
  await transact([
    put(AgreementEntity.item(agreement, agreement)),
    put(LatestAgreementEntity.item({}, agreement)),
  ]);
  return agreement;
};

export const latestAgreement = (): Promise<Agreement | undefined> => LatestAgreementEntity.get({});

/** The latest agreement, if the principal has not accepted it yet. */
export const agreementAwaitingConsent = async (
  orgId: string,
  principalId: string,
): Promise<Agreement | undefined> => {
  const latest = await latestAgreement();
  if (!latest) return undefined;
  const consent = await ConsentEntity.get({ organizationId: orgId, principalId, agreementId: latest.id });
  return consent ? undefined : latest;
};

/** Whether the principal accepted the latest agreement; true while none is published. */
export const hasAcceptedLatest = async (orgId: string, principalId: string): Promise<boolean> =>
  (await agreementAwaitingConsent(orgId, principalId)) === undefined;

class ConsentExists extends Error {}

/**
 * Records the principal's consent to an agreement (NotFound for an unknown one), with its
 * `consent.accepted` record by the scope's actor. Idempotent: a repeat answers the consent
 * recorded first and records nothing.
 */
export const recordConsent = async (
  orgId: string,
  principalId: string,
  agreementId: string,
  now = new Date(),
): Promise<Consent> => {
  const ref = { organizationId: orgId, principalId, agreementId };
  const consent: Consent = {
    id: randomUUID(),
    createdAt: now.toISOString(),
    agreementId,
    userId: principalId,
  };
  try {
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'consent.accepted',
          targets: [{ type: 'agreement', id: agreementId }],
          changes: changesBetween(undefined, { consentId: consent.id, agreementId, userId: principalId }),
          // Whoever consents acts, also on the sign-in page, whose scope knows nobody yet.
          actor: { id: principalId },
        },
        now.getTime(),
      )),
      check(
        AgreementEntity.key({ id: agreementId }),
        { condition: 'attribute_exists(pk)' },
        () => new NotFound('Agreement', agreementId),
      ),
      create(ConsentEntity.item(ref, consent), () => new ConsentExists()),
    ]);
    return consent;
  } catch (error) {
    if (!(error instanceof ConsentExists)) throw error;
  }
  return (await ConsentEntity.get(ref)) ?? consent;
};

/** The keys of every consent the principal gave (one Query a page of their `CONSENT#<id>#` items). */
export const consentKeysOf = async (orgId: string, principalId: string): Promise<ItemKey[]> => {
  const prefix = keys.consent(orgId, principalId, '');
  const items = await queryPartition(prefix.pk, prefix.sk, { consistent: true });
  return items.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
};

/** Deletes consents by key, in batches; deleting one already gone is no error, so a retry finishes. */
export const removeConsents = (consentKeys: readonly ItemKey[]): Promise<void> => batchDelete(consentKeys);
