import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../shared/audit/record.js';
import { MAX_AUDIT_SHARDS } from '../../../shared/audit/settings.js';
import { MAX_AUDIT_PAGE_BYTES } from '../../../shared/store/audit-records.js';
import type { Organization } from '../../../shared/store/organization-repository.js';
import { overwriteStoredRecord } from '../../support/audit-items.js';
import {
  type ApiError,
  type ClientCaller,
  nextLink,
  permissionsWithout,
  uniqueEmail,
  useService,
} from '../../support/service.js';

/** GET /idp/auditEvents over HTTP (docs/audit.md): what a change records, who may read it, paging. */
const service = useService();

const events = (caller: Pick<ClientCaller, 'token'>, query = '') =>
  service.call<AuditRecord[] & ApiError>('GET', `/idp/auditEvents${query}`, { token: caller.token });

const createUser = (caller: Pick<ClientCaller, 'token'>, email = uniqueEmail()) =>
  service.call<ApiError>('POST', '/idp/users', {
    token: caller.token,
    body: { email, name: 'Audited Person', userType: 'STANDARD' },
    headers: { 'user-agent': 'audit-test/1.0' },
  });

describe('GET /idp/auditEvents', () => {
  it('answers the record of a user created a moment ago: action, actor with address and agent, target, changes', async () => {
    const admin = await service.freshOrganization();
    const email = uniqueEmail();
    const created = await createUser(admin, email);
    expect(created.status).toBe(204);
    const userId = String(created.headers.get('location')).split('/').pop();

    const answer = await events(admin, '?action=user.created');
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(1);
    const [record] = answer.body as AuditRecord[];
    expect(record).toMatchObject({
      organizationId: admin.orgId,
      action: 'user.created',
      outcome: 'success',
      actor: { type: 'client', id: admin.principalId, userAgent: 'audit-test/1.0' },
      targets: [{ type: 'user', id: userId, name: email }],
      changes: { email: { from: null, to: email }, status: { from: null, to: 'ACTIVE' } },
    });
    expect(record?.actor.ip).toBeTruthy();
    // The invitation's digest is a secret of the user's item: named, never shown.
    expect(record?.changes?.invitationDigest).toBe('changed');
  });

  it('records a refused write once, as denied, and a read not at all', async () => {
    const admin = await service.freshOrganization();
    const withoutAdd = await service.callerWith(permissionsWithout('USER.ADD'), {
      organization: admin.orgId,
    });
    // Registering the test's clients left records of their own.
    const before = new Set((await events(admin)).body.map((record) => record.id));
    // Positive control: the same request with the permission is admitted.
    expect((await createUser(admin)).status).toBe(204);
    expect((await createUser(withoutAdd)).status).toBe(403);

    const denied = await events(admin, '?outcome=denied');
    expect(denied.body).toHaveLength(1);
    expect(denied.body[0]).toMatchObject({
      action: 'user.created',
      outcome: 'denied',
      actor: { id: withoutAdd.principalId },
    });
    expect(denied.body[0]?.reason).toMatch(/^403 /);
    // The audit query itself (a read) left nothing.
    const added = (await events(admin)).body.filter((record) => !before.has(record.id));
    expect(added.map((record) => record.outcome).sort()).toEqual(['denied', 'success']);
  });

  it('lists every record it writes: a refusal naming an id as sent, a property named with a space', async () => {
    const admin = await service.freshOrganization();
    const without = await service.callerWith(permissionsWithout('USER.UPDATE'), {
      organization: admin.orgId,
    });
    const rename = (id: string) =>
      service.call('PUT', `/idp/users/${id}`, { token: without.token, body: { name: 'X' } });
    // Positive control: an ordinary id's refusal is listed.
    expect((await rename('some-user')).status).toBe(403);
    for (const id of ['some%20user', '%C3%A9l%C3%A8ve', 'line%0Abreak'])
      expect((await rename(id)).status).toBe(403);
    const denied = await events(admin, '?outcome=denied');
    expect(denied.body.map((record) => record.targets[0]?.id).sort()).toEqual(
      ['line break', 'some user', 'some-user', 'élève'].sort(),
    );
    const userId = (await service.createUser({ as: admin })) as string;
    const grant = (name: string) =>
      service.call('PUT', `/idp/users/${userId}/additionalProperties/grant`, {
        token: admin.token,
        body: { additionalProperties: { [name]: '42' } },
      });
    for (const name of ['costCenter', 'Cost Center']) expect((await grant(name)).status).toBe(204);
    const granted = await events(admin, `?targetId=${userId}&action=user.properties.granted`);
    expect(granted.body.map((record) => Object.keys(record.changes ?? {}))).toEqual([
      ['additionalProperties.Cost Center'],
      ['additionalProperties.costCenter'],
    ]);
  });

  it('needs AUDIT.READ, from STANDARD and RESTRICTED callers alike', async () => {
    const admin = await service.freshOrganization();
    const standard = await service.callerWith(['AUDIT.READ'], { organization: admin.orgId });
    const restricted = await service.callerWith(['AUDIT.READ'], {
      organization: admin.orgId,
      clientType: 'RESTRICTED',
    });
    const without = await service.callerWith(permissionsWithout('AUDIT.READ'), { organization: admin.orgId });
    expect((await events(standard)).status).toBe(200);
    expect((await events(restricted)).status).toBe(200);
    expect((await events(without)).status).toBe(403);
  });

  it("never shows another organization's records, through any filter", async () => {
    const mine = await service.freshOrganization();
    const theirs = await service.freshOrganization();
    const created = await createUser(theirs);
    const theirUser = String(created.headers.get('location')).split('/').pop() as string;
    for (const query of [
      '',
      `?targetId=${theirUser}`,
      `?actorId=${theirs.principalId}`,
      '?action=user.created',
      '?action=user.',
      '?outcome=success',
    ]) {
      const answer = await events(mine, query);
      expect(answer.status, query).toBe(200);
      // Its own records only (registering its client left some), none of theirs.
      expect(answer.body.filter((record) => record.organizationId !== mine.orgId)).toEqual([]);
      expect(JSON.stringify(answer.body), query).not.toContain(theirUser);
      expect(JSON.stringify(answer.body), query).not.toContain(theirs.principalId);
    }
    // Positive control: the owner sees it through the same filter.
    expect((await events(theirs, `?targetId=${theirUser}`)).body).toHaveLength(1);
  });

  it('pages newest first through Link rel="next", each record once', async () => {
    const admin = await service.freshOrganization();
    for (let index = 0; index < 5; index++) expect((await createUser(admin)).status).toBe(204);
    // The users' records only: the organization's setup is recorded too.
    const all = (await events(admin, '?action=user.created&limit=1000')).body.map((record) => record.id);
    expect(all).toHaveLength(5);
    const seen: string[] = [];
    let next: string | undefined = '/idp/auditEvents?action=user.created&limit=2';
    let pages = 0;
    while (next) {
      const page = await service.call<AuditRecord[]>('GET', next, { token: admin.token });
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.map((record) => record.id));
      next = nextLink(page.headers);
      pages++;
    }
    // A page that ends exactly where the records end may be followed by an empty one.
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(all.length / 2));
    expect(pages).toBeLessThanOrEqual(Math.ceil(all.length / 2) + 1);
    expect(seen).toEqual(all);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it('refuses bad filters with 400: an unknown action, a prefix without a dot, a forged cursor, a page too large', async () => {
    const admin = await service.freshOrganization();
    for (const query of ['?action=user.nothing', '?action=nope', '?cursor=abc', '?limit=1001', '?since=-1']) {
      const answer = await events(admin, query);
      expect(answer.status, query).toBe(400);
    }
    expect((await events(admin, '?action=user.')).status).toBe(200);
  });
});

