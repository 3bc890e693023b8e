import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditTrail } from '../../support/audit.js';
import type { BrowserSession } from '../../support/browser-session.js';
import { beforeTransaction, type SentItems } from '../../support/interleave.js';
import { type ApiError, putTestRole, useService } from '../../support/service.js';
import {
  exchange,
  newApplication,
  personWithPassword,
  relyingParty,
  signIn,
} from '../../support/sign-in-flow.js';

/** Signing a user out everywhere: `PUT /idp/users/{id}/endSessions` and `PUT /idp/me/endSessions`. */
// The service runs in this process: no caching of principal standing, so an ended token shows at once.
process.env.IDP_PRINCIPAL_CACHE_SECONDS = '0';

const service = useService();
let configuration: oidc.Configuration;

beforeAll(async () => {
  const application = await newApplication(service);
  configuration = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
});

interface SignedInPerson {
  id: string;
  email: string;
  browser: BrowserSession;
  refreshToken: string;
  accessToken: string;
}

/** A person signed in to the application: their browser's session, refresh token and access token. */
const signedInPerson = async (label: string): Promise<SignedInPerson> =>
  signInAgain(await personWithPassword(service, label));

const signInAgain = async (person: { id: string; email: string }): Promise<SignedInPerson> => {
  const flow = await signIn(service, configuration, { email: person.email });
  const tokens = await exchange(configuration, flow);
  return {
    ...person,
    browser: flow.browser,
    refreshToken: tokens.refresh_token as string,
    accessToken: tokens.access_token,
  };
};

const refreshes = async (person: SignedInPerson) => {
  try {
    const next = await oidc.refreshTokenGrant(configuration, person.refreshToken);
    person.refreshToken = next.refresh_token ?? person.refreshToken;
    return true;
  } catch (error) {
    if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant') return false;
    throw error;
  }
};

/** What each of the person's sign-ins still does. */
const signInsOf = async (person: SignedInPerson) => ({
  session: Boolean(
    (
      await signIn(service, configuration, {
        email: person.email,
        browser: person.browser,
        extra: { prompt: 'none' },
      })
    ).location?.searchParams.get('code'),
  ),
  refresh: await refreshes(person),
  userInfo: (
    await fetch(`${service.baseUrl}/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${person.accessToken}` },
    })
  ).status,
});

const SIGNED_IN = { session: true, refresh: true, userInfo: 200 };
const SIGNED_OUT = { session: false, refresh: false, userInfo: 401 };

/**
 * An access token's `iat` is in whole seconds, so one issued in the second of an ending is given
 * the benefit of the doubt (docs/behaviour.md): the tests end sessions a second later.
 */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));

const endSessions = (userId: string, token = service.admin.token) =>
  service.call<ApiError>('PUT', `/idp/users/${userId}/endSessions`, { token });

