import { beforeAll, describe, expect, it } from 'vitest';
import { listPasskeys } from '../../../shared/store/passkeys.js';
import { getUser, type UserRecord, updateUserAttributes } from '../../../shared/store/user-repository.js';
import { storedPasskey } from '../../support/passkeys.js';
import type { ApiError, Caller } from '../../support/service.js';
import { putTestRole, setMfaEnabled, useFixture, useService } from '../../support/service.js';
import { emailsTo } from '../../support/sign-in-flow.js';
import { SoftAuthenticator } from '../../support/soft-authenticator.js';

/** MFA resets, the /me operations, and tokens of deactivated users. */
// The service runs in this process: no caching of principal status, so a deactivation shows at once.
process.env.IDP_PRINCIPAL_CACHE_SECONDS = '0';

const service = useService();
/** An organization that starts with MFA disabled; tests switch it on. */
let mfaAdmin: Caller;
let mfaOrg: string;
let mfaToken: string;

beforeAll(async () => {
  mfaAdmin = await service.freshOrganization({ mfaEnabled: false });
  mfaOrg = mfaAdmin.orgId;
  mfaToken = mfaAdmin.token;
});

const TOTP = 'JBSWY3DPEHPK3PXP';
const withTotp = async (as: Caller) => {
  const id = await service.createUser({ as });
  await updateUserAttributes(as.orgId, id, { totpSecret: TOTP });
  return id;
};
const totpOf = async (orgId: string, id: string) => (await getUser(orgId, id, true))?.totpSecret;
const passkeysOf = async (orgId: string, id: string) =>
  (await listPasskeys(orgId, id)).map((passkey) => passkey.credentialKey);

const foreign = useFixture(() => service.freshOrganizationWithUser({ mfaEnabled: true }));

describe('PUT /users/{id}/resetMfa', () => {
  it('answers 400 while the organization has MFA disabled, then 204 and clears the secret once enabled', async () => {
    const id = await withTotp(mfaAdmin);
    const refused = await service.call<ApiError>('PUT', `/idp/users/${id}/resetMfa`, { token: mfaToken });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('The organization does not use multi-factor authentication');
    expect(await totpOf(mfaOrg, id)).toBe(TOTP);

    await setMfaEnabled(mfaOrg, true);
    const reset = await service.call('PUT', `/idp/users/${id}/resetMfa`, { token: mfaToken });
    expect(reset.status).toBe(204);
    expect(reset.body).toBeUndefined();
    const stored = await getUser(mfaOrg, id, true);
    expect(stored).not.toHaveProperty('totpSecret');
    expect(stored?.status).toBe('ACTIVE');
    // The person hears of it (OWASP ASVS 2.5.5), once: a reset of nothing says nothing.
    expect((await service.call('PUT', `/idp/users/${id}/resetMfa`, { token: mfaToken })).status).toBe(204);
    const notices = await emailsTo(service, id, 'SECURITY_NOTICE_EMAIL');
    expect(notices.map((notice) => notice.subject)).toEqual([
      expect.stringMatching(/^Two-step verification for .+ was reset$/),
    ]);
  });

  it("resets only that user's secret", async () => {
    await setMfaEnabled(mfaOrg, true);
    const a = await withTotp(mfaAdmin);
    const b = await withTotp(mfaAdmin);
    expect((await service.call('PUT', `/idp/users/${a}/resetMfa`, { token: mfaToken })).status).toBe(204);
    expect(await totpOf(mfaOrg, a)).toBeUndefined();
    expect(await totpOf(mfaOrg, b)).toBe(TOTP);
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    await setMfaEnabled(mfaOrg, true);
    await updateUserAttributes(foreign.orgId, foreign.user.id, { totpSecret: TOTP });
    for (const id of ['no-such-user', foreign.user.id]) {
      const response = await service.call<ApiError>('PUT', `/idp/users/${id}/resetMfa`, { token: mfaToken });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User not found');
    }
    expect(await totpOf(foreign.orgId, foreign.user.id)).toBe(TOTP);
  });

  it('answers 403 without USER.UPDATE, also to the user itself', async () => {
    await setMfaEnabled(mfaOrg, true);
    const id = await withTotp(mfaAdmin);
    const { token: narrow } = await service.callerWith(['USER.DELETE', 'USER.ADD'], { organization: mfaOrg });
    for (const as of [narrow, await service.userToken(id, mfaOrg)]) {
      const response = await service.call<ApiError>('PUT', `/idp/users/${id}/resetMfa`, { token: as });
      expect(response.status).toBe(403);
      expect(response.body.message).toBe('Missing permission: USER.UPDATE');
    }
    expect(await totpOf(mfaOrg, id)).toBe(TOTP);
  });
});

