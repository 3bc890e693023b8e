import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditActor } from '../../shared/audit/record.js';
import { withAuditScope } from '../../shared/audit/scope.js';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { MAX_SCIM_TOKENS_PER_ORGANIZATION } from '../../shared/domain/limits.js';
import { keys } from '../../shared/store/keys.js';
import { digestOf } from '../../shared/store/opaque-values.js';
import { queryPartition } from '../../shared/store/query.js';
import {
  createScimToken,
  listScimTokens,
  revokeScimToken,
  scimTokenOf,
} from '../../shared/store/scim-tokens.js';
import { storedAuditItems } from '../support/audit.js';
import { auditRecordsOf } from '../support/audit-items.js';
import { measureRoundTrips } from '../support/round-trips.js';
import { createTestOrganization, getItem, useDatabase } from '../support/service.js';

/** SCIM bearer secrets in the store: created, listed, revoked, and how the SCIM endpoint finds one. */
useDatabase();

const ADMIN: AuditActor = { type: 'user', id: 'scim-admin' };
const asAdmin = <T>(work: () => Promise<T>) => withAuditScope({ actor: ADMIN }, work);

const orgs = { mine: '', theirs: '' };
beforeAll(async () => {
  orgs.mine = (await createTestOrganization()).id;
  orgs.theirs = (await createTestOrganization()).id;
});

/** Every stored item the organization's tokens can reach: its partition, its audit records, the lookups. */
const storedText = async (orgId: string, digests: readonly string[]) =>
  JSON.stringify([
    await queryPartition(keys.organizationPartition(orgId)),
    await storedAuditItems(orgId),
    ...(await Promise.all(digests.map((digest) => getItem(keys.scimTokenLookup(digest))))),
  ]);

describe('SCIM tokens in the store', () => {
  it('creates a token whose value only its answer holds, found by scimTokenOf, recorded without it', async () => {
    const created = await asAdmin(() => createScimToken(orgs.mine, 'Okta', 'scim-admin', 1_000));
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Okta',
      createdAt: 1_000,
      createdBy: 'scim-admin',
      token: expect.stringMatching(/^idp_scim_[A-Za-z0-9_-]{43}$/),
    });
    expect(await scimTokenOf(created.token)).toEqual({ organizationId: orgs.mine, tokenId: created.id });

    const [record] = await auditRecordsOf(orgs.mine, { action: 'scimToken.created' });
    expect(record).toMatchObject({
      actor: ADMIN,
      outcome: 'success',
      targets: [{ type: 'scimToken', id: created.id, name: 'Okta' }],
      changes: { name: { from: null, to: 'Okta' }, createdBy: { from: null, to: 'scim-admin' } },
    });

    const digest = digestOf(created.token);
    const stored = await storedText(orgs.mine, [digest]);
    expect(stored).toContain(created.id);
    expect(stored).not.toContain(created.token);
    expect(stored).not.toContain(created.token.slice('idp_scim_'.length));
    // The digest keys the lookup item and sits in the listing entry, never in a record.
    expect(JSON.stringify(await storedAuditItems(orgs.mine))).not.toContain(digest);
  });

  it('lists live tokens newest first, without values or digests, per organization', async () => {
    const org = (await createTestOrganization()).id;
    const first = await createScimToken(org, 'Entra ID', 'scim-admin', 2_000);
    const second = await createScimToken(org, 'Okta', 'scim-admin', 3_000);
    await createScimToken(orgs.theirs, 'Theirs', 'someone', 4_000);
    expect(await listScimTokens(org)).toEqual([
      { id: second.id, name: 'Okta', createdAt: 3_000, createdBy: 'scim-admin' },
      { id: first.id, name: 'Entra ID', createdAt: 2_000, createdBy: 'scim-admin' },
    ]);
    expect(await listScimTokens((await createTestOrganization()).id)).toEqual([]);
  });

  it('revokes a token: gone from the list, its value refused at once, both items deleted, recorded', async () => {
    const org = (await createTestOrganization()).id;
    const kept = await createScimToken(org, 'Kept', 'scim-admin');
    const revoked = await createScimToken(org, 'Revoked', 'scim-admin');
    expect(await scimTokenOf(revoked.token)).toBeDefined();

    await asAdmin(() => revokeScimToken(org, revoked.id));
    expect(await scimTokenOf(revoked.token)).toBeUndefined();
    expect(await scimTokenOf(kept.token)).toEqual({ organizationId: org, tokenId: kept.id });
    expect((await listScimTokens(org)).map((token) => token.id)).toEqual([kept.id]);
    expect(await getItem(keys.scimTokenLookup(digestOf(revoked.token)))).toBeUndefined();
    expect(await getItem(keys.scimToken(org, revoked.id))).toBeUndefined();
    const [record] = await auditRecordsOf(org, { action: 'scimToken.revoked' });
    expect(record).toMatchObject({
      actor: ADMIN,
      targets: [{ type: 'scimToken', id: revoked.id, name: 'Revoked' }],
      changes: { name: { from: 'Revoked', to: null } },
    });

    // Revoked already: unknown, and nothing more is recorded.
    await expect(revokeScimToken(org, revoked.id)).rejects.toThrow(NotFound);
    expect(await auditRecordsOf(org, { action: 'scimToken.revoked' })).toHaveLength(1);
  });

  it("cannot revoke another organization's token: NotFound, and the token keeps working", async () => {
    const theirs = await createScimToken(orgs.theirs, 'Theirs', 'someone');
    // Positive control: its own organization can.
    const control = await createScimToken(orgs.theirs, 'Control', 'someone');
    await revokeScimToken(orgs.theirs, control.id);

    const refused = revokeScimToken(orgs.mine, theirs.id);
    await expect(refused).rejects.toThrow(NotFound);
    await expect(refused).rejects.toMatchObject({ entity: 'SCIM token', id: theirs.id });
    expect(await scimTokenOf(theirs.token)).toEqual({ organizationId: orgs.theirs, tokenId: theirs.id });
    expect((await listScimTokens(orgs.theirs)).map((token) => token.id)).toContain(theirs.id);
    expect((await listScimTokens(orgs.mine)).map((token) => token.id)).not.toContain(theirs.id);
  });

  it(`keeps an organization within ${MAX_SCIM_TOKENS_PER_ORGANIZATION} live tokens; a revocation makes room`, async () => {
    const org = (await createTestOrganization()).id;
    const made = await Promise.all(
      Array.from({ length: MAX_SCIM_TOKENS_PER_ORGANIZATION }, (_, index) =>
        createScimToken(org, `Directory ${index}`, 'scim-admin'),
      ),
    );
    const refused = asAdmin(() => createScimToken(org, 'One too many', 'scim-admin'));
    await expect(refused).rejects.toThrow(Conflict);
    await expect(refused).rejects.toThrow(`at most ${MAX_SCIM_TOKENS_PER_ORGANIZATION} SCIM tokens`);
    expect(await listScimTokens(org)).toHaveLength(MAX_SCIM_TOKENS_PER_ORGANIZATION);
    // The refused creation wrote nothing: no entry, no count, no record of its own.
    expect(await auditRecordsOf(org, { action: 'scimToken.created' })).toHaveLength(
      MAX_SCIM_TOKENS_PER_ORGANIZATION,
    );
    expect(await auditRecordsOf(org, { actorId: ADMIN.id })).toEqual([]);

    await revokeScimToken(org, (made[0] as { id: string }).id);
    const room = await createScimToken(org, 'In its place', 'scim-admin');
    expect(await scimTokenOf(room.token)).toEqual({ organizationId: org, tokenId: room.id });
    await expect(createScimToken(org, 'One too many', 'scim-admin')).rejects.toThrow(Conflict);
  });

  it('refuses a token for an organization that does not exist', async () => {
    await expect(createScimToken('no-such-org', 'Okta', 'scim-admin')).rejects.toMatchObject({
      entity: 'Organization',
      id: 'no-such-org',
    });
  });
});

