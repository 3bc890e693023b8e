import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../shared/audit/record.js';
import { MAX_SCIM_TOKENS_PER_ORGANIZATION } from '../../shared/domain/limits.js';
import { IDEMPOTENCY_KEY_PREFIX } from '../../shared/http/middleware/powertools-idempotency.js';
import { keys } from '../../shared/store/keys.js';
import { digestOf } from '../../shared/store/opaque-values.js';
import { queryPartition } from '../../shared/store/query.js';
import { createScimToken, scimTokenOf } from '../../shared/store/scim-tokens.js';
import { storedAuditItems } from '../support/audit.js';
import {
  type ApiError,
  type Caller,
  errorFields,
  getItem,
  idFromLocation,
  permissionsWithout,
  useFixture,
  useService,
} from '../support/service.js';

/** SCIM bearer secrets over HTTP (POST, GET, DELETE /idp/scimTokens): issue 27, part 3. */
const service = useService();
const mine = useFixture(() => service.freshOrganization());
const theirs = useFixture(() => service.freshOrganization());

interface CreatedToken {
  id: string;
  name: string;
  createdAt: number;
  createdBy: string;
  token: string;
}
type ListedToken = Omit<CreatedToken, 'token'>;

const create = (caller: Pick<Caller, 'token'>, body: unknown, headers: Record<string, string> = {}) =>
  service.call<CreatedToken & ApiError>('POST', '/idp/scimTokens', { token: caller.token, body, headers });
const list = (caller: Pick<Caller, 'token'>) =>
  service.call<ListedToken[] & ApiError>('GET', '/idp/scimTokens', { token: caller.token });
const revoke = (caller: Pick<Caller, 'token'>, id: string) =>
  service.call<ApiError>('DELETE', `/idp/scimTokens/${id}`, { token: caller.token });

const records = async (caller: Pick<Caller, 'token'>, query: string) =>
  (await service.call<AuditRecord[]>('GET', `/idp/auditEvents${query}`, { token: caller.token })).body;

/** The Idempotency-Key record of a request of `caller`, named as Powertools Idempotency names it. */
const idempotencyRecordOf = (caller: Caller & { orgId: string }, key: string) => {
  const hash = createHash('sha256')
    .update(
      JSON.stringify([key, caller.orgId, caller.principalId, 'POST /idp/scimTokens', '/idp/scimTokens']),
    )
    .digest('base64');
  return getItem(keys.idempotencyRecord(`${IDEMPOTENCY_KEY_PREFIX}#${hash}`));
};

