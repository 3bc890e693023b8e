import { randomUUID } from 'node:crypto';
import { changesBetween } from '../audit/changes.js';
import { Conflict, NotFound } from '../domain/errors.js';
import { MAX_SCIM_TOKENS_PER_ORGANIZATION } from '../domain/limits.js';
import { isScimTokenValue, SCIM_TOKEN_PREFIX } from '../domain/scim-token-value.js';
import { auditWrites } from './audit-records.js';
import { keys } from './keys.js';
import { digestOf, newOpaqueValue } from './opaque-values.js';
import { queryPartition } from './query.js';
import { ScimTokenEntity, ScimTokenLookupEntity } from './scim-token-entities.js';
import { create, remove, transact, update } from './writes.js';

/**
 * SCIM bearer secrets: long-lived values a directory (Okta, Entra ID) sends to `/scim/v2`. The
 * value is answered once, when it is created; the table keeps its SHA-256 digest only, as the key
 * of a lookup item in a partition of its own, beside a listing entry in the organization's
 * partition. Creation and revocation each write both items, the organization's count and the
 * audit record in one transaction.
 */

/** A token as it is listed: never its value or digest. */
export interface ScimToken {
  id: string;
  name: string;
  createdAt: number;
  createdBy: string;
}

/** Whose a presented secret is. */
export interface ScimTokenOwner {
  organizationId: string;
  tokenId: string;
}

const tokenTarget = (token: Pick<ScimToken, 'id' | 'name'>) => ({
  type: 'scimToken',
  id: token.id,
  name: token.name,
});

const tokenNotFound = (tokenId: string) => () => new NotFound('SCIM token', tokenId);

/** The organization's count goes up on condition it stays within the limit (and the organization exists). */
const countedWithinLimit = (orgId: string) =>
  update(
    keys.organization(orgId),
    {
      update: 'ADD #count :one',
      condition: 'attribute_exists(pk) AND (attribute_not_exists(#count) OR #count < :max)',
      names: { '#count': 'scimTokenCount' },
      values: { ':one': 1, ':max': MAX_SCIM_TOKENS_PER_ORGANIZATION },
      seeItemOnFailure: true,
    },
    (organization) =>
      organization
        ? new Conflict(
            'SCIM token',
            `An organization has at most ${MAX_SCIM_TOKENS_PER_ORGANIZATION} SCIM tokens; revoke one first`,
          )
        : new NotFound('Organization', orgId),
  );

/**
 * Creates a token named `name` and answers it with its value, which nothing keeps: the caller
 * shows it once. Refused (Conflict) when the organization has its limit of live tokens already.
 */
export const createScimToken = async (
  orgId: string,
  name: string,
  createdBy: string,
  now = Date.now(),
): Promise<ScimToken & { token: string }> => {
  const token = `${SCIM_TOKEN_PREFIX}${newOpaqueValue()}`;
  const digest = digestOf(token);
  const created: ScimToken = { id: randomUUID(), name, createdAt: now, createdBy };
  const collision = () => new Conflict('SCIM token', 'A SCIM token with this id already exists; retry');
  await transact([
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: 'scimToken.created',
        targets: [tokenTarget(created)],
        changes: changesBetween(undefined, { name, createdBy }),
      },
      now,
    )),
    countedWithinLimit(orgId),
    create(
      ScimTokenEntity.item({ organizationId: orgId, id: created.id }, { ...created, digest }),
      collision,
    ),
    create(ScimTokenLookupEntity.item({ digest }, { organizationId: orgId, tokenId: created.id }), collision),
  ]);
  return { ...created, token };
};

/** The organization's live tokens, newest first (one consistent Query; at most the limit). */
export const listScimTokens = async (orgId: string): Promise<ScimToken[]> =>
  (await queryPartition(keys.organizationPartition(orgId), keys.scimTokenPrefix, { consistent: true }))
    .map((item) => {
      const { id, name, createdAt, createdBy } = ScimTokenEntity.decode(item);
      return { id, name, createdAt, createdBy };
    })
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));

/**
 * Revokes a token of the organization: its listing entry and lookup item go in one transaction, so
 * the SCIM endpoint refuses its value from the next request on. Another organization's token id
 * answers exactly like an unknown one (NotFound), as does a token revoked already.
 */
export const revokeScimToken = async (orgId: string, tokenId: string, now = Date.now()): Promise<void> => {
  const token = await ScimTokenEntity.get({ organizationId: orgId, id: tokenId });
  if (!token) throw tokenNotFound(tokenId)();
  await transact([
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: 'scimToken.revoked',
        targets: [tokenTarget(token)],
        changes: changesBetween({ name: token.name, createdBy: token.createdBy }, undefined),
      },
      now,
    )),
    // A concurrent revocation of the same token commits once; the other is told it is gone.
    remove(keys.scimToken(orgId, tokenId), { condition: 'attribute_exists(pk)' }, tokenNotFound(tokenId)),
    remove(keys.scimTokenLookup(token.digest)),
    update(keys.organization(orgId), {
      update: 'ADD #count :minusOne',
      names: { '#count': 'scimTokenCount' },
      values: { ':minusOne': -1 },
    }),
  ]);
};

/**
 * Whose a presented SCIM bearer secret is: a strongly consistent GetItem of its lookup item on
 * every call (nothing cached), so a revoked secret is refused from the next request on. Undefined
 * for a value that is unknown, revoked, or not shaped like one (which costs no read at all).
 */
export const scimTokenOf = async (secret: unknown): Promise<ScimTokenOwner | undefined> => {
  if (!isScimTokenValue(secret)) return undefined;
  const lookup = await ScimTokenLookupEntity.get({ digest: digestOf(secret) }, { consistent: true });
  return lookup && { organizationId: lookup.organizationId, tokenId: lookup.tokenId };
};