describe('pages of large records from many shards', () => {
  /** 20 redirect URIs of about 2,000 characters, as many and as long as the API takes. */
  const uris = (tag: string, path: string) =>
    Array.from(
      { length: 20 },
      (_, index) => `https://app.example/${path}/${tag}${index}/${'a'.repeat(1940)}`,
    );

  /** A page as sent: its size in bytes, its records' ids and the next page's path. */
  const readPage = async (caller: Pick<ClientCaller, 'token'>, path: string) => {
    const answer = await fetch(`${service.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${caller.token}` },
    });
    expect(answer.status).toBe(200);
    const text = await answer.text();
    return {
      bytes: Buffer.byteLength(text),
      ids: (JSON.parse(text) as AuditRecord[]).map((record) => record.id),
      next: nextLink(answer.headers),
    };
  };

  it('end before their bytes pass the budget (a Lambda answer is at most 6 MB), and still list each record once, newest first', async () => {
    // The settings are stored with the organization, before any writer could cache the default.
    const admin = await service.freshOrganization({
      audit: { retentionDays: 90, shards: MAX_AUDIT_SHARDS },
    } as Partial<Organization>);
    const created = await service.call<{ id: string } & ApiError>('POST', '/idp/clients', {
      token: admin.token,
      body: {
        name: 'Long URIs',
        clientType: 'STANDARD',
        flowType: 'authorization_code',
        redirectUris: uris('x', 'cb'),
        postLogoutRedirectUris: uris('x', 'bye'),
      },
    });
    expect(created.status).toBe(201);
    // Each update swaps both lists, so its record shows both before and after: about 160 KB.
    const updates = 48;
    for (let index = 0; index < updates; index++) {
      const tag = index % 2 ? 'x' : 'y';
      const changed = await service.call('PATCH', `/idp/clients/${created.body.id}`, {
        token: admin.token,
        body: { redirectUris: uris(tag, 'cb'), postLogoutRedirectUris: uris(tag, 'bye') },
      });
      expect(changed.status).toBe(200);
    }

    // Positive control: 10 of these records (1.6 MB) fill their page, though they come from many shards.
    const ten = await readPage(admin, '/idp/auditEvents?action=client.updated&limit=10');
    expect(ten.ids).toHaveLength(10);
    expect(ten.next).toBeDefined();

    // All 48 (7.6 MB) would fit a page of the default 100 by count.
    const pages: { bytes: number; ids: string[] }[] = [];
    let next: string | undefined = '/idp/auditEvents?action=client.updated';
    while (next) {
      const page = await readPage(admin, next);
      pages.push(page);
      next = page.next;
      expect(pages.length, 'paging ends').toBeLessThanOrEqual(updates + 1);
    }
    for (const page of pages) expect(page.bytes).toBeLessThanOrEqual(MAX_AUDIT_PAGE_BYTES + 1024);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]?.ids.length).toBeLessThan(updates);
    const seen = pages.flatMap((page) => page.ids);
    expect(seen).toHaveLength(updates);
    expect(new Set(seen).size).toBe(updates);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect(seen.slice(0, 10)).toEqual(ten.ids);
  });
});

