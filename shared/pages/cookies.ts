/**
 * The hosted pages' cookies: `HttpOnly`, `SameSite=Lax`, path `/`; deployed (an https origin)
 * also `Secure` with the `__Host-` prefix, which a browser accepts only from a secure origin for
 * the exact host, so no subdomain can plant one. Locally (plain http) the prefix cannot be used.
 */

/** `passkey-prompt`: this browser's person declined to add a passkey (asked again later). */
export type CookieName = 'session' | 'browser' | 'passkey-prompt';

const BASE_NAMES: Record<CookieName, string> = {
  session: 'idp-session',
  browser: 'idp-browser',
  'passkey-prompt': 'idp-passkey-prompt',
};

export const cookieName = (name: CookieName, secure: boolean): string =>
  secure ? `__Host-${BASE_NAMES[name]}` : BASE_NAMES[name];

export const setCookie = (name: CookieName, value: string, secure: boolean, maxAgeSeconds?: number): string =>
  [
    `${cookieName(name, secure)}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
    ...(maxAgeSeconds === undefined ? [] : [`Max-Age=${maxAgeSeconds}`]),
  ].join('; ');

export const clearCookie = (name: CookieName, secure: boolean): string => setCookie(name, '', secure, 0);

/** A cookie's value from payload format 2.0's `cookies` (`name=value` each). */
export const readCookie = (cookies: readonly string[] | undefined, name: CookieName, secure: boolean) => {
  const prefix = `${cookieName(name, secure)}=`;
  const found = cookies?.find((cookie) => cookie.startsWith(prefix))?.slice(prefix.length);
  return found || undefined;
};
