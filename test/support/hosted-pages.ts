import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { expect } from 'vitest';
import { withAuditScope } from '../../shared/audit/scope.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { openTotpSecret } from '../../shared/auth/totp-sealing.js';
import { base32Decode, hotp, totpStep } from '../../shared/domain/totp.js';
import { actorOfRequest } from '../../shared/http/audit-actor.js';
import { issueResetLink, livePasswordLink, setPasswordWithLink } from '../../shared/store/credentials.js';
import { keys } from '../../shared/store/keys.js';
import { configureSsoProvider } from '../../shared/store/sso-provider-repository.js';
import { createUser, getUser, type UserRecord } from '../../shared/store/user-repository.js';
import { hiddenField } from './browser-session.js';
import { createTestApplication, createTestOrganization, getItem, shortId, uniqueEmail } from './records.js';

/**
 * The hosted sign-in pages' handlers called in process, without a server: a browser that keeps
 * its cookies and posts forms as API Gateway would hand them over (payload format 2.0). For int
 * tests of the sign-in state and steps; the e2e and browser tests go through HTTP.
 */

export type Page = APIGatewayProxyStructuredResultV2;
type Handler = (event: APIGatewayProxyEventV2) => Promise<Page>;

export const REDIRECT = 'https://app.example/callback';
export const AFTER_LOGOUT = 'https://app.example/signed-out';
export const PASSWORD = 'correct horse battery staple';
export const USER_AGENT = 'PagesBrowser/1.0';
/** A PKCE verifier and its S256 challenge (RFC 7636 appendix B). */
export const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

let addresses = 0;

export class PagesBrowser {
  readonly cookies = new Map<string, string>();
  /** Each browser comes from its own address, so attempt counts per address stay its own. */
  readonly sourceIp = `198.51.100.${++addresses % 250}`;

  event(options: {
    query?: Record<string, string>;
    form?: Record<string, string>;
    pathParameters?: Record<string, string>;
  }): APIGatewayProxyEventV2 {
    return {
      version: '2.0',
      rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
      headers: options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
      cookies: [...this.cookies].map(([name, value]) => `${name}=${value}`),
      ...(options.form ? { body: new URLSearchParams(options.form).toString() } : {}),
      isBase64Encoded: false,
      ...(options.pathParameters ? { pathParameters: options.pathParameters } : {}),
      requestContext: { http: { sourceIp: this.sourceIp, userAgent: USER_AGENT }, requestId: 'request' },
    } as unknown as APIGatewayProxyEventV2;
  }

