import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { reloadConfig } from '../../shared/config.js';
import { clearCookie, cookieName, readCookie, setCookie } from '../../shared/pages/cookies.js';
import {
  browserBinding,
  csrfHolds,
  csrfToken,
  formOf,
  secureCookies,
  sessionCsrfHolds,
  sessionCsrfToken,
} from '../../shared/pages/forms.js';
import { digestOf } from '../../shared/store/opaque-values.js';

/**
 * The hosted pages' cookies, forms and CSRF checks: the browser binding cookie, and the form token
 * derived from it (or from the session cookie) that a page of another site cannot compute.
 */

const FORM_TYPE = 'application/x-www-form-urlencoded';

const eventOf = (options: {
  cookies?: string[];
  body?: string;
  type?: string;
  isBase64Encoded?: boolean;
}): APIGatewayProxyEventV2 =>
  ({
    headers: options.type === undefined ? {} : { 'content-type': options.type },
    cookies: options.cookies,
    body: options.body,
    isBase64Encoded: options.isBase64Encoded ?? false,
  }) as unknown as APIGatewayProxyEventV2;

/** Deployed behind https the cookies are `__Host-` and `Secure`; `npm start` serves plain http. */
const servedFrom = (origin: string) => {
  process.env.IDP_ISSUER = origin;
  reloadConfig();
};

afterEach(() => {
  process.env.IDP_ISSUER = 'http://localhost';
  reloadConfig();
});

describe('cookies', () => {
  it('are HttpOnly, SameSite=Lax and for the whole site; Secure and __Host- on https', () => {
    expect(setCookie('session', 'v1', false)).toBe('idp-session=v1; Path=/; HttpOnly; SameSite=Lax');
    expect(setCookie('browser', 'v2', true, 60)).toBe(
      '__Host-idp-browser=v2; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=60',
    );
    expect(clearCookie('session', true)).toBe(
      '__Host-idp-session=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0',
    );
    expect(cookieName('browser', false)).toBe('idp-browser');
    expect(cookieName('session', true)).toBe('__Host-idp-session');
  });

  it('are read by their exact name; an empty one is none', () => {
    const cookies = [
      'other=1',
      'idp-session-old=2',
      'idp-session=v1',
      '__Host-idp-session=v2',
      'idp-browser=',
    ];
    expect(readCookie(cookies, 'session', false)).toBe('v1');
    expect(readCookie(cookies, 'session', true)).toBe('v2');
    expect(readCookie(cookies, 'browser', false)).toBeUndefined();
    expect(readCookie(undefined, 'session', false)).toBeUndefined();
    // On https only the prefixed cookie counts: a subdomain can plant the plain name.
    expect(readCookie(['idp-session=planted'], 'session', true)).toBeUndefined();
  });
});

describe('forms', () => {
  it('read a url-encoded body, plain or base64', () => {
    expect(formOf(eventOf({ type: FORM_TYPE, body: 'a=1&b=2' }))?.get('b')).toBe('2');
    expect(formOf(eventOf({ type: `${FORM_TYPE}; charset=UTF-8`, body: 'a=1' }))?.get('a')).toBe('1');
    expect(formOf(eventOf({ type: `${FORM_TYPE} ;charset=UTF-8`, body: 'a=1' }))?.get('a')).toBe('1');
    const encoded = Buffer.from('a=%C3%A9').toString('base64');
    expect(formOf(eventOf({ type: FORM_TYPE, body: encoded, isBase64Encoded: true }))?.get('a')).toBe('é');
    expect([...(formOf(eventOf({ type: FORM_TYPE })) ?? new URLSearchParams('x=1')).keys()]).toEqual([]);
  });

  it.each([
    ['no content type', undefined],
    ['JSON', 'application/json'],
    ['a form type as a parameter', 'text/plain; x=application/x-www-form-urlencoded'],
    ['a longer type name', 'application/x-www-form-urlencodedx'],
    ['a longer type name with parameters', 'application/x-www-form-urlencoded2; charset=UTF-8'],
    ['a type with a space inside', 'application/x-www-form-urlencoded x'],
  ])('are not read from %s', (_case, type) => {
    expect(formOf(eventOf({ type, body: 'a=1' }))).toBeUndefined();
  });

  it('are read up to 64 KiB', () => {
    const exactly = `a=${'x'.repeat(64 * 1024 - 2)}`;
    expect(formOf(eventOf({ type: FORM_TYPE, body: exactly }))?.get('a')).toHaveLength(64 * 1024 - 2);
    expect(formOf(eventOf({ type: FORM_TYPE, body: `${exactly}x` }))).toBeUndefined();
  });
});

describe('the browser binding and its CSRF token', () => {
  it('keeps the binding cookie the browser has, and sets a new one otherwise', () => {
    expect(browserBinding(eventOf({ cookies: ['idp-browser=mine'] }))).toEqual({
      value: 'mine',
      cookies: [],
    });
    const fresh = browserBinding(eventOf({}));
    expect(fresh.value).toMatch(/^[\w-]{43}$/);
    expect(fresh.cookies).toEqual([setCookie('browser', fresh.value, false)]);
  });

  it('sets it Secure and __Host- when served over https', () => {
    servedFrom('https://id.example.com');
    expect(secureCookies()).toBe(true);
    const fresh = browserBinding(eventOf({ cookies: ['idp-browser=planted'] }));
    expect(fresh.value).not.toBe('planted');
    expect(fresh.cookies).toEqual([setCookie('browser', fresh.value, true)]);
    servedFrom('http://localhost:3000');
    expect(secureCookies()).toBe(false);
  });

  it("holds for a form carrying the token of this browser's binding only", () => {
    const form = (csrf?: string) => new URLSearchParams(csrf === undefined ? {} : { csrf });
    const browser = eventOf({ cookies: ['idp-browser=binding-1'] });
    // Positive control: the token of this browser's own binding.
    expect(csrfToken('binding-1')).toBe(digestOf('binding-1'));
    expect(csrfHolds(browser, form(csrfToken('binding-1')))).toBe(true);
    // Another browser's token, its prefix, none, or no binding cookie at all.
    expect(csrfHolds(browser, form(csrfToken('binding-2')))).toBe(false);
    expect(csrfHolds(browser, form(csrfToken('binding-1').slice(0, -1)))).toBe(false);
    expect(csrfHolds(browser, form())).toBe(false);
    expect(csrfHolds(eventOf({}), form(csrfToken('')))).toBe(false);
    expect(csrfHolds(eventOf({}), form(''))).toBe(false);
    expect(csrfHolds(eventOf({}), form('undefined'))).toBe(false);
  });

  it("holds for a sign-out form carrying the token of this browser's session only", () => {
    const form = (csrf: string) => new URLSearchParams({ csrf });
    const session = eventOf({ cookies: ['idp-session=session-1', 'idp-browser=binding-1'] });
    // The form token is not the digest the table keys sessions by.
    expect(sessionCsrfToken('session-1')).toBe(digestOf('csrf:session-1'));
    expect(sessionCsrfHolds(session, form(sessionCsrfToken('session-1')))).toBe(true);
    expect(sessionCsrfHolds(session, form(sessionCsrfToken('session-2')))).toBe(false);
    expect(sessionCsrfHolds(session, form(digestOf('session-1')))).toBe(false);
    // The binding's token is no session token.
    expect(sessionCsrfHolds(session, form(csrfToken('binding-1')))).toBe(false);
    expect(sessionCsrfHolds(eventOf({ cookies: ['idp-browser=binding-1'] }), form(''))).toBe(false);
  });
});
