import { beforeAll, describe, expect, it } from 'vitest';
import { s256 } from '../../shared/domain/authorization.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { issueAuthorizationCode } from '../../shared/store/sign-in-state.js';
import { createUser } from '../../shared/store/user-repository.js';
import { useDatabase } from '../support/database.js';
import { providerServing, REDIRECT, uniqueDomain } from '../support/hosted-pages.js';
import { postOAuthForm } from '../support/oauth-function.js';
import { createTestApplication, createTestOrganization, shortId } from '../support/records.js';

/**
 * SSO routing reaches the tokens of earlier sign-ins (docs/single-sign-on.md, "Routing by email
 * domain"): once a provider serves a person's email domain, a code or refresh token of a sign-in
 * that provider did not make issues nothing more. The token endpoint's handler is called in
 * process as API Gateway would; each code is issued as the sign-in steps issue one.
 */

useDatabase();

const VERIFIER = 'routed-refresh-verifier-'.padEnd(43, 'v');

let organizationId: string;
let app: { id: string; clientSecret: string };
beforeAll(async () => {
  await seedSystemData();
  organizationId = (await createTestOrganization()).id;
  app = await createTestApplication(organizationId, { redirectUris: [REDIRECT] });
});

const oauthRequest = async (path: string, form: Record<string, string>) => {
  const answer = await postOAuthForm(path, form, {
    authorization: `Basic ${btoa(`${app.id}:${app.clientSecret}`)}`,
  });
  return { status: answer.statusCode, body: JSON.parse(String(answer.body)) };
};

/** A person of the organization whose email is at a domain of its own. */
const personAt = async (domain: string) =>
  (
    await createUser({
      organizationId,
      email: `person-${shortId()}@${domain}`,
      name: 'Routed Person',
      userType: 'STANDARD',
      createdBy: 'test',
    })
  ).user;

/** A code of an offline sign-in by `userId`: a password's, or `provider`'s federated one. */
const codeOf = (userId: string, provider?: string) =>
  issueAuthorizationCode(
    {
      clientId: app.id,
      organizationId,
      userId,
      redirectUri: REDIRECT,
      codeChallenge: s256(VERIFIER),
      scope: 'openid offline_access',
      authTime: Date.now(),
      amr: provider ? ['fed'] : ['pwd'],
      ...(provider ? { provider } : {}),
    },
    60,
  );

const tokenRequest = (form: Record<string, string>) => oauthRequest('/oauth2/token', form);
const exchange = (code: string) =>
  tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER });
const refresh = (token: string) => tokenRequest({ grant_type: 'refresh_token', refresh_token: token });
/** Whether introspection (RFC 7662) calls the refresh token active, asked by its application. */
const active = async (token: string) => (await oauthRequest('/oauth2/introspect', { token })).body.active;

const refused = {
  status: 400,
  body: {
    error: 'invalid_grant',
    error_description: 'This person now signs in through Workforce; sign in again',
  },
};

describe('tokens of a person an SSO provider serves', () => {
  it("refuses a password sign-in's refresh once a provider serves the person's domain", async () => {
    const domain = uniqueDomain();
    const person = await personAt(domain);
    const first = await exchange(await codeOf(person.id));
    expect(first.status).toBe(200);
    // Positive control: the refresh token rotates while nothing routes the domain.
    const rotated = await refresh(first.body.refresh_token);
    expect(rotated.status).toBe(200);
    await providerServing(organizationId, domain);
    expect(await refresh(rotated.body.refresh_token)).toMatchObject(refused);
  });

  it('keeps refreshing the serving provider’s sign-in, through rotations, and refuses another provider’s', async () => {
    const domain = uniqueDomain();
    const person = await personAt(domain);
    // A provider's sign-in exists only once it serves the organization (else it has ended).
    await providerServing(organizationId, domain);
    const [serving, another] = await Promise.all([
      codeOf(person.id, `workforce-${domain}`).then(exchange),
      codeOf(person.id, 'another-provider').then(exchange),
    ]);
    expect(serving.status).toBe(200);
    const once = await refresh(serving.body.refresh_token);
    expect(once.status).toBe(200);
    expect((await refresh(once.body.refresh_token)).status).toBe(200);
    expect(another).toMatchObject(refused);
  });

  it('refuses a code of a password sign-in redeemed after routing began', async () => {
    const domain = uniqueDomain();
    const person = await personAt(domain);
    // Positive control: the same kind of code, redeemed before.
    expect((await exchange(await codeOf(person.id))).status).toBe(200);
    const code = await codeOf(person.id);
    await providerServing(organizationId, domain);
    expect(await exchange(code)).toMatchObject(refused);
  });

  it('answers introspection as the refresh grant would: inactive once routed around, active for the serving provider', async () => {
    const domain = uniqueDomain();
    const person = await personAt(domain);
    const password = await exchange(await codeOf(person.id));
    // Positive control: active while nothing routes the domain.
    expect(await active(password.body.refresh_token)).toBe(true);
    await providerServing(organizationId, domain);
    const serving = await exchange(await codeOf(person.id, `workforce-${domain}`));
    expect(await active(password.body.refresh_token)).toBe(false);
    expect(await active(serving.body.refresh_token)).toBe(true);
  });

  it("is unmoved by a provider that serves the domain for another organization's people", async () => {
    const domain = uniqueDomain();
    const person = await personAt(domain);
    const first = await exchange(await codeOf(person.id));
    await providerServing((await createTestOrganization()).id, domain);
    expect((await refresh(first.body.refresh_token)).status).toBe(200);
  });
});
