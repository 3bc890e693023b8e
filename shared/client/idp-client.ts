import { IdpApiError, IdpNetworkError, IdpOAuthError, stepUpChallengeOf } from './errors.js';
import { OPERATIONS } from './operations.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryAfterSeconds, retryDelay } from './retry-policy.js';
import { DEFAULT_PACING, type Pacing, TokenBucket } from './token-bucket.js';
import type {
  OperationId,
  OperationInput,
  OperationMethods,
  OperationOutput,
  PagedOperationId,
} from './types.js';

export interface IdpClientOptions {
  /** The API's origin, e.g. `https://id.example.com`. */
  baseUrl: string;
  /** Client credentials: the client fetches, caches and renews its access token. */
  credentials?: { clientId: string; clientSecret: string };
  /**
   * Or a token from elsewhere (a person's, from sign-in), asked for on every request: the provider
   * keeps and renews its own token (the client cannot tell when a person's token expires).
   */
  tokenProvider?: () => Promise<string>;
  retry?: Partial<RetryPolicy>;
  /** Requests per second this client sends at most (false: no pacing). */
  pacing?: Partial<Pacing> | false;
  fetch?: typeof fetch;
  random?: () => number;
}

/** Renew a cached token this long before it expires. */
const RENEW_BEFORE_MILLIS = 60_000;

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

/** The `rel="next"` target of a `Link` header (RFC 8288), if any. */
export const nextLink = (header: string | null): string | undefined =>
  header
    ?.split(',')
    .map((part) => /<([^>]*)>\s*;\s*rel="?next"?/i.exec(part)?.[1])
    .find((url) => url !== undefined);

/**
 * A path parameter must stay one segment of its operation's path, whatever the caller's program
 * took it from: a dot segment is resolved by the URL parser before the request leaves (`..` as a
 * user id would name the operation one level up), and API Gateway decodes a path twice, so an
 * encoded `/` would become a separator there (and `%2F` in a value would become `/`). Such values
 * are refused before sending.
 */
const pathSegment = (name: string, value: unknown) => {
  const text = String(value ?? '');
  if (text === '' || text === '.' || text === '..' || /[/%]/.test(text)) {
    throw new TypeError(
      `Path parameter ${name} cannot be ${JSON.stringify(text.slice(0, 100))}: it must be one path segment, not empty, . or .., without / or %`,
    );
  }
  return encodeURIComponent(text);
};

const expand = (path: string, parameters: Record<string, unknown> = {}) =>
  path.replace(/\{([^}]+)\}/g, (_match, name: string) => pathSegment(name, parameters[name]));

const queryString = (query: Record<string, unknown> = {}) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

interface Attempt {
  method: string;
  url: string;
  body?: string | FormData;
  contentType?: string;
  /** A write not safe to repeat: its retries carry this key (one per logical call). */
  idempotencyKey?: string;
}