describe('POST /idp/scimTokens', () => {
  it('answers 201 with Location and the value, once; the value authenticates for its organization', async () => {
    const created = await create(mine, { name: '  Okta provisioning ' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Okta provisioning',
      createdAt: expect.any(Number),
      createdBy: mine.principalId,
      token: expect.stringMatching(/^idp_scim_[A-Za-z0-9_-]{43}$/),
    });
    expect(created.headers.get('location')).toBe(`${service.baseUrl}/idp/scimTokens/${created.body.id}`);
    expect(idFromLocation(created)).toBe(created.body.id);
    expect(await scimTokenOf(created.body.token)).toEqual({
      organizationId: mine.orgId,
      tokenId: created.body.id,
    });

    const listed = await list(mine);
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual({
      id: created.body.id,
      name: 'Okta provisioning',
      createdAt: created.body.createdAt,
      createdBy: mine.principalId,
    });
    const answered = JSON.stringify(listed.body);
    expect(answered).not.toContain(created.body.token);
    expect(answered).not.toContain(digestOf(created.body.token));
  });

  it('is in the typed client: create, list and revoke', async () => {
    const client = service.client(mine);
    const created = await client.createScimToken({ body: { name: 'Entra ID' } });
    expect(created.token.startsWith('idp_scim_')).toBe(true);
    expect((await client.listScimTokens()).map((token) => token.id)).toContain(created.id);
    await client.revokeScimToken({ path: { id: created.id } });
    expect((await client.listScimTokens()).map((token) => token.id)).not.toContain(created.id);
  });

  it('refuses a bad body with 400 naming the problem, and creates nothing', async () => {
    const before = (await list(mine)).body.length;
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'Two\nlines' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: null }, 'name'],
      [{ name: 'Okta', token: 'idp_scim_mine' }, 'token'],
      [{ name: 'Okta', organizationId: theirs.orgId }, 'organizationId'],
    ];
    for (const [body, field] of cases) {
      const refused = await create(mine, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(errorFields(refused), JSON.stringify(body)).toContain(`body.${field}`);
    }
    for (const body of [[], 'Okta', null]) {
      expect((await create(mine, body)).status, JSON.stringify(body)).toBe(400);
    }
    const notJson = await service.call('POST', '/idp/scimTokens', {
      token: mine.token,
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    // The longest name accepted is 100 characters (positive control of the bound).
    expect((await create(mine, { name: 'x'.repeat(100) })).status).toBe(201);
    expect((await list(mine)).body.length).toBe(before + 1);
  });

  it(`answers 409 beyond ${MAX_SCIM_TOKENS_PER_ORGANIZATION} live tokens; a revocation makes room`, async () => {
    const full = await service.freshOrganization();
    const first = await create(full, { name: 'The first' });
    expect(first.status).toBe(201);
    for (let made = 1; made < MAX_SCIM_TOKENS_PER_ORGANIZATION; made++)
      await createScimToken(full.orgId, `Directory ${made}`, 'test');
    const refused = await create(full, { name: 'One too many' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`at most ${MAX_SCIM_TOKENS_PER_ORGANIZATION} SCIM tokens`);
    expect((await list(full)).body).toHaveLength(MAX_SCIM_TOKENS_PER_ORGANIZATION);
    expect((await revoke(full, first.body.id)).status).toBe(204);
    expect((await create(full, { name: 'In its place' })).status).toBe(201);
  });

  it('runs once per Idempotency-Key: a repeat answers 409 naming the token, whose value is kept nowhere', async () => {
    const caller = await service.callerWith(['SCIM.ADMIN'], { organization: mine.orgId });
    const key = `scim-token-${caller.principalId}`;
    const first = await create(caller, { name: 'Retried' }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const repeat = await create(caller, { name: 'Retried' }, { 'idempotency-key': key });
    expect(repeat.status).toBe(409);
    expect(repeat.body.message).toContain(first.body.id);
    expect(JSON.stringify(repeat.body)).not.toContain(first.body.token);
    expect((await list(caller)).body.filter((token) => token.name === 'Retried')).toHaveLength(1);
    const record = await idempotencyRecordOf(caller, key);
    expect(JSON.stringify(record)).toContain(first.body.id);
    expect(JSON.stringify(record)).not.toContain(first.body.token);
  });
});

describe('DELETE /idp/scimTokens/{id}', () => {
  it('answers 204, after which the value is refused and the token no longer listed; again 404', async () => {
    const created = await create(mine, { name: 'Short-lived' });
    expect(await scimTokenOf(created.body.token)).toBeDefined();
    const revoked = await revoke(mine, created.body.id);
    expect(revoked.status).toBe(204);
    expect(await scimTokenOf(created.body.token)).toBeUndefined();
    expect((await list(mine)).body.map((token) => token.id)).not.toContain(created.body.id);
    const again = await revoke(mine, created.body.id);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('SCIM token not found');
  });

  it('refuses an id no token can have with 400', async () => {
    for (const id of ['a%20b', '.hidden', '-leading', 'a%3Cb%3E', 'x'.repeat(129)])
      expect((await revoke(mine, id)).status, id).toBe(400);
  });

  it('refuses a token value given as the id with 400 that neither repeats nor records it', async () => {
    const created = await create(mine, { name: 'Pasted in the wrong place' });
    const refused = await revoke(mine, created.body.token);
    expect(refused.status).toBe(400);
    expect(refused.body.errorDetails?.[0]?.message).toContain('never its value');
    expect(JSON.stringify(refused.body)).not.toContain(created.body.token);
    expect(await scimTokenOf(created.body.token)).toBeDefined();
    expect(JSON.stringify(await storedAuditItems(mine.orgId))).not.toContain(created.body.token);
    // Positive control: its id revokes it.
    expect((await revoke(mine, created.body.id)).status).toBe(204);
  });

  it('records a refusal for want of SCIM.ADMIN without the token value pasted as the id', async () => {
    const created = await create(mine, { name: 'Pasted by a helpdesk' });
    const helpdesk = await service.callerWith(['USER.LIST'], { organization: mine.orgId });
    const deniedRecords = async () =>
      (await storedAuditItems(mine.orgId))
        .map((item) => JSON.parse(String(item.record)) as AuditRecord)
        .filter((record) => record.outcome === 'denied' && record.actor.id === helpdesk.principalId);
    // Positive control: the same refusal of a real id records the id it named.
    expect((await revoke(helpdesk, created.body.id)).status).toBe(403);
    expect((await deniedRecords()).map((record) => record.targets)).toEqual([
      [{ type: 'scimToken', id: created.body.id }],
    ]);
    // The value in its place: refused the same, recorded without it.
    const refused = await revoke(helpdesk, created.body.token);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(created.body.token);
    expect((await deniedRecords()).map((record) => record.targets)).toEqual([
      [{ type: 'scimToken', id: created.body.id }],
      [],
    ]);
    expect(JSON.stringify(await storedAuditItems(mine.orgId))).not.toContain(created.body.token);
  });
});

describe('who may manage SCIM tokens', () => {
  it('needs SCIM.ADMIN on every route (SCIM.PROVISION is not enough), STANDARD and RESTRICTED alike', async () => {
    const admin = await service.callerWith(['SCIM.ADMIN'], { organization: mine.orgId });
    const restricted = await service.callerWith(['SCIM.ADMIN'], {
      organization: mine.orgId,
      clientType: 'RESTRICTED',
    });
    const without = await service.callerWith(permissionsWithout('SCIM.ADMIN'), { organization: mine.orgId });
    const provisioner = await service.callerWith(['SCIM.PROVISION'], { organization: mine.orgId });

    // Positive controls: the same requests with SCIM.ADMIN succeed.
    for (const caller of [admin, restricted]) {
      expect((await list(caller)).status).toBe(200);
      const created = await create(caller, { name: 'Permitted' });
      expect(created.status).toBe(201);
      expect((await revoke(caller, created.body.id)).status).toBe(204);
    }
    const target = (await create(admin, { name: 'Not theirs to revoke' })).body;
    for (const caller of [without, provisioner]) {
      expect((await list(caller)).status).toBe(403);
      expect((await create(caller, { name: 'Refused' })).status).toBe(403);
      expect((await revoke(caller, target.id)).status).toBe(403);
    }
    expect(await scimTokenOf(target.token)).toBeDefined();
    expect((await list(admin)).body.filter((token) => token.name === 'Refused')).toEqual([]);
    // Each refused write is recorded as denied, naming what it acted on.
    const denied = await records(mine, `?outcome=denied&actorId=${without.principalId}`);
    expect(denied.map((record) => record.action).sort()).toEqual(['scimToken.created', 'scimToken.revoked']);
    expect(denied.find((record) => record.action === 'scimToken.revoked')?.targets).toEqual([
      { type: 'scimToken', id: target.id },
    ]);
  });
});

describe('organizations apart', () => {
  it("never lists, revokes or authenticates as another organization's token", async () => {
    const ours = await create(mine, { name: 'Ours' });
    const their = await create(theirs, { name: 'Theirs' });
    expect([ours.status, their.status]).toEqual([201, 201]);
    expect(await scimTokenOf(their.body.token)).toEqual({
      organizationId: theirs.orgId,
      tokenId: their.body.id,
    });

    const ourIds = (await list(mine)).body.map((token) => token.id);
    expect(ourIds).toContain(ours.body.id);
    expect(ourIds).not.toContain(their.body.id);
    const theirIds = (await list(theirs)).body.map((token) => token.id);
    expect(theirIds).toContain(their.body.id);
    expect(theirIds).not.toContain(ours.body.id);

    // Their token id is unknown here, exactly like an id nobody has; their token keeps working.
    const refused = await revoke(mine, their.body.id);
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe('SCIM token not found');
    expect(await scimTokenOf(their.body.token)).toBeDefined();
    expect((await list(theirs)).body.map((token) => token.id)).toContain(their.body.id);
    const [failure] = await records(mine, `?outcome=failure&targetId=${their.body.id}`);
    expect(failure).toMatchObject({ action: 'scimToken.revoked', targets: [{ type: 'scimToken' }] });
    expect(await records(theirs, `?targetId=${their.body.id}&outcome=failure`)).toEqual([]);
    // Positive control: their own organization revokes it.
    expect((await revoke(theirs, their.body.id)).status).toBe(204);
    expect(await scimTokenOf(their.body.token)).toBeUndefined();
  });
});

describe('what is stored', () => {
  it("holds no token value anywhere the organization's items are: its partition, its records, the lookups, Idempotency-Key records", async () => {
    const org = await service.freshOrganization();
    const key = `scim-stored-${org.principalId}`;
    const values: string[] = [];
    const digests: string[] = [];
    for (const name of ['Kept', 'Revoked', 'Retried']) {
      const created = await create(org, { name }, name === 'Retried' ? { 'idempotency-key': key } : {});
      expect(created.status).toBe(201);
      values.push(created.body.token);
      digests.push(digestOf(created.body.token));
      if (name === 'Revoked') expect((await revoke(org, created.body.id)).status).toBe(204);
    }
    const stored = JSON.stringify([
      await queryPartition(keys.organizationPartition(org.orgId)),
      await storedAuditItems(org.orgId),
      ...(await Promise.all(digests.map((digest) => getItem(keys.scimTokenLookup(digest))))),
      await idempotencyRecordOf(org, key),
    ]);
    // What was searched holds the tokens' items: the search reads the right places.
    expect(stored).toContain('Kept');
    expect(stored).toContain(digests[0]);
    for (const value of values) {
      expect(stored).not.toContain(value);
      expect(stored).not.toContain(value.slice('idp_scim_'.length));
    }
  });
});