describe('scimTokenOf', () => {
  it('reads the lookup item with one strongly consistent GetItem', async () => {
    const { id, token } = await createScimToken(orgs.mine, 'Read once', 'scim-admin');
    const { result, recorded } = await measureRoundTrips('scimTokenOf', () => scimTokenOf(token));
    expect(result).toEqual({ organizationId: orgs.mine, tokenId: id });
    expect(
      recorded.map((call) => [call.command, (call.input as { ConsistentRead?: boolean }).ConsistentRead]),
    ).toEqual([['GetCommand', true]]);
  });

  it('answers undefined for an unknown value of the right shape, after its read', async () => {
    const unknown = `idp_scim_${'A'.repeat(43)}`;
    const { result, recorded } = await measureRoundTrips('unknown', () => scimTokenOf(unknown));
    expect(result).toBeUndefined();
    expect(recorded).toHaveLength(1);
  });

  it('answers undefined for a malformed value without any DynamoDB call', async () => {
    const { token } = await createScimToken(orgs.mine, 'Shape', 'scim-admin');
    for (const malformed of [
      '',
      token.slice('idp_scim_'.length),
      `${token}A`,
      token.slice(0, -1),
      `Bearer ${token}`,
      ` ${token}`,
      `${token}\n`,
      token.replace('idp_scim_', 'idp_SCIM_'),
      `${token.slice(0, -1)}+`,
      `${token.slice(0, -1)}=`,
      'idp_scim_',
      undefined,
      null,
      42,
      { token },
    ]) {
      const { result, recorded } = await measureRoundTrips('malformed', () => scimTokenOf(malformed));
      expect(result, JSON.stringify(malformed)).toBeUndefined();
      expect(recorded, JSON.stringify(malformed)).toEqual([]);
    }
  });
});
