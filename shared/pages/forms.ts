import { timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '../config.js';
import { digestOf, newOpaqueValue } from '../store/opaque-values.js';
import { readCookie, setCookie } from './cookies.js';

/**
 * What every hosted form needs: its body, the browser binding cookie and the CSRF check built
 * on it. The binding cookie is random and HttpOnly; a form carries its digest, which a page on
 * another site can neither read nor compute (OWASP's double-submit pattern, the cookie
 * `__Host-`-prefixed when deployed so no subdomain can plant one).
 */

export const secureCookies = (): boolean => config().publicOrigin.startsWith('https:');

const MAX_FORM_BYTES = 64 * 1024;

/** The url-encoded body of a form post; undefined for anything else or anything too large. */
export const formOf = (event: APIGatewayProxyEventV2): URLSearchParams | undefined => {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(event.headers['content-type'] ?? ''))
    return undefined;
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  return body.byteLength <= MAX_FORM_BYTES ? new URLSearchParams(body.toString('utf8')) : undefined;
};

/** The browser's binding cookie value, and the cookie to set when it had none yet. */
export const browserBinding = (event: APIGatewayProxyEventV2): { value: string; cookies: string[] } => {
  const secure = secureCookies();
  const existing = readCookie(event.cookies, 'browser', secure);
  if (existing) return { value: existing, cookies: [] };
  const value = newOpaqueValue();
  return { value, cookies: [setCookie('browser', value, secure)] };
};

export const csrfToken = (binding: string): string => digestOf(binding);

/**
 * The CSRF token of a form that acts on the browser's session (signing out): derived from the
 * session cookie, random and HttpOnly, so only a page of ours rendered for that very session can
 * carry it. Labelled, so it is not the digest the table keys the session by.
 */
export const sessionCsrfToken = (sessionCookie: string): string => digestOf(`csrf:${sessionCookie}`);

const tokenMatches = (form: URLSearchParams, expected: string | undefined): boolean => {
  const posted = Buffer.from(form.get('csrf') ?? '');
  const wanted = expected === undefined ? undefined : Buffer.from(expected);
  return wanted !== undefined && posted.length === wanted.length && timingSafeEqual(posted, wanted);
};

/** Whether a posted form carries the CSRF token of this browser's binding cookie. */
export const csrfHolds = (event: APIGatewayProxyEventV2, form: URLSearchParams): boolean => {
  const binding = readCookie(event.cookies, 'browser', secureCookies());
  return tokenMatches(form, binding ? csrfToken(binding) : undefined);
};

/** Whether a posted form carries the CSRF token of this browser's session cookie. */
export const sessionCsrfHolds = (event: APIGatewayProxyEventV2, form: URLSearchParams): boolean => {
  const session = readCookie(event.cookies, 'session', secureCookies());
  return tokenMatches(form, session ? sessionCsrfToken(session) : undefined);
};

/** The client's address as API Gateway saw it (never a forwarded header, which anyone can send). */
export const clientAddress = (event: APIGatewayProxyEventV2): string => event.requestContext.http.sourceIp;