/**
 * A typed client of the management API: one method per operation, named after its operationId;
 * tokens fetched and renewed; calls paced by one token bucket and retried as the seed's section 8
 * says, writes only under an Idempotency-Key kept across their retries, so a retried write is
 * applied once. No dependency beyond `fetch`; Node 20+ and browsers.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor defines every method the merged interface declares.
export class IdpClient {
  readonly #options: IdpClientOptions;
  readonly #policy: RetryPolicy;
  readonly #bucket: TokenBucket | undefined;
  readonly #fetch: typeof fetch;
  #token: { value: string; renewAt: number } | undefined;
  #tokenRequest: Promise<string> | undefined;

  constructor(options: IdpClientOptions) {
    if (!options.credentials && !options.tokenProvider) {
      throw new TypeError('IdpClient needs credentials or a tokenProvider');
    }
    // `https://idp.example.com/` and `https://idp.example.com` alike: paths start with `/`.
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#bucket =
      options.pacing === false ? undefined : new TokenBucket({ ...DEFAULT_PACING, ...options.pacing });
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    for (const operation of Object.keys(OPERATIONS) as OperationId[]) {
      Object.defineProperty(this, operation, {
        value: (input?: object) => this.call(operation, input as never),
      });
    }
  }

  /** Calls one operation: its answer's body (a 204: its Location; a picture: a Blob). */
  async call<K extends OperationId>(operation: K, input?: OperationInput<K>): Promise<OperationOutput<K>> {
    return (await this.#read(operation, input as Record<string, unknown> | undefined))
      .output as OperationOutput<K>;
  }

  /** Every page of a listing, following `Link: <...>; rel="next"` until there is none. */
  async *pages<K extends PagedOperationId>(
    operation: K,
    input?: OperationInput<K>,
  ): AsyncGenerator<OperationOutput<K>> {
    let page = await this.#read(operation, input as Record<string, unknown> | undefined);
    yield page.output as OperationOutput<K>;
    const origin = new URL(this.#options.baseUrl).origin;
    const followed = new Set([new URL(page.url).href]);
    while (page.next) {
      const url = new URL(page.next, this.#options.baseUrl);
      // The token goes only where the client was pointed: a link elsewhere (another host, plain
      // http) comes from a hostile or misconfigured proxy; one read already would never end.
      if (url.origin !== origin) throw new Error(`The next page's link leaves ${origin}; not followed`);
      if (followed.has(url.href)) throw new Error("The next page's link names a page read already");
      followed.add(url.href);
      const response = await this.#send({ method: 'GET', url: url.href });
      page = {
        output: await this.#outputOf(response),
        next: nextLink(response.headers.get('link')),
        url: url.href,
      };
      yield page.output as OperationOutput<K>;
    }
  }

  async #read(operation: OperationId, input: Record<string, unknown> = {}) {
    const definition: { method: string; path: string; upload?: string; repeatable?: boolean } =
      OPERATIONS[operation];
    const url = `${this.#options.baseUrl}${expand(definition.path, input.path as Record<string, unknown>)}${queryString(input.query as Record<string, unknown>)}`;
    const attempt: Attempt = { method: definition.method, url };
    if (definition.upload && input.file instanceof Blob) {
      const form = new FormData();
      form.set(definition.upload, input.file, (input.filename as string | undefined) ?? 'upload');
      attempt.body = form;
    } else if (input.body !== undefined) {
      attempt.body = JSON.stringify(input.body);
      attempt.contentType = 'application/json';
    }
    if (!definition.repeatable) attempt.idempotencyKey = crypto.randomUUID();
    const response = await this.#send(attempt);
    return { output: await this.#outputOf(response), next: nextLink(response.headers.get('link')), url };
  }

  async #outputOf(response: Response): Promise<unknown> {
    if (response.status === 204) {
      const location = response.headers.get('location');
      return location ? { location } : {};
    }
    const type = response.headers.get('content-type') ?? '';
    return type.includes('json') ? response.json() : response.blob();
  }

  /** One logical call: paced attempts, retried as the policy says; a 401 renews the token once. */
  async #send(attempt: Attempt): Promise<Response> {
    let renewed = false;
    for (let retry = 0; ; retry++) {
      // The token first: the bucket's slot is then spent at once, so sends keep the pace.
      const token = await this.#accessToken();
      await this.#bucket?.take();
      let response: Response;
      try {
        response = await this.#fetch(attempt.url, {
          method: attempt.method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(attempt.contentType ? { 'content-type': attempt.contentType } : {}),
            ...(attempt.idempotencyKey ? { 'idempotency-key': attempt.idempotencyKey } : {}),
          },
          ...(attempt.body !== undefined ? { body: attempt.body } : {}),
          signal: AbortSignal.timeout(this.#policy.timeoutMillis),
        });
      } catch (error) {
        if (retry >= this.#policy.maxRetries) {
          throw new IdpNetworkError(
            `${attempt.method} ${attempt.url} failed after ${retry + 1} attempts`,
            error,
          );
        }
        await sleep(retryDelay(retry + 1, this.#policy, this.#options.random));
        continue;
      }
      // A step-up challenge is the person's to answer: a renewed token carries the same sign-in.
      const stepUp =
        response.status === 401 ? stepUpChallengeOf(response.headers.get('www-authenticate')) : undefined;
      if (response.status === 401 && !renewed && !stepUp) {
        renewed = true;
        // Only the token this attempt sent: another call may have renewed it already, and a late
        // 401 of the old token must not throw the new one away (one renewal, not one per call).
        if (this.#token?.value === token) this.#token = undefined;
        retry--;
        continue;
      }
      // A 409 with Retry-After is worth repeating (another change met, or this write's first
      // attempt still running under its Idempotency-Key); any other 409 is the caller's.
      const retryable =
        this.#policy.retryableStatuses.includes(response.status) ||
        (response.status === 409 && response.headers.has('retry-after'));
      if (retryable && retry < this.#policy.maxRetries) {
        const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
        await response.body?.cancel();
        await sleep(retryDelay(retry + 1, this.#policy, this.#options.random, retryAfter));
        continue;
      }
      if (!response.ok)
        throw new IdpApiError(response.status, await response.json().catch(() => undefined), stepUp);
      return response;
    }
  }

  /** The provider's token, or the cached one, or a new one (concurrent callers share one token request). */
  async #accessToken(): Promise<string> {
    if (this.#options.tokenProvider && !this.#options.credentials) return this.#options.tokenProvider();
    if (this.#token && Date.now() < this.#token.renewAt) return this.#token.value;
    this.#tokenRequest ??= this.#requestToken().finally(() => {
      this.#tokenRequest = undefined;
    });
    return this.#tokenRequest;
  }

  async #requestToken(): Promise<string> {
    const { clientId, clientSecret } = this.#options.credentials as {
      clientId: string;
      clientSecret: string;
    };
    for (let retry = 0; ; retry++) {
      let response: Response | undefined;
      try {
        response = await this.#fetch(`${this.#options.baseUrl}/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
          signal: AbortSignal.timeout(this.#policy.timeoutMillis),
        });
      } catch (error) {
        if (retry >= this.#policy.maxRetries) throw new IdpNetworkError('The token request failed', error);
      }
      if (
        response &&
        !(this.#policy.retryableStatuses.includes(response.status) && retry < this.#policy.maxRetries)
      ) {
        const body = (await response.json().catch(() => undefined)) as
          | { access_token?: string; expires_in?: number }
          | undefined;
        if (!response.ok || !body?.access_token) throw new IdpOAuthError(response.status, body);
        const lifetime = (body.expires_in ?? 3600) * 1000;
        this.#token = {
          value: body.access_token,
          renewAt: Date.now() + Math.max(lifetime - RENEW_BEFORE_MILLIS, lifetime / 2),
        };
        return body.access_token;
      }
      await response?.body?.cancel();
      await sleep(retryDelay(retry + 1, this.#policy, this.#options.random));
    }
  }
}

// The methods the constructor defines, typed from the route table.
export interface IdpClient extends OperationMethods {}
