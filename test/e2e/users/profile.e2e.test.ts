import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../shared/auth/passwords.js';
import { issueResetLink, livePasswordLink } from '../../../shared/store/credentials.js';
import { keys } from '../../../shared/store/keys.js';
import { getUser, type UserRecord, updateUserAttributes } from '../../../shared/store/user-repository.js';
import { auditRecordsOf, storedAuditText } from '../../support/audit-items.js';
import { providerServing, uniqueDomain } from '../../support/hosted-pages.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  errorFields,
  freshUser,
  getItem,
  uniqueEmail,
  useFixture,
  useService,
} from '../../support/service.js';
import { emailsTo } from '../../support/sign-in-flow.js';

/** PUT /users/{id}, PUT /users/{id}/changePassword, PUT /users/{id}/userType/{type}. */
const service = useService();

const update = (id: string, body: unknown, as = service.admin.token) =>
  service.call<ApiUser & ApiError>('PUT', `/idp/users/${id}`, { token: as, body });

const foreign = useFixture(() => service.freshOrganizationWithUser());

describe('PUT /users/{id}', () => {
  it('lets the user rename itself without USER.UPDATE and answers the updated User', async () => {
    const email = uniqueEmail('self');
    const id = await service.createUser({ email, name: 'Before' });
    const response = await update(id, { name: '  After  ' }, await service.userToken(id));
    expect(response.status).toBe(200);
    // The first user of this file's organization, hence initial.
    const expected = freshUser(id, email, 'After', true);
    expect(response.body).toEqual(expected);
    expect((await service.call('GET', `/idp/users/${id}`, { token: service.admin.token })).body).toEqual(
      expected,
    );
  });

  it('refuses another user without USER.UPDATE (403) and allows a client with USER.UPDATE', async () => {
    const id = await service.createUser({ name: 'Target' });
    const otherUser = await service.createUser();
    const refused = await update(id, { name: 'Hijacked' }, await service.userToken(otherUser));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Missing permission: USER.UPDATE');
    const allowed = await update(
      id,
      { name: 'By manager' },
      (await service.callerWith(['USER.UPDATE'])).token,
    );
    expect(allowed.status).toBe(200);
    expect(allowed.body.name).toBe('By manager');
  });

  it('changes the email, moves the uniqueness guard and frees the old address', async () => {
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('New');
    const id = await service.createUser({ email: oldEmail });
    const response = await update(id, { name: 'Mover', email: newEmail });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, email: newEmail, name: 'Mover' });
    expect(await getItem(keys.emailGuard(service.organizationId, oldEmail))).toBeUndefined();
    expect(await getItem(keys.emailGuard(service.organizationId, newEmail))).toMatchObject({ userId: id });

    const reuse = await service.call('POST', '/idp/users', {
      token: service.admin.token,
      body: { email: oldEmail.toUpperCase(), name: 'Reuser', userType: 'STANDARD' },
    });
    expect(reuse.status).toBe(204);
    const taken = await service.call<ApiError>('POST', '/idp/users', {
      token: service.admin.token,
      body: { email: newEmail.toLowerCase(), name: 'Late', userType: 'STANDARD' },
    });
    expect(taken.status).toBe(409);
  });

  it('tells the old address of a new email, whoever changed it; a name alone tells nobody', async () => {
    const oldEmail = uniqueEmail('told');
    const id = await service.createUser({ email: oldEmail });
    expect((await update(id, { name: 'Renamed only' })).status).toBe(200);
    expect(await emailsTo(service, id, 'SECURITY_NOTICE_EMAIL')).toEqual([]);
    expect((await update(id, { name: 'Moved', email: uniqueEmail('moved') })).status).toBe(200);
    const notices = await emailsTo(service, id, 'SECURITY_NOTICE_EMAIL');
    expect(notices).toEqual([
      expect.objectContaining({
        to: oldEmail,
        subject: expect.stringMatching(/^The email of your account at .+ was changed$/),
      }),
    ]);
  });

  it('lets a person change their own email only with a sign-in of the last 5 minutes (RFC 9470)', async () => {
    const oldEmail = uniqueEmail('self-mover');
    const id = await service.createUser({ email: oldEmail, name: 'Self Mover' });
    const stolen = await service.userToken(id, undefined, Date.now() - 6 * 60_000);
    // Renaming needs no recent sign-in: only a new email hands the account over.
    expect((await update(id, { name: 'Still Self' }, stolen)).status).toBe(200);
    const refused = await update(id, { name: 'Still Self', email: uniqueEmail('attacker') }, stolen);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_user_authentication"');
    expect(refused.headers.get('www-authenticate')).toContain('max_age=300');
    expect((await getUser(service.organizationId, id, true))?.email).toBe(oldEmail);
    // Positive control: the same change with a sign-in of a minute ago.
    const recent = await service.userToken(id, undefined, Date.now() - 60_000);
    const moved = uniqueEmail('self-moved');
    expect((await update(id, { name: 'Still Self', email: moved }, recent)).status).toBe(200);
    expect((await getUser(service.organizationId, id, true))?.email).toBe(moved);
  });

  it("refuses a person's own move of their email away from the SSO provider that serves it (403)", async () => {
    const domain = uniqueDomain();
    await providerServing(service.organizationId, domain);
    const id = await service.createUser({ email: `self@${domain}`, name: 'Federated' });
    const own = await service.userToken(id, undefined, Date.now() - 60_000);
    // Positive controls: within the provider's domain, and by an administrator, the email changes.
    expect((await update(id, { name: 'Federated', email: `renamed@${domain}` }, own)).status).toBe(200);
    const refused = await update(id, { name: 'Federated', email: uniqueEmail('private') }, own);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      "Your email is managed by Workforce, your organization's single sign-on: ask your administrator to change it",
    );
    expect((await getUser(service.organizationId, id, true))?.email).toBe(`renamed@${domain}`);
    const moved = uniqueEmail('moved-by-admin');
    expect((await update(id, { name: 'Federated', email: moved })).status).toBe(200);
    expect((await getUser(service.organizationId, id, true))?.email).toBe(moved);
  });

  it("answers 409 for another user's email in any case and changes nothing", async () => {
    const takenEmail = uniqueEmail('taken');
    await service.createUser({ email: takenEmail });
    const ownEmail = uniqueEmail('own');
    const id = await service.createUser({ email: ownEmail, name: 'Keeper' });
    for (const email of [takenEmail, takenEmail.toUpperCase()]) {
      const response = await update(id, { name: 'Changed', email });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('A user with this email already exists in the organization');
    }
    const after = await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token });
    expect(after.body).toMatchObject({ email: ownEmail, name: 'Keeper' });
    expect(await getItem(keys.emailGuard(service.organizationId, ownEmail))).toMatchObject({ userId: id });
  });

  it('accepts the own email in another case (no conflict with itself)', async () => {
    const email = uniqueEmail('case');
    const id = await service.createUser({ email });
    const response = await update(id, { name: 'Case', email: email.toUpperCase() });
    expect(response.status).toBe(200);
    expect(response.body.email).toBe(email.toUpperCase());
    expect(await getItem(keys.emailGuard(service.organizationId, email))).toMatchObject({ userId: id });
  });

  it('keeps the email when none is given', async () => {
    const email = uniqueEmail('keep');
    const id = await service.createUser({ email });
    expect((await update(id, { name: 'Only name' })).body.email).toBe(email);
  });

  it.each([
    ['an unknown key', { name: 'X', foo: 1 }, 'body.foo'],
    ['a missing name', { email: 'a@example.com' }, 'body.name'],
    ['a name of the wrong type', { name: ['X'] }, 'body.name'],
    ['an invalid email', { name: 'X', email: 'nope' }, 'body.email'],
  ])('answers 400 for %s', async (_label, body, field) => {
    const id = await service.createUser();
    const response = await update(id, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    for (const id of ['no-such-user', foreign.user.id]) {
      const response = await update(id, { name: 'Ghost' });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User not found');
    }
    expect((await getUser(foreign.orgId, foreign.user.id, true))?.name).toBe(foreign.user.name);
  });
  it('voids the links sent to the old address when the email changes, not when only the name does', async () => {
    const id = await service.createUser({ name: 'Linked' });
    const resetLink = async () => {
      const user = (await getUser(service.organizationId, id, true)) as UserRecord;
      const email = { organizationId: user.organizationId, userId: id, to: user.email, name: user.name };
      return (await issueResetLink(user, email, 3600))?.token as string;
    };
    const kept = await resetLink();
    expect((await update(id, { name: 'Renamed' })).status).toBe(200);
    expect(await livePasswordLink(kept)).toBeDefined();
    expect((await update(id, { name: 'Renamed', email: uniqueEmail('moved') })).status).toBe(200);
    expect(await livePasswordLink(kept)).toBeUndefined();
  });
});

