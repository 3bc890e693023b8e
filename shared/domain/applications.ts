import { BlockList, isIP } from 'node:net';

/**
 * What an API client registers beyond the spec (issue "people sign in"): the OAuth flow it uses,
 * and for applications people sign in to, where the browser may be sent back and how the client
 * authenticates at the token endpoint (RFC 7591's names). Pure rules, shared by the request
 * schema, the store and the endpoints.
 */
export const FLOW_TYPES = ['api_key', 'authorization_code'] as const;
export type FlowType = (typeof FLOW_TYPES)[number];

export const TOKEN_ENDPOINT_AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'none',
  'private_key_jwt',
] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/**
 * What an application's ID tokens are signed with (OpenID Connect Registration's
 * `id_token_signed_response_alg`): RS256 first, the default, which OpenID Connect Core 15.1 and
 * Discovery 3 make every provider offer; ES256 as well, with shorter keys and signatures.
 */
export const ID_TOKEN_SIGNING_ALGORITHMS = ['RS256', 'ES256'] as const;
export type IdTokenSigningAlgorithm = (typeof ID_TOKEN_SIGNING_ALGORITHMS)[number];

export const IMPLICIT_REFUSED =
  'The implicit flow is not offered: it hands tokens over in the URL (OAuth 2.0 Security BCP). ' +
  'Register an authorization_code application (PKCE is required); a browser application uses ' +
  'tokenEndpointAuthMethod none.';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A host where plain `http` is acceptable: this machine only (RFC 8252 7.3). */
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname);

/**
 * Why a redirect URI cannot be registered, or undefined when it can: an absolute https URI
 * without a fragment (RFC 6749 3.1.2), `http` only on a loopback host (RFC 8252 7.3), compared
 * later character for character (no wildcards, no partial matches).
 */
export const redirectUriProblem = (uri: string): string | undefined => {
  if (!URL.canParse(uri)) return 'Must be an absolute URI';
  const url = new URL(uri);
  if (url.hash || uri.includes('#')) return 'Must not contain a fragment';
  if (url.username || url.password) return 'Must not contain credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'Must use https (http only on a loopback host: 127.0.0.1, [::1] or localhost)';
};

/** The origin a registered redirect URI belongs to: browser applications call from it (CORS). */
export const originOf = (uri: string): string => new URL(uri).origin;

/** Why a CIDR block (or single address) cannot be registered, or undefined. */
export const addressRangeProblem = (range: string): string | undefined => {
  const [address = '', prefix, ...rest] = range.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return 'Must be an IPv4 or IPv6 address or CIDR block';
  if (prefix === undefined) return undefined;
  const bits = Number(prefix);
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(prefix) && bits <= max ? undefined : `Prefix length must be 0 to ${max}`;
};

/** Whether `address` lies in one of the registered ranges (no ranges: any address). */
export const addressAllowed = (ranges: readonly string[] | undefined, address: string): boolean => {
  if (!ranges || ranges.length === 0) return true;
  const family = isIP(address);
  if (family === 0) return false;
  const allowed = new BlockList();
  for (const range of ranges) {
    const [network = '', prefix] = range.split('/');
    const type = isIP(network) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) allowed.addAddress(network, type);
    else allowed.addSubnet(network, Number(prefix), type);
  }
  return allowed.check(address, family === 6 ? 'ipv6' : 'ipv4');
};
