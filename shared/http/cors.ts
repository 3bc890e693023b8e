import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ExpiringCache } from '../cache/expiring-cache.js';
import { config } from '../config.js';

/**
 * Cross-origin calls from browser applications (the management API, token, userinfo and
 * revocation endpoints). Allowed origins are those of registered applications' redirect URIs and
 * the operator's `IDP_CORS_ORIGINS`; every answer names the one origin it allows (never `*` for
 * anything but public documents) and never allows credentials: the API takes bearer tokens, not
 * cookies. Answered by the functions rather than API Gateway's CORS settings, which hold a list
 * fixed at deploy time and would drop the functions' own headers (docs/behaviour.md).
 */

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key';
/** What a browser application may read besides the CORS-safelisted response headers. */
const EXPOSED_HEADERS = 'location, link, retry-after, www-authenticate, apigw-requestid';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Whether an application registered this origin (the store's answer, passed in by the function). */
export type RegisteredOrigin = (origin: string) => Promise<boolean>;

const registered = new ExpiringCache<string, boolean>(1000);

/**
 * Longer than any origin a redirect URI can register (a 253-character host name, a scheme and a
 * port): refused before the lookup, whose partition key DynamoDB caps at 2,048 bytes (an
 * anonymous preflight must not make a 5xx).
 */
const MAX_ORIGIN_LENGTH = 300;

/** Whether browsers at `origin` may call the API. */
const originAllowed = async (origin: string, isRegistered: RegisteredOrigin): Promise<boolean> => {
  const { corsOrigins, corsCacheSeconds } = config();
  if (corsOrigins.includes(origin)) return true;
  if (origin.length > MAX_ORIGIN_LENGTH) return false;
  if (!URL.canParse(origin) || new URL(origin).origin !== origin) return false;
  return registered.get(origin, corsCacheSeconds * 1000, () => isRegistered(origin));
};

const originOf = (event: APIGatewayProxyEventV2): string | undefined => event.headers.origin;

/** `OPTIONS` from a browser: what the origin may send, or a 403 when it may not call at all. */
export const answerPreflight = async (
  event: APIGatewayProxyEventV2,
  isRegistered: RegisteredOrigin,
): Promise<APIGatewayProxyStructuredResultV2> => {
  const origin = originOf(event);
  if (!origin || !(await originAllowed(origin, isRegistered))) {
    return {
      statusCode: 403,
      headers: { vary: 'origin', 'content-type': 'text/plain' },
      body: 'Origin not allowed',
    };
  }
  return {
    statusCode: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
      vary: 'origin',
    },
    body: '',
  };
};

/**
 * The CORS headers of an actual response. Started beside the handler (the origin lookup is
 * usually cached), awaited when the response leaves. Without a lookup (a function serving only
 * public documents) every origin may read.
 */
export const corsHeadersFor = async (
  event: APIGatewayProxyEventV2,
  isRegistered: RegisteredOrigin | undefined,
): Promise<Record<string, string>> => {
  const origin = originOf(event);
  if (!origin) return {};
  if (!isRegistered) return { 'access-control-allow-origin': '*' };
  if (!(await originAllowed(origin, isRegistered).catch(() => false))) return { vary: 'origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary: 'origin',
  };
};