describe('PUT /users/{id}/changePassword', () => {
  const current = 'current password 1';
  const next = 'next password 2345';

  const withPassword = async () => {
    const id = await service.createUser();
    await updateUserAttributes(service.organizationId, id, { passwordHash: await hashPassword(current) });
    return { id, userToken: await service.userToken(id) };
  };
  const change = (id: string, as: string, body: Record<string, unknown>) =>
    service.call<ApiError>('PUT', `/idp/users/${id}/changePassword`, { token: as, body });

  it('changes the own password: 204, the new one verifies, the hash never shows', async () => {
    const { id, userToken } = await withPassword();
    const response = await change(id, userToken, {
      currentPassword: current,
      newPassword: next,
      confirmPassword: next,
    });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const stored = (await getUser(service.organizationId, id, true))?.passwordHash as string;
    expect(stored).toMatch(/^scrypt-nfkc\$/);
    expect(await verifyPassword(next, stored)).toBe(true);
    expect(await verifyPassword(current, stored)).toBe(false);
    // Recorded with the user as actor, and no password or hash anywhere in the stored record.
    const records = await auditRecordsOf(service.organizationId, { targetId: id });
    expect(records.filter((record) => record.action === 'password.changed')).toMatchObject([
      { actor: { type: 'user', id }, targets: [{ type: 'user', id }], changes: { passwordHash: 'changed' } },
    ]);
    const recorded = await storedAuditText(service.organizationId, records);
    for (const secret of [next, current, stored, stored.split('$').pop() as string])
      expect(recorded).not.toContain(secret);

    const shown = await service.call('GET', `/idp/users/${id}`, { token: service.admin.token });
    const listed = await service.call('GET', '/idp/users', { token: service.admin.token });
    for (const text of [JSON.stringify(shown.body), JSON.stringify(listed.body)]) {
      expect(text).not.toContain(stored.split('$').pop());
      expect(text).not.toMatch(/scrypt|password/i);
    }
    // The old password no longer works as the current one.
    const again = await change(id, userToken, {
      currentPassword: current,
      newPassword: next,
      confirmPassword: next,
    });
    expect(again.status).toBe(400);
  });

  /** A live reset link of the user, issued the way "Forgot your password?" issues it. */
  const resetLinkOf = async (id: string) => {
    const user = (await getUser(service.organizationId, id, true)) as UserRecord;
    const email = { organizationId: user.organizationId, userId: id, to: user.email, name: user.name };
    const link = await issueResetLink(user, email, 3600);
    if (!link || !(await livePasswordLink(link.token))) throw new Error('No live reset link');
    return link.token;
  };

  it('ends earlier sign-ins and voids the links sent before, as a reset does', async () => {
    const { id, userToken } = await withPassword();
    const link = await resetLinkOf(id);
    const before = Date.now();
    const response = await change(id, userToken, {
      currentPassword: current,
      newPassword: next,
      confirmPassword: next,
    });
    expect(response.status).toBe(204);
    expect(await livePasswordLink(link)).toBeUndefined();
    // The person hears of it (OWASP ASVS 2.5.5).
    expect(await emailsTo(service, id, 'SECURITY_NOTICE_EMAIL')).toHaveLength(1);
    // Sessions and refresh tokens of sign-ins before this moment end (docs/sign-in.md).
    expect((await getUser(service.organizationId, id, true))?.credentialsChangedAt).toBeGreaterThanOrEqual(
      before,
    );
  });

  it('checks the current password under the sign-in lockout: a token alone cannot guess it', async () => {
    const { id, userToken } = await withPassword();
    const wrong = { currentPassword: 'wrong password', newPassword: next, confirmPassword: next };
    for (let attempt = 0; attempt < 5; attempt++)
      expect((await change(id, userToken, wrong)).status).toBe(400);
    const right = await change(id, userToken, { ...wrong, currentPassword: current });
    expect(right.status).toBe(400);
    const stored = (await getUser(service.organizationId, id, true))?.passwordHash as string;
    expect(await verifyPassword(current, stored)).toBe(true);
    // Each guess is recorded as a failed sign-in by the token's holder, the fifth as the lock, and
    // the right password refused while locked too; no password is in any record.
    const records = await auditRecordsOf(service.organizationId, { targetId: id });
    const failures = records.filter((record) => record.action.startsWith('signin.')).reverse();
    expect(failures.map(({ action, outcome, reason }) => [action, outcome, reason])).toEqual([
      ...Array.from({ length: 4 }, () => ['signin.failed', 'failure', 'wrong current password']),
      ['signin.locked', 'failure', 'wrong current password'],
      ['signin.failed', 'failure', 'locked'],
    ]);
    expect(failures.every((record) => record.actor.id === id)).toBe(true);
    expect(JSON.stringify(failures)).not.toMatch(/wrong password|current password 1/);
  });

  it('answers 400 naming body.currentPassword when the current password is wrong', async () => {
    const { id, userToken } = await withPassword();
    const response = await change(id, userToken, {
      currentPassword: 'wrong password',
      newPassword: next,
      confirmPassword: next,
    });
    expect(response.status).toBe(400);
    expect(response.body.errorDetails).toEqual([
      { message: 'Does not match the current password', field: 'body.currentPassword' },
    ]);
    const stored = (await getUser(service.organizationId, id, true))?.passwordHash as string;
    expect(await verifyPassword(current, stored)).toBe(true);
  });

  it('answers 400 for a user that has no password yet', async () => {
    const id = await service.createUser();
    const response = await change(id, await service.userToken(id), {
      currentPassword: 'anything at all',
      newPassword: next,
      confirmPassword: next,
    });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['body.currentPassword']);
  });

  it.each([
    [
      'a confirmation that differs',
      { newPassword: next, confirmPassword: `${next}x` },
      'body.confirmPassword',
    ],
    [
      'a new password of 11 characters',
      { newPassword: 'a'.repeat(11), confirmPassword: 'a'.repeat(11) },
      'body.newPassword',
    ],
    ['an unknown key', { newPassword: next, confirmPassword: next, foo: 1 }, 'body.foo'],
    [
      'an empty current password',
      { currentPassword: '', newPassword: next, confirmPassword: next },
      'body.currentPassword',
    ],
    ['a missing confirmation', { newPassword: next }, 'body.confirmPassword'],
  ])('answers 400 for %s and keeps the password', async (_label, body, field) => {
    const { id, userToken } = await withPassword();
    const response = await change(id, userToken, { currentPassword: current, ...body });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    const stored = (await getUser(service.organizationId, id, true))?.passwordHash as string;
    expect(await verifyPassword(current, stored)).toBe(true);
  });

  it('accepts exactly 12 characters', async () => {
    const { id, userToken } = await withPassword();
    const twelve = 'Tq8vLm2pZxWe';
    expect(
      (
        await change(id, userToken, {
          currentPassword: current,
          newPassword: twelve,
          confirmPassword: twelve,
        })
      ).status,
    ).toBe(204);
  });
});