describe('a record edited by hand in the table', () => {
  it('is left out of the listing, which still answers the rest, when it no longer fits the record schema', async () => {
    const admin = await service.freshOrganization();
    for (let created = 0; created < 3; created++) expect((await createUser(admin)).status).toBe(204);
    // Positive control: the three records list.
    const listed = (await events(admin, '?action=user.created')).body;
    expect(listed).toHaveLength(3);
    const edited = listed[1] as AuditRecord;
    // Still JSON, with the same id and organization.
    await overwriteStoredRecord(edited, JSON.stringify({ ...edited, outcome: 'maybe' }));
    const answer = await events(admin, '?action=user.created');
    expect(answer.status).toBe(200);
    expect(answer.body.map((record) => record.id)).toEqual(
      listed.filter((record) => record.id !== edited.id).map((record) => record.id),
    );
  });
});

describe('refusals of writes', () => {
  it('records a 404 and a 409 once each, as failures naming what the call named', async () => {
    const admin = await service.freshOrganization();
    const email = uniqueEmail();
    // Positive controls: the same calls on what exists, and a new email, succeed.
    const created = await createUser(admin, email);
    expect(created.status).toBe(204);
    const userId = String(created.headers.get('location')).split('/').pop() as string;
    const rename = (id: string) =>
      service.call('PUT', `/idp/users/${id}`, { token: admin.token, body: { name: 'Renamed' } });
    expect((await rename(userId)).status).toBe(200);

    expect((await rename('no-such-user')).status).toBe(404);
    expect((await createUser(admin, email)).status).toBe(409);
    const failures = (await events(admin, '?outcome=failure')).body as AuditRecord[];
    expect(failures.map((record) => [record.action, record.reason?.slice(0, 3)]).sort()).toEqual([
      ['user.created', '409'],
      ['user.updated', '404'],
    ]);
    expect(failures.find((record) => record.action === 'user.updated')?.targets).toEqual([
      { type: 'user', id: 'no-such-user' },
    ]);
  });
});