describe('changing how oneself signs in through /users/{id}', () => {
  it('asks for a sign-in of the last 5 minutes, as /me does: a stolen older token of a user manager strips nothing', async () => {
    await setMfaEnabled(mfaOrg, true);
    const manager = await putTestRole(mfaOrg, { permissions: ['USER.UPDATE'] });
    const id = await withTotp(mfaAdmin);
    const granted = await service.call('PUT', `/idp/users/${id}/roles/${manager.id}/grant`, {
      token: mfaToken,
    });
    expect(granted.status).toBe(204);
    const person = (await getUser(mfaOrg, id, true)) as UserRecord;
    const origin = new URL(service.baseUrl);
    const { passkey } = await storedPasskey(
      person,
      new SoftAuthenticator({ rpId: origin.hostname, origin: origin.origin }),
    );
    const asSignedIn = async (minutesAgo: number) => {
      const token = await service.userToken(id, mfaOrg, Date.now() - minutesAgo * 60_000);
      return {
        resetMfa: () => service.call<ApiError>('PUT', `/idp/users/${id}/resetMfa`, { token }),
        removePasskey: () =>
          service.call<ApiError>('DELETE', `/idp/users/${id}/passkeys/${passkey.credentialKey}`, { token }),
      };
    };
    const stale = await asSignedIn(6);
    const refusedReset = await stale.resetMfa();
    expect(refusedReset.status).toBe(401);
    expect(refusedReset.headers.get('www-authenticate')).toContain('insufficient_user_authentication');
    expect(refusedReset.body.message).toMatch(
      /^Resetting this user's MFA needs a sign-in of the last 5 minutes/,
    );
    expect((await stale.removePasskey()).status).toBe(401);
    expect(await totpOf(mfaOrg, id)).toBe(TOTP);
    expect(await passkeysOf(mfaOrg, id)).toEqual([passkey.credentialKey]);
    // Positive control: the same person and token, signed in four minutes ago.
    const recent = await asSignedIn(4);
    expect((await recent.resetMfa()).status).toBe(204);
    expect((await recent.removePasskey()).status).toBe(204);
    expect(await totpOf(mfaOrg, id)).toBeUndefined();
    expect(await passkeysOf(mfaOrg, id)).toEqual([]);
  });
});

