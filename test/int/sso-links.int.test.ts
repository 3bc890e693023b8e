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
import { useDatabase } from '../support/database.js';

useDatabase();

const PROVIDER = 'corp-login';
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

describe('SSO links under concurrent first sign-ins', () => {
  it('links one person to one subject of a provider: of two subjects at once, exactly one', async () => {
    const ada = person();
    const { linked, refusals } = await settle(
      ['subject-a', 'subject-b'].map((subject) => linkSsoSubject(ada, { clientId: PROVIDER, subject })),
    );
    expect(linked).toBe(1);
    expect(refusals).toEqual([expect.any(SsoLinkTaken)]);
    const [link] = await listSsoLinks(ada.organizationId, ada.id);
    expect(await linkedUserId(ada.organizationId, PROVIDER, link?.subject ?? '')).toBe(ada.id);
    const other = link?.subject === 'subject-a' ? 'subject-b' : 'subject-a';
    expect(await linkedUserId(ada.organizationId, PROVIDER, other)).toBeUndefined();
  });

  it('links a subject to one person: of two people at once, exactly one', async () => {
    const organizationId = randomUUID();
    const people = [person(organizationId), person(organizationId)];
    const { linked } = await settle(
      people.map((someone) => linkSsoSubject(someone, { clientId: PROVIDER, subject: 'shared-subject' })),
    );
    expect(linked).toBe(1);
    const owner = await linkedUserId(organizationId, PROVIDER, 'shared-subject');
    expect(people.map((someone) => someone.id)).toContain(owner);
  });

  it('keeps each organization apart: the same subject links in each, and unlinks only where asked', async () => {
    const [here, there] = [person(), person()];
    await linkSsoSubject(here, { clientId: PROVIDER, subject: 'roaming' });
    await linkSsoSubject(there, { clientId: PROVIDER, subject: 'roaming' });
    await expect(removeSsoLink({ ...there, organizationId: here.organizationId }, PROVIDER)).rejects.toThrow(
      NotFound,
    );
    await removeSsoLink(here, PROVIDER);
    expect(await linkedUserId(here.organizationId, PROVIDER, 'roaming')).toBeUndefined();
    expect(await linkedUserId(there.organizationId, PROVIDER, 'roaming')).toBe(there.id);
    expect(await listSsoLinks(here.organizationId, here.id)).toEqual([]);
  });

  it('frees the subject when unlinked: another person may link it then', async () => {
    const organizationId = randomUUID();
    const [first, second] = [person(organizationId), person(organizationId)];
    await linkSsoSubject(first, { clientId: PROVIDER, subject: 'reassigned' });
    await expect(linkSsoSubject(second, { clientId: PROVIDER, subject: 'reassigned' })).rejects.toThrow(
      SsoLinkTaken,
    );
    await removeSsoLink(first, PROVIDER);
    await expect(removeSsoLink(first, PROVIDER)).rejects.toThrow(NotFound);
    await linkSsoSubject(second, { clientId: PROVIDER, subject: 'reassigned' });
    expect(await linkedUserId(organizationId, PROVIDER, 'reassigned')).toBe(second.id);
  });
});
