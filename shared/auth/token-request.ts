import { CLIENT_ASSERTION_TYPE } from '../domain/client-keys.js';
import { MAX_REQUEST_BODY_BYTES } from '../http/body-limits.js';
import { assertedClientId } from './client-assertions.js';
import type { ClientProof } from './client-credentials.js';
import { OAuthError } from './oauth-error.js';

/** Client ids are identifiers of the API (letters, digits, `. _ : @ -`, at most 128 characters). */
export const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

export interface TokenRequestInput {
  headers: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
}

/**
 * Parameters a form may hold: far more than any request of these endpoints has, few enough that
 * reading them costs nothing whoever sends them (no client is known yet).
 */
export const MAX_FORM_PARAMETERS = 100;

/**
 * The token request's form: `application/x-www-form-urlencoded`, at most 1 MiB (or `limit`) and
 * {@link MAX_FORM_PARAMETERS} parameters, every parameter at most once; one without a value is
 * left out, as if omitted (RFC 6749 sections 3.1 and 3.2).
 */
export const tokenRequestForm = (
  request: TokenRequestInput,
  limit = { bytes: MAX_REQUEST_BODY_BYTES, said: '1 MiB' },
): URLSearchParams => {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
    throw new OAuthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
  }
  const bytes = Buffer.from(request.body ?? '', request.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.byteLength > limit.bytes) {
    throw new OAuthError(413, 'invalid_request', `The request body is larger than ${limit.said}`);
  }
  const form = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) {
    if (value === '') continue;
    if (form.has(name)) {
      throw new OAuthError(400, 'invalid_request', `The parameter ${JSON.stringify(name)} is repeated`);
    }
    if (form.size === MAX_FORM_PARAMETERS) {
      throw new OAuthError(400, 'invalid_request', `A request has at most ${MAX_FORM_PARAMETERS} parameters`);
    }
    form.append(name, value);
  }
  return form;
};

/** RFC 6749 2.3.1: the Basic credentials are form-urlencoded before base64. */
const basicCredentials = (authorization: string | undefined) => {
  const encoded = authorization?.match(/^Basic\s+(\S+)$/i)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) throw new OAuthError(401, 'invalid_client', 'Malformed Basic credentials');
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      throw new OAuthError(401, 'invalid_client', 'Malformed Basic credentials');
    }
  };
  return {
    clientId: decode(decoded.slice(0, separator)),
    clientSecret: decode(decoded.slice(separator + 1)),
  };
};

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';

/** Who the client says it is, and its secret or signed assertion (neither: a public application). */
export interface PresentedClient {
  clientId: string;
  clientSecret?: string;
  assertion?: string;
  method: ClientAuthMethod;
}

/**
 * A client assertion (RFC 7521 4.2): its type must be the JWT one; the client it names (`sub`)
 * is the client, and a `client_id` beside it must be the same.
 */
const presentedAssertion = (form: URLSearchParams, assertion: string | null): PresentedClient | undefined => {
  const type = form.get('client_assertion_type');
  if (type === null && assertion === null) return undefined;
  if (type !== CLIENT_ASSERTION_TYPE || !assertion) {
    throw new OAuthError(
      401,
      'invalid_client',
      `A client assertion needs client_assertion and client_assertion_type ${CLIENT_ASSERTION_TYPE}`,
    );
  }
  const clientId = assertedClientId(assertion);
  if (!clientId || !CLIENT_ID.test(clientId)) {
    throw new OAuthError(401, 'invalid_client', 'The client assertion is not a JWT naming a client (sub)');
  }
  const postedId = form.get('client_id');
  if (postedId !== null && postedId !== clientId) {
    throw new OAuthError(400, 'invalid_request', 'client_id does not match the client assertion');
  }
  return { clientId, assertion, method: 'private_key_jwt' };
};

/**
 * Who the client says it is and how it proves it: HTTP Basic, the form's secret, or a signed
 * assertion (private_key_jwt), never two; or, for a public application, `client_id` alone
 * (`none`). A client id that no client can have is refused here, without asking the table.
 */
export const presentedClient = (
  form: URLSearchParams,
  authorization: string | undefined,
): PresentedClient => {
  const basic = basicCredentials(authorization);
  const postedId = form.get('client_id');
  const postedSecret = form.get('client_secret');
  const assertion = form.get('client_assertion');
  if (
    [basic, postedSecret, assertion ?? form.get('client_assertion_type')].filter((m) => m != null).length > 1
  ) {
    throw new OAuthError(400, 'invalid_request', 'Use one client authentication method, not two');
  }
  const asserted = presentedAssertion(form, assertion);
  if (asserted) return asserted;
  if (basic && postedId !== null && postedId !== basic.clientId) {
    throw new OAuthError(400, 'invalid_request', 'client_id does not match the Basic credentials');
  }
  const clientId = basic?.clientId ?? postedId;
  const clientSecret = basic?.clientSecret ?? postedSecret;
  if (!clientId) throw new OAuthError(401, 'invalid_client', 'Client credentials are required');
  if (!CLIENT_ID.test(clientId)) throw new OAuthError(401, 'invalid_client', 'Client authentication failed');
  if (!clientSecret) return { clientId, method: 'none' };
  return { clientId, clientSecret, method: basic ? 'client_secret_basic' : 'client_secret_post' };
};

/**
 * The client a request names, when it names one well-formed id (for the record of a refusal that
 * comes before authentication); undefined for anything else. Never throws.
 */
export const namedClientId = (
  form: URLSearchParams,
  authorization: string | undefined,
): string | undefined => {
  try {
    return presentedClient(form, authorization).clientId;
  } catch {
    return undefined;
  }
};

/** What the client presented to prove itself: its secret or its assertion; undefined for none. */
export const proofOf = (presented: PresentedClient): ClientProof | undefined =>
  presented.assertion !== undefined ? { assertion: presented.assertion } : presented.clientSecret;

/** The client's id and its proof, both required (client credentials grant). */
export const clientCredentialsOf = (form: URLSearchParams, authorization: string | undefined) => {
  const presented = presentedClient(form, authorization);
  const proof = proofOf(presented);
  if (!proof) throw new OAuthError(401, 'invalid_client', 'Client credentials are required');
  return { clientId: presented.clientId, proof, usedBasic: presented.method === 'client_secret_basic' };
};