describe('PUT /me/resetMfa', () => {
  it('asks for a sign-in of the last 5 minutes (RFC 9470): a stolen older token resets nothing', async () => {
    await setMfaEnabled(mfaOrg, true);
    const id = await withTotp(mfaAdmin);
    const reset = async (signedInAt: number) =>
      service.call<ApiError>('PUT', '/idp/me/resetMfa', {
        token: await service.userToken(id, mfaOrg, signedInAt),
      });
    const stale = await reset(Date.now() - 6 * 60_000);
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_user_authentication", error_description="${stale.body.message}", max_age=300`,
    );
    expect(stale.body.message).toMatch(
      /^Resetting your own two-step verification needs a sign-in of the last 5 minutes/,
    );
    expect(await totpOf(mfaOrg, id)).toBe(TOTP);
    // Positive control: the same person, signed in four minutes ago.
    expect((await reset(Date.now() - 4 * 60_000)).status).toBe(204);
    expect(await totpOf(mfaOrg, id)).toBeUndefined();
  });

  it('clears the calling user secret (204), and nobody else', async () => {
    await setMfaEnabled(mfaOrg, true);
    const id = await withTotp(mfaAdmin);
    const bystander = await withTotp(mfaAdmin);
    const response = await service.call('PUT', '/idp/me/resetMfa', {
      token: await service.userToken(id, mfaOrg),
    });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(await totpOf(mfaOrg, id)).toBeUndefined();
    expect(await totpOf(mfaOrg, bystander)).toBe(TOTP);
  });

  it('answers 400 to an API client, even one with every permission', async () => {
    await setMfaEnabled(mfaOrg, true);
    const response = await service.call<ApiError>('PUT', '/idp/me/resetMfa', { token: mfaToken });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Only a user can reset its own MFA; this token is an API client');
  });

  it('answers 400 to a user while the organization has MFA disabled', async () => {
    const id = await service.createUser();
    await updateUserAttributes(service.organizationId, id, { totpSecret: TOTP });
    const response = await service.call<ApiError>('PUT', '/idp/me/resetMfa', {
      token: await service.userToken(id),
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('The organization does not use multi-factor authentication');
    expect(await totpOf(service.organizationId, id)).toBe(TOTP);
  });
});

describe('GET /me/ui-permissions', () => {
  it("reports the UI access types and plugin actions of the user's roles", async () => {
    const id = await service.createUser();
    const role = await putTestRole(service.organizationId, {
      permissions: ['UI.USERS', 'UI.ROLES', 'USER.LIST'],
      pluginPermissions: { reports: ['EXPORT', 'VIEW'] },
    });
    expect(
      (await service.call('PUT', `/idp/users/${id}/roles/${role.id}/grant`, { token: service.admin.token }))
        .status,
    ).toBe(204);
    const response = await service.call<{
      uiPermissions: string[];
      pluginsUIPermissions: Record<string, string[]>;
    }>('GET', '/idp/me/ui-permissions', { token: await service.userToken(id) });
    expect(response.status).toBe(200);
    expect(response.body.uiPermissions.sort()).toEqual(['ROLES', 'USERS']);
    expect(response.body.pluginsUIPermissions).toEqual({ reports: ['EXPORT', 'VIEW'] });
  });

  it('is empty for a user without grants', async () => {
    const id = await service.createUser();
    const response = await service.call('GET', '/idp/me/ui-permissions', {
      token: await service.userToken(id),
    });
    expect(response.body).toEqual({ uiPermissions: [], pluginsUIPermissions: {} });
  });
});

describe('tokens from before a new password', () => {
  it('refuses a token issued before the password was reset or changed, not one issued after', async () => {
    const id = await service.createUser();
    // A thief's token of a sign-in a while ago, still within its 900 s.
    const stolen = await service.userToken(id, service.organizationId, Date.now() - 60_000);
    const rename = (token: string) =>
      service.call<ApiError>('PUT', `/idp/users/${id}`, { token, body: { name: 'Renamed' } });
    // Positive control: it acts until the password changes.
    expect((await rename(stolen)).status).toBe(200);
    // A second later (a token of the very second of a new password stands: iat is whole seconds),
    // the owner resets the password: what the reset link's form stores.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await updateUserAttributes(service.organizationId, id, { credentialsChangedAt: Date.now() });
    const refused = await rename(stolen);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe(
      "This token was issued before the person's earlier sign-ins were ended (a new password, a deactivation or a sign-out everywhere); sign in again",
    );
    // A sign-in after the new password acts.
    expect((await rename(await service.userToken(id))).status).toBe(200);
  });
});

describe('tokens of deactivated users', () => {
  it('refuses a token issued before the deactivation with 401, also after reactivation; a new one acts', async () => {
    const id = await service.createUser();
    const userToken = await service.userToken(id);
    expect((await service.call('GET', '/idp/me/ui-permissions', { token: userToken })).status).toBe(200);
    expect(
      (await service.call('PUT', `/idp/users/${id}`, { token: userToken, body: { name: 'Still me' } }))
        .status,
    ).toBe(200);

    // A second later (a token of the very second a deactivation ends sign-ins stands: iat is whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const deactivate = await service.call('PUT', `/idp/users/${id}/setUserStatus`, {
      token: service.admin.token,
      body: { userStatus: 'INACTIVE' },
    });
    expect(deactivate.status).toBe(204);
    for (const [method, path, body] of [
      ['GET', '/idp/me/ui-permissions', undefined],
      ['PUT', `/idp/users/${id}`, { name: 'Sneaky' }],
      ['GET', '/idp/additionalUserProperties', undefined],
    ] as const) {
      const response = await service.call<ApiError>(method, path, {
        token: userToken,
        ...(body ? { body } : {}),
      });
      expect(response.status).toBe(401);
      expect(response.body.message).toBe('The principal of this token is no longer active');
    }
    expect((await getUser(service.organizationId, id, true))?.name).toBe('Still me');
    await expect(service.userToken(id)).rejects.toThrow('Only an ACTIVE user');

    await service.call('PUT', `/idp/users/${id}/setUserStatus`, {
      token: service.admin.token,
      body: { userStatus: 'ACTIVE' },
    });
    // The deactivation ended the person's earlier sign-ins (as at UserInfo and introspection): the
    // old token stays refused, a token of a sign-in after the reactivation acts.
    expect((await service.call('GET', '/idp/me/ui-permissions', { token: userToken })).status).toBe(401);
    const fresh = await service.userToken(id);
    expect((await service.call('GET', '/idp/me/ui-permissions', { token: fresh })).status).toBe(200);
  });
});

describe('tokens of users whose type changed', () => {
  it('refuses a STANDARD token of a user made RESTRICTED with 401; a new one acts as RESTRICTED', async () => {
    const id = await service.createUser();
    const standardToken = await service.userToken(id);
    const rename = (token: string) =>
      service.call<ApiError>('PUT', `/idp/users/${id}`, { token, body: { name: 'Still me' } });
    // Positive control: the token acts while the user is STANDARD.
    expect((await rename(standardToken)).status).toBe(200);
    const changed = await service.call('PUT', `/idp/users/${id}/userType/RESTRICTED`, {
      token: service.admin.token,
    });
    expect(changed.status).toBe(204);
    const refused = await rename(standardToken);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe("The user's type changed since this token was issued; sign in again");
    expect((await rename(await service.userToken(id))).status).toBe(200);
  });
});