describe('PUT /idp/users/{id}/endSessions', () => {
  it("ends the person's session, refresh token and access token, and no one else's; the password stays", async () => {
    const [person, bystander] = await Promise.all([signedInPerson('ended'), signedInPerson('bystander')]);
    expect(await signInsOf(person)).toEqual(SIGNED_IN);
    expect(await signInsOf(bystander)).toEqual(SIGNED_IN);
    await nextSecond();

    const ended = await endSessions(person.id);
    expect(ended.status).toBe(204);
    expect(ended.body).toBeUndefined();
    expect(await signInsOf(person)).toEqual(SIGNED_OUT);
    expect(await signInsOf(bystander)).toEqual(SIGNED_IN);
    // The person signs in again with their password.
    const again = await signIn(service, configuration, { email: person.email });
    expect(again.location?.searchParams.get('code')).toBeTruthy();

    const records = await auditTrail(service.organizationId, {
      action: 'user.sessions.ended',
      targetId: person.id,
    });
    expect(records).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'client', id: service.clientId }),
        targets: [{ type: 'user', id: person.id, name: person.email }],
        outcome: 'success',
      }),
    ]);
    expect(records[0]).not.toHaveProperty('changes');
  });

  it("answers 404 for another organization's user, whose sign-ins stay", async () => {
    const person = await signedInPerson('foreign');
    const foreignAdmin = await service.freshOrganization();
    await nextSecond();
    const refused = await endSessions(person.id, foreignAdmin.token);
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe('User not found');
    expect(await signInsOf(person)).toEqual(SIGNED_IN);
  });

  it('lets a person holding USER.UPDATE sign themselves out through their id with a sign-in of hours ago', async () => {
    const person = await signedInPerson('self-by-id');
    const updater = await putTestRole(service.organizationId, { permissions: ['USER.UPDATE'] });
    expect(
      (
        await service.call('PUT', `/idp/users/${person.id}/roles/${updater.id}/grant`, {
          token: service.admin.token,
        })
      ).status,
    ).toBe(204);
    const hoursAgo = await service.userToken(person.id, service.organizationId, Date.now() - 3 * 3600_000);
    // Control: the same token may not take its owner's second factor (RFC 9470 step-up).
    const stepUp = await service.call<ApiError>('PUT', `/idp/users/${person.id}/resetMfa`, {
      token: hoursAgo,
    });
    expect(stepUp.status).toBe(401);
    expect(stepUp.body.message).toMatch(/needs a sign-in of the last 5 minutes/);
    await nextSecond();
    expect((await endSessions(person.id, hoursAgo)).status).toBe(204);
    expect(await signInsOf(person)).toEqual(SIGNED_OUT);
  });
});

describe('an ending and a deactivation at once', () => {
  const setStatus = (id: string, userStatus: 'ACTIVE' | 'INACTIVE') =>
    service.call('PUT', `/idp/users/${id}/setUserStatus`, {
      token: service.admin.token,
      body: { userStatus },
    });

  it("never moves the end of a person's sign-ins back: a deactivation committed meanwhile stands", async () => {
    const person = await personWithPassword(service, 'raced');
    await nextSecond();
    let during: SignedInPerson | undefined;
    const isEnding = (items: SentItems) =>
      items.some((item) =>
        JSON.stringify(item.Update ?? {}).includes('credentialsChangedAt = :now, updatedAt'),
      );
    // Between the ending's time and its write: the person signs in, then is deactivated (later).
    const hook = beforeTransaction(isEnding, async () => {
      during = await signInAgain(person);
      await nextSecond();
      expect((await setStatus(person.id, 'INACTIVE')).status).toBe(204);
    });
    const ended = await endSessions(person.id);
    hook.stop();
    expect([hook.ran, ended.status]).toEqual([true, 204]);
    expect((await setStatus(person.id, 'ACTIVE')).status).toBe(204);
    // The deactivation ended the sign-in made before it, and reactivating brings none back.
    expect(await signInsOf(during as SignedInPerson)).toEqual(SIGNED_OUT);
    // The ending is recorded all the same: the person was signed out everywhere, and later.
    expect(
      await auditTrail(service.organizationId, { action: 'user.sessions.ended', targetId: person.id }),
    ).toHaveLength(1);
  });
});

describe('PUT /idp/me/endSessions', () => {
  it("signs the token's own user out everywhere, this token included, with no permission", async () => {
    const person = await signedInPerson('self');
    const own = await service.userToken(person.id, service.organizationId, Date.now() - 3 * 3600_000);
    await nextSecond();
    const ended = await service.call('PUT', '/idp/me/endSessions', { token: own });
    expect(ended.status).toBe(204);
    expect(await signInsOf(person)).toEqual(SIGNED_OUT);
    const again = await service.call<ApiError>('PUT', '/idp/me/endSessions', { token: own });
    expect(again.status).toBe(401);
    expect(again.body.message).toMatch(/sign-ins were ended \(.*a sign-out everywhere\)/);
    const [record] = await auditTrail(service.organizationId, {
      action: 'user.sessions.ended',
      targetId: person.id,
    });
    expect(record?.actor).toMatchObject({ type: 'user', id: person.id });
  });

  it('answers 400 to an API client', async () => {
    const refused = await service.call<ApiError>('PUT', '/idp/me/endSessions', {
      token: service.admin.token,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Only a user can end its own sessions; this token is an API client');
  });
});
