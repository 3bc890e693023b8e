import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NotFound } from '../../shared/domain/errors.js';
import {
  linkedUserId,
  linkSsoSubject,
  listSsoLinks,
  removeSsoLink,
  SsoLinkTaken,
} from '../../shared/store/sso-links.js';
import { auditTrail } from '../support/audit.js';
import { useDatabase } from '../support/database.js';

useDatabase();

const PROVIDER = { clientId: 'corp-login', issuer: 'https://login.corp.example' };
const upstream = (subject: string) => ({ ...PROVIDER, subject });
const person = (organizationId = randomUUID()) => ({
  organizationId,
  id: randomUUID(),
  email: `${randomUUID()}@example.com`,
});

/** Settles concurrent attempts: how many succeeded, and the errors of the others. */
const settle = async (attempts: Promise<void>[]) => {
  const outcomes = await Promise.allSettled(attempts);
  return {
    linked: outcomes.filter((outcome) => outcome.status === 'fulfilled').length,
    refusals: outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : [])),
  };
};

describe('SSO links', () => {
  it('links one person to one subject of a provider: of two subjects at once, exactly one', async () => {
    const ada = person();
    const { linked, refusals } = await settle(
      ['subject-a', 'subject-b'].map((subject) => linkSsoSubject(ada, upstream(subject))),
    );
    expect(linked).toBe(1);
    expect(refusals).toEqual([expect.any(SsoLinkTaken)]);
    const [link] = await listSsoLinks(ada.organizationId, ada.id);
    expect(await linkedUserId(ada.organizationId, upstream(link?.subject ?? ''))).toBe(ada.id);
    const other = link?.subject === 'subject-a' ? 'subject-b' : 'subject-a';
    expect(await linkedUserId(ada.organizationId, upstream(other))).toBeUndefined();
  });

  it('links a subject to one person: of two people at once, exactly one', async () => {
    const organizationId = randomUUID();
    const people = [person(organizationId), person(organizationId)];
    const { linked } = await settle(people.map((someone) => linkSsoSubject(someone, upstream('shared'))));
    expect(linked).toBe(1);
    expect(people.map((someone) => someone.id)).toContain(
      await linkedUserId(organizationId, upstream('shared')),
    );
  });

  it('keeps each organization apart: the same subject links in each, and unlinks only where asked', async () => {
    const [here, there] = [person(), person()];
    await linkSsoSubject(here, upstream('roaming'));
    await linkSsoSubject(there, upstream('roaming'));
    await expect(
      removeSsoLink({ ...there, organizationId: here.organizationId }, PROVIDER.clientId),
    ).rejects.toThrow(NotFound);
    await removeSsoLink(here, PROVIDER.clientId);
    expect(await linkedUserId(here.organizationId, upstream('roaming'))).toBeUndefined();
    expect(await linkedUserId(there.organizationId, upstream('roaming'))).toBe(there.id);
    expect(await listSsoLinks(here.organizationId, here.id)).toEqual([]);
  });

  it('frees the subject when unlinked: another person may link it then', async () => {
    const organizationId = randomUUID();
    const [first, second] = [person(organizationId), person(organizationId)];
    await linkSsoSubject(first, upstream('reassigned'));
    await expect(linkSsoSubject(second, upstream('reassigned'))).rejects.toThrow(SsoLinkTaken);
    await removeSsoLink(first, PROVIDER.clientId);
    await expect(removeSsoLink(first, PROVIDER.clientId)).rejects.toThrow(NotFound);
    await linkSsoSubject(second, upstream('reassigned'));
    expect(await linkedUserId(organizationId, upstream('reassigned'))).toBe(second.id);
  });

  it("takes a subject of the provider's new issuer as another identity, and replaces the former issuer's link", async () => {
    const ada = person();
    await linkSsoSubject(ada, upstream('12345'));
    const moved = { ...PROVIDER, issuer: 'https://new-login.corp.example', subject: '12345' };
    // The same `sub` from another issuer is nobody yet.
    expect(await linkedUserId(ada.organizationId, moved)).toBeUndefined();
    // Positive control: another subject of the same issuer is refused for a linked person.
    await expect(linkSsoSubject(ada, upstream('67890'))).rejects.toThrow(SsoLinkTaken);

    await linkSsoSubject(ada, { ...moved, subject: 'ada-at-new' });
    expect(await listSsoLinks(ada.organizationId, ada.id)).toEqual([
      expect.objectContaining({ issuer: moved.issuer, subject: 'ada-at-new' }),
    ]);
    expect(await linkedUserId(ada.organizationId, upstream('12345'))).toBeUndefined();
    expect(await linkedUserId(ada.organizationId, { ...moved, subject: 'ada-at-new' })).toBe(ada.id);
    // The replacement's two records ride in one transaction, at one instant: in no set order.
    const records = (await auditTrail(ada.organizationId, { action: 'ssoLink.' })).map((record) =>
      [record.action, record.targets[1]?.name].join(' '),
    );
    expect(records.sort()).toEqual([
      'ssoLink.created 12345',
      'ssoLink.created ada-at-new',
      'ssoLink.removed 12345',
    ]);
  });
});