describe('PUT /users/{id}/userType/{type}', () => {
  const setType = (id: string, type: string, as = service.admin.token) =>
    service.call<ApiError>('PUT', `/idp/users/${id}/userType/${type}`, { token: as });
  const claimOf = async (id: string) => decodeJwt(await service.userToken(id)).user_type;

  it('sets the type, case-insensitively; tokens issued afterwards carry it', async () => {
    const id = await service.createUser();
    expect(await claimOf(id)).toBe('STANDARD');
    for (const [type, stored] of [
      ['RESTRICTED', 'RESTRICTED'],
      ['standard', 'STANDARD'],
      ['restricted', 'RESTRICTED'],
      ['STANDARD', 'STANDARD'],
      ['restricted', 'RESTRICTED'],
    ]) {
      const response = await setType(id, type as string);
      expect(response.status).toBe(204);
      expect(response.body).toBeUndefined();
      expect((await getUser(service.organizationId, id, true))?.userType).toBe(stored);
    }
    expect(await claimOf(id)).toBe('RESTRICTED');
  });

  it.each(['admin', 'Standard', 'STANDARDS'])('answers 400 for the type %s', async (type) => {
    const id = await service.createUser();
    const response = await setType(id, type);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['path.type']);
    expect((await getUser(service.organizationId, id, true))?.userType).toBe('STANDARD');
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    for (const id of ['no-such-user', foreign.user.id]) {
      const response = await setType(id, 'RESTRICTED');
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User not found');
    }
    expect((await getUser(foreign.orgId, foreign.user.id, true))?.userType).toBe('STANDARD');
  });

  it('answers 403 to the user itself without USER.UPDATE', async () => {
    const id = await service.createUser();
    const response = await setType(id, 'RESTRICTED', await service.userToken(id));
    expect(response.status).toBe(403);
    expect(response.body.message).toBe('Missing permission: USER.UPDATE');
  });
});
