import { describe, expect, it } from 'vitest';
import { issueResetLink, livePasswordLink } from '../../shared/store/credentials.js';
import { replaceUserFromDirectory } from '../../shared/store/scim-users.js';
import { getUser, setUserStatus, type UserRecord } from '../../shared/store/user-repository.js';
import { useDatabase } from '../support/database.js';
import { personWithPassword } from '../support/hosted-pages.js';
import { createTestOrganization } from '../support/records.js';

/**
 * docs/sign-in.md: "deactivating ends their sessions, refresh tokens and password reset link for
 * good (as a new password does), through the API, the CLI or SCIM: reactivating brings none back".
 */

useDatabase();

const resetLinkOf = async (user: UserRecord) =>
  (
    await issueResetLink(
      user,
      { organizationId: user.organizationId, userId: user.id, to: user.email, name: user.name },
      3600,
    )
  )?.token;

/** What a directory's PUT describes, and what its PATCH works out from the user as read. */
const described = (user: UserRecord, active: boolean) => ({ email: user.email, name: user.name, active });
const patchedActive = (active: boolean) => (current: UserRecord) => ({
  email: current.email,
  name: current.name,
  active,
});

describe('a reset link across a deactivation and a reactivation', () => {
  it('through the API (setUserStatus) the link is gone for good, and a new one can be sent at once', async () => {
    const org = await createTestOrganization();
    const user = await personWithPassword(org.id);
    const token = (await resetLinkOf(user)) as string;
    expect(await livePasswordLink(token)).toBeDefined();
    await setUserStatus(org.id, user.id, 'INACTIVE');
    await setUserStatus(org.id, user.id, 'ACTIVE');
    expect(await livePasswordLink(token)).toBeUndefined();
    // The reset email's interval went with the link it guarded.
    expect(await resetLinkOf((await getUser(org.id, user.id, true)) as UserRecord)).toBeDefined();
  });

  it('through a SCIM PUT (active false, then true) the link is gone for good too', async () => {
    const org = await createTestOrganization();
    const user = await personWithPassword(org.id);
    const token = (await resetLinkOf(user)) as string;
    // Positive control: the link works, and a description that keeps the person active keeps it.
    expect(await livePasswordLink(token)).toBeDefined();
    await replaceUserFromDirectory(org.id, user.id, { ...described(user, true), name: 'Renamed' });
    expect(await livePasswordLink(token)).toBeDefined();
    // Only `active` differs.
    await replaceUserFromDirectory(org.id, user.id, { ...described(user, false), name: 'Renamed' });
    expect(await livePasswordLink(token)).toBeUndefined();
    await replaceUserFromDirectory(org.id, user.id, { ...described(user, true), name: 'Renamed' });
    expect(await livePasswordLink(token)).toBeUndefined();
    const after = (await getUser(org.id, user.id, true)) as UserRecord;
    expect(after).not.toHaveProperty('resetDigest');
    expect(await resetLinkOf(after)).toBeDefined();
  });

  it('through a SCIM PATCH of active the link is gone for good too', async () => {
    const org = await createTestOrganization();
    const user = await personWithPassword(org.id);
    const token = (await resetLinkOf(user)) as string;
    expect(await livePasswordLink(token)).toBeDefined();
    await replaceUserFromDirectory(org.id, user.id, patchedActive(false));
    await replaceUserFromDirectory(org.id, user.id, patchedActive(true));
    expect(await livePasswordLink(token)).toBeUndefined();
  });
});