  /** Hands the event to the handler, in the audit scope the group handler opens, and keeps the cookies its answer sets. */
  async open(handler: Handler, options: Parameters<PagesBrowser['event']>[0] = {}): Promise<Page> {
    const event = this.event(options);
    const page = await withAuditScope(
      { actor: actorOfRequest(event), requestId: event.requestContext.requestId },
      () => handler(event),
    );
    for (const cookie of page.cookies ?? []) {
      const [pair = ''] = cookie.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      if (value === '' || /max-age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return page;
  }

  get(handler: Handler, query: Record<string, string>, pathParameters?: Record<string, string>) {
    return this.open(handler, { query, ...(pathParameters ? { pathParameters } : {}) });
  }

  post(handler: Handler, form: Record<string, string>) {
    return this.open(handler, { form });
  }
}

/** The body of a page as text. */
export const textOf = (page: Page): string => String(page.body ?? '');

export const requestIdOf = (page: Page): string => {
  const id = hiddenField(textOf(page), 'request');
  if (!id) throw new Error(`No pending request on the page: ${textOf(page).slice(0, 300)}`);
  return id;
};

export const locationOf = (page: Page): URL => {
  const location = page.headers?.location;
  if (typeof location !== 'string') throw new Error(`Not a redirect: ${page.statusCode} ${textOf(page)}`);
  return new URL(location, 'https://idp.invalid');
};

/** The message of an error page, or the alert of a form page. */
export const alertOf = (page: Page): string | undefined =>
  /role="alert">([^<]*)</.exec(textOf(page))?.[1]?.replaceAll('&#39;', "'");

/** An authorization request of the application, with `extra` parameters. */
export const authorizationQuery = (clientId: string, extra: Record<string, string> = {}) => ({
  client_id: clientId,
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid email',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  state: 'state-1',
  nonce: 'nonce-1',
  ...extra,
});

/** An organization, an application people sign in to, and a person with a password. */
export const signInSetup = async (options: { mfaEnabled?: boolean; name?: string } = {}) => {
  const organization = await createTestOrganization({
    mfaEnabled: options.mfaEnabled ?? false,
    ...(options.name ? { name: options.name } : {}),
  });
  const application = await createTestApplication(organization.id, {
    name: 'Sign-in app',
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [AFTER_LOGOUT],
  });
  const user = await personWithPassword(organization.id);
  return { organization, application, user };
};

/** One hash per password and file: scrypt is the slowest step of making a person. */
const hashes = new Map<string, Promise<string>>();
const hashOf = (password: string) => {
  const hash = hashes.get(password) ?? hashPassword(password);
  hashes.set(password, hash);
  return hash;
};

/** A person of the organization who set `password` through their invitation. */
export const personWithPassword = async (
  organizationId: string,
  password = PASSWORD,
  email = uniqueEmail('person'),
): Promise<UserRecord> => {
  const { user, joinEmail } = await createUser({
    organizationId,
    email,
    name: 'Person',
    userType: 'STANDARD',
    createdBy: 'test',
  });
  const live = await livePasswordLink(joinEmail.invitationToken);
  if (!live) throw new Error('The invitation is not live');
  const passwordHash = await hashOf(password);
  // The password is set a moment before the test signs in: sessions begin after it.
  const credentialsChangedAt = Date.now() - 1000;
  await setPasswordWithLink(joinEmail.invitationToken, live.link, passwordHash, credentialsChangedAt);
  return { ...user, passwordHash, credentialsChangedAt };
};

/** The TOTP key a pending sign-in offers its person, opened as the enrolment page shows it. */
export const pendingTotpSecret = async (request: string): Promise<string> => {
  const pending = await getItem(keys.authorizationRequest(request));
  const sealed = pending?.totpEnrolment;
  const opened =
    typeof sealed === 'string'
      ? await openTotpSecret(
          { organizationId: String(pending?.organizationId), userId: String(pending?.userId) },
          sealed,
        )
      : undefined;
  if (!opened) throw new Error(`The pending sign-in ${request} offers no TOTP key`);
  return opened;
};

/** The code an authenticator app holding `secret` shows at `now`. */
export const totpCodeAt = (secret: string, now = Date.now()) => hotp(base32Decode(secret), totpStep(now));

/** A person's stored TOTP secret, opened (undefined when they have none). */
export const storedTotpSecret = async (organizationId: string, userId: string) => {
  const sealed = (await getUser(organizationId, userId, true))?.totpSecret;
  return sealed === undefined ? undefined : openTotpSecret({ organizationId, userId }, sealed);
};

/** A fresh email domain, so that routing it to a provider touches no other test's people. */
export const uniqueDomain = () => `${shortId()}.example`;

/**
 * An SSO provider, "Workforce", that the organization's sign-in sends `domain`'s emails to
 * (home-realm discovery); its client id is `workforce-<domain>`.
 */
export const providerServing = (organizationId: string, domain: string) =>
  configureSsoProvider(
    {
      clientId: `workforce-${domain}`,
      organizationIds: [organizationId],
      clientSecret: 'upstream secret',
      issuer: `https://${domain}`,
      displayName: 'Workforce',
      emailDomains: [domain],
    },
    'test',
  );

/** The person sets a new password through a reset link (which ends their earlier sessions). */
export const resetPassword = async (user: UserRecord, password: string) => {
  const email = { organizationId: user.organizationId, userId: user.id, to: user.email, name: user.name };
  const reset = await issueResetLink(user, email, 3600);
  const live = reset && (await livePasswordLink(reset.token));
  if (!reset || !live) throw new Error('No live reset link');
  expect(await setPasswordWithLink(reset.token, live.link, await hashPassword(password))).toBe(true);
};
