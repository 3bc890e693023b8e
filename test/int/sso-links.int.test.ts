import { describe, expect, it } from 'vitest';
import { NotFound } from '../../shared/domain/errors.js';
import {
  linkedUserId,
  linkSsoSubject,
  listSsoLinks,
  removeSsoLink,
  removeSsoLinks,
  SsoLinkTaken,
} from '../../shared/store/sso-links.js';
import { createUser, setUserStatus } from '../../shared/store/user-repository.js';
import { ConcurrentChange } from '../../shared/store/writes.js';
import { auditTrail } from '../support/audit.js';
import { useDatabase } from '../support/database.js';
import { createTestOrganization, uniqueEmail } from '../support/records.js';

useDatabase();

const PROVIDER = { clientId: 'corp-login', issuer: 'https://login.corp.example' };
const upstream = (subject: string) => ({ ...PROVIDER, subject });
const person = async (organizationId?: string) =>
  (
    await createUser({
      organizationId: organizationId ?? (await createTestOrganization()).id,
      email: uniqueEmail('linked'),
      name: 'Linked Person',
      userType: 'STANDARD',
      createdBy: 'test',
    })
  ).user;

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
    const ada = await person();
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

  it('links a subject to one person: of two people at once, exactly one, and the other holds nothing', async () => {
    const organizationId = (await createTestOrganization()).id;
    const people = [await person(organizationId), await person(organizationId)];
    const { linked } = await settle(people.map((someone) => linkSsoSubject(someone, upstream('shared'))));
    expect(linked).toBe(1);
    const owner = await linkedUserId(organizationId, upstream('shared'));
    const links = await Promise.all(people.map((someone) => listSsoLinks(organizationId, someone.id)));
    expect(links.map((held) => held.length)).toEqual(people.map((someone) => (someone.id === owner ? 1 : 0)));
  });

  it('links nobody who changed since they were read (deactivated, or brought back by a directory)', async () => {
    const ada = await person();
    // Positive control: the person as read links.
    const grace = await person(ada.organizationId);
    await linkSsoSubject(grace, upstream('grace'));
    await setUserStatus(ada.organizationId, ada.id, 'INACTIVE');
    await expect(linkSsoSubject(ada, upstream('ada'))).rejects.toThrow(ConcurrentChange);
    expect(await linkedUserId(ada.organizationId, upstream('ada'))).toBeUndefined();
    expect(await listSsoLinks(ada.organizationId, ada.id)).toEqual([]);
  });

  it('keeps each organization apart: the same subject links in each, and unlinks only where asked', async () => {
    const [here, there] = [await person(), await person()];
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
    const first = await person();
    const second = await person(first.organizationId);
    await linkSsoSubject(first, upstream('reassigned'));
    await expect(linkSsoSubject(second, upstream('reassigned'))).rejects.toThrow(SsoLinkTaken);
    await removeSsoLink(first, PROVIDER.clientId);
    await expect(removeSsoLink(first, PROVIDER.clientId)).rejects.toThrow(NotFound);
    await linkSsoSubject(second, upstream('reassigned'));
    expect(await linkedUserId(first.organizationId, upstream('reassigned'))).toBe(second.id);
  });

  it("takes a subject of the provider's new issuer as another identity, and replaces the former issuer's link", async () => {
    const ada = await person();
    await linkSsoSubject(ada, upstream('12345'));
    const [former] = await listSsoLinks(ada.organizationId, ada.id);
    const moved = { ...PROVIDER, issuer: 'https://new-login.corp.example', subject: '12345' };
    // The same `sub` from another issuer is nobody yet.
    expect(await linkedUserId(ada.organizationId, moved)).toBeUndefined();
    // Positive control: another subject of the same issuer is refused for a linked person.
    await expect(linkSsoSubject(ada, upstream('67890'))).rejects.toThrow(SsoLinkTaken);

    await linkSsoSubject(ada, moved);
    expect(await listSsoLinks(ada.organizationId, ada.id)).toEqual([
      expect.objectContaining({ issuer: moved.issuer, subject: '12345' }),
    ]);
    expect(await linkedUserId(ada.organizationId, upstream('12345'))).toBeUndefined();
    expect(await linkedUserId(ada.organizationId, moved)).toBe(ada.id);
    // The replacement's two records ride in one transaction, at one instant: in no set order.
    const records = (await auditTrail(ada.organizationId, { action: 'ssoLink.' })).map((record) =>
      [record.action, record.targets[1]?.name].join(' '),
    );
    expect(records.sort()).toEqual([
      'ssoLink.created 12345',
      'ssoLink.created 12345',
      'ssoLink.removed 12345',
    ]);

    // An unlink of the link as it was before (read before the replacement) unlinks nothing.
    await expect(
      removeSsoLinks(ada, [former as NonNullable<typeof former>], () => new NotFound('SSO link')),
    ).rejects.toThrow(NotFound);
    expect(await linkedUserId(ada.organizationId, moved)).toBe(ada.id);
    expect(await listSsoLinks(ada.organizationId, ada.id)).toHaveLength(1);
  });
});
