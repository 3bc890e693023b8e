import { decodeJwt } from 'jose';
import { afterAll, beforeAll } from 'vitest';
import { startLocalService } from '../../bin/local/service.js';
import { FileSecretStore } from '../../shared/auth/file-secret-store.js';
import { SIGNING_KEY_SECRETS } from '../../shared/auth/secret-store.js';
import { newSigningKeySet } from '../../shared/auth/signing-keys.js';
import { issueUserToken } from '../../shared/auth/token-service.js';
import { IdpClient } from '../../shared/client/index.js';
import { ALL_PERMISSION_IDS, type PermissionId } from '../../shared/domain/permission-catalogue.js';
import type { RateLimitSettings } from '../../shared/domain/rate-limit.js';
import { type Organization, updateOrganizationSettings } from '../../shared/store/organization-repository.js';
import { type ApiResponse, idFromLocation } from './api.js';
import { isolatedServiceDatabase } from './database.js';
import { OpenApiValidator } from './openapi-validator.js';
import { createTestClient, createTestOrganization, UNLIMITED, uniqueEmail } from './records.js';
import { makeTempDir, removeTempDir } from './temp-dir.js';

// The one module tests import their fixtures from.
export * from './api.js';
export { useDatabase } from './database.js';
export * from './groups.js';
export * from './records.js';
export * from './roles.js';
export * from './users.js';

/** Who calls the API: a token, the principal the service records (createdBy, ...), its organization. */
export interface Caller {
  token: string;
  principalId: string;
  orgId: string;
}

/** An API client holding one role of its own; its credentials fetch further tokens. */
export interface ClientCaller extends Caller {
  clientSecret: string;
  roleId: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  /** Sent as multipart/form-data. */
  form?: FormData;
  headers?: Record<string, string>;
}

export interface TestService {
  readonly baseUrl: string;
  /** The organization, administrator client and data directory the service bootstrapped. */
  readonly organizationId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly dataDirectory: string;
  /** The administrator client of `organizationId`. */
  readonly admin: Caller;
  /** Calls the API over HTTP and checks the answer against the served OpenAPI document. */
  call<T = unknown>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** The typed client (`idp/client`) as `as` (the admin by default), its answers checked the same way. */
  client(as?: Pick<Caller, 'token'>): IdpClient;
  /** The served OpenAPI document and the validator `call` checks answers with. */
  openApi(): Promise<{ document: unknown; validator: OpenApiValidator }>;
  /** The token endpoint's raw answer to a client-credentials request (the admin client's by default). */
  requestToken(clientId?: string, clientSecret?: string): Promise<Response>;
  /** A client-credentials access token (the admin client's unless told otherwise). */
  token(clientId?: string, clientSecret?: string): Promise<string>;
  /**
   * A user's access token, signed by the token service's own code, as if the person signed in at
   * `signedInAt` (epoch ms; by default now).
   */
  userToken(userId: string, organizationId?: string, signedInAt?: number): Promise<string>;
  /** Creates a user through the API (as the admin client unless told otherwise); answers its id. */
  createUser(options?: {
    email?: string;
    name?: string;
    userType?: 'STANDARD' | 'RESTRICTED';
    as?: Caller;
  }): Promise<string>;
  /** A new API client (of the service's organization unless told otherwise) holding exactly `permissions`. */
  callerWith(
    permissions: readonly PermissionId[],
    options?: { clientType?: 'STANDARD' | 'RESTRICTED'; organization?: string; name?: string },
  ): Promise<ClientCaller>;
  /** A new, empty organization and an administrator client of it: lists and counts start at zero. */
  freshOrganization(overrides?: Partial<Organization>): Promise<ClientCaller>;
  /** `freshOrganization()` with one user created there through the API. */
  freshOrganizationWithUser(overrides?: Partial<Organization>): Promise<ClientCaller & { user: NewUser }>;
}

export interface NewUser {
  id: string;
  email: string;
  name: string;
}

/** The caller a token belongs to, as its claims name it. */
const callerOf = (token: string): Caller => {
  const claims = decodeJwt(token);
  return { token, principalId: String(claims.sub), orgId: String(claims.org) };
};

const bodyOf = (options: CallOptions): RequestInit['body'] => {
  if (options.form) return options.form;
  if (options.rawBody !== undefined) return options.rawBody;
  return options.body === undefined ? undefined : JSON.stringify(options.body);
};

/**
 * An RSA key takes a few hundred milliseconds of CPU to make, and every service publishes one (its
 * JWKS): one RS256 key set per worker process, stored into each service's secrets before it
 * starts. ES256 keys cost next to nothing and are made by each service, as deployed.
 */
let workerRs256KeySet: Promise<string> | undefined;
const storeWorkerRs256Keys = async (dataDirectory: string) => {
  workerRs256KeySet ??= newSigningKeySet('RS256');
  await new FileSecretStore(`${dataDirectory}/secrets`).put(
    SIGNING_KEY_SECRETS.RS256,
    await workerRs256KeySet,
  );
};

/** Starts the local service (API Gateway emulation + functions) on a free port with its own database. */
const startService = async (
  dataDirectory: string,
  rateLimit: RateLimitSettings,
  clock?: () => number,
  auditEventsFile = false,
) => {
  await storeWorkerRs256Keys(dataDirectory);
  const local = await startLocalService({
    port: 0,
    ...isolatedServiceDatabase(),
    dataDirectory,
    ...(clock ? { clock } : {}),
    ...(auditEventsFile ? { auditEventsFile: `${dataDirectory}/audit-events.jsonl` } : {}),
  });
  await updateOrganizationSettings(local.organizationId, { rateLimit });
  const { baseUrl, organizationId, clientId, clientSecret } = local;

  let openApi: Promise<{ document: unknown; validator: OpenApiValidator }> | undefined;
  const loadOpenApi = () => {
    openApi ??= fetch(`${baseUrl}/idp/openapi.json`)
      .then((response) => response.json())
      .then((document) => ({ document, validator: new OpenApiValidator(document as never) }));
    return openApi;
  };

  const call = async <T>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> => {
    const url = `${baseUrl}${path}`;
    const json = options.body !== undefined && !options.form;
    const response = await fetch(url, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(json ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: bodyOf(options),
    });
    const text = await response.text();
    const body = text === '' ? undefined : JSON.parse(text);
    if (path !== '/idp/openapi.json') {
      (await loadOpenApi()).validator.assertResponse(method, url, response.status, body);
    }
    return { status: response.status, headers: response.headers, body: body as T };
  };

  /** fetch for the typed client: every API answer is checked against the OpenAPI document. */
  const validatingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = String(input);
    if (
      !url.includes('/idp/') ||
      !(response.headers.get('content-type') ?? 'application/json').includes('json')
    ) {
      return response;
    }
    const text = await response.text();
    const body = text === '' ? undefined : JSON.parse(text);
    (await loadOpenApi()).validator.assertResponse(init?.method ?? 'GET', url, response.status, body);
    return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
  };

  const client = (as: Pick<Caller, 'token'>) =>
    new IdpClient({
      baseUrl,
      tokenProvider: async () => as.token,
      // The tests' organizations are not rate limited, and a test sees every refusal.
      pacing: false,
      retry: { maxRetries: 0 },
      fetch: validatingFetch,
    });

  const requestToken = (id = clientId, secret = clientSecret) =>
    fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
    });

  const token = async (id?: string, secret?: string) => {
    const body = (await (await requestToken(id, secret)).json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`No token: ${JSON.stringify(body)}`);
    return body.access_token;
  };

  const admin = callerOf(await token());

  const callerWith: TestService['callerWith'] = async (permissions, options = {}) => {
    const { organization = organizationId, ...client } = options;
    const created = await createTestClient(organization, permissions, client);
    const caller = callerOf(await token(created.clientId, created.clientSecret));
    return { ...caller, clientSecret: created.clientSecret, roleId: created.roleId };
  };

  const freshOrganization = async (overrides?: Partial<Organization>) =>
    callerWith(ALL_PERMISSION_IDS, { organization: (await createTestOrganization(overrides)).id });

  const createUser: TestService['createUser'] = async (options = {}) => {
    const { email = uniqueEmail(), name = 'Test User', userType = 'STANDARD', as = admin } = options;
    return idFromLocation(await client(as).createUser({ body: { email, name, userType } }));
  };

  const service: TestService = {
    baseUrl,
    organizationId,
    clientId,
    clientSecret,
    dataDirectory,
    admin,
    call,
    client: (as = admin) => client(as),
    openApi: loadOpenApi,
    requestToken,
    token,
    userToken: async (userId, orgId = organizationId, signedInAt = Date.now()) =>
      (await issueUserToken(orgId, userId, undefined, signedInAt)).accessToken,
    createUser,
    callerWith,
    freshOrganization,
    freshOrganizationWithUser: async (overrides) => {
      const orgAdmin = await freshOrganization(overrides);
      const user = { email: uniqueEmail('member'), name: 'Other Member' };
      return { ...orgAdmin, user: { ...user, id: await createUser({ ...user, as: orgAdmin }) } };
    },
  };
  return { service, close: () => local.close() };
};

/**
 * Starts a service for this test file (beforeAll) and stops it, removing its data directory
 * (afterAll). The handle reads the running service on each use, so it may be kept in a module
 * constant, and so may `service.admin` (e.g. `groupsApi(service, service.admin)`).
 */
export const useService = (
  options: {
    rateLimit?: RateLimitSettings;
    /** The time the gateway stamps on requests (the second the rate limit counts them in). */
    clock?: () => number;
    /** Follow the audit records into `<data>/audit-events.jsonl`, as `npm start` does. */
    auditEventsFile?: boolean;
  } = {},
): TestService => {
  let started: Awaited<ReturnType<typeof startService>> | undefined;
  let dataDirectory: string | undefined;
  beforeAll(async () => {
    dataDirectory = makeTempDir('data');
    started = await startService(
      dataDirectory,
      options.rateLimit ?? UNLIMITED,
      options.clock,
      options.auditEventsFile,
    );
  });
  afterAll(async () => {
    await started?.close();
    if (dataDirectory) removeTempDir(dataDirectory);
  });
  const running = (): TestService => {
    if (!started) throw new Error('useService(): the service runs only from beforeAll to afterAll');
    return started.service;
  };
  return {
    get baseUrl() {
      return running().baseUrl;
    },
    get organizationId() {
      return running().organizationId;
    },
    get clientId() {
      return running().clientId;
    },
    get clientSecret() {
      return running().clientSecret;
    },
    get dataDirectory() {
      return running().dataDirectory;
    },
    admin: {
      get token() {
        return running().admin.token;
      },
      get principalId() {
        return running().admin.principalId;
      },
      get orgId() {
        return running().admin.orgId;
      },
    },
    call: (method, path, callOptions) => running().call(method, path, callOptions),
    client: (as) => running().client(as),
    openApi: () => running().openApi(),
    requestToken: (clientId, clientSecret) => running().requestToken(clientId, clientSecret),
    token: (clientId, clientSecret) => running().token(clientId, clientSecret),
    userToken: (userId, organizationId, signedInAt) =>
      running().userToken(userId, organizationId, signedInAt),
    createUser: (userOptions) => running().createUser(userOptions),
    callerWith: (permissions, callerOptions) => running().callerWith(permissions, callerOptions),
    freshOrganization: (overrides) => running().freshOrganization(overrides),
    freshOrganizationWithUser: (overrides) => running().freshOrganizationWithUser(overrides),
  };
};

/**
 * A value this file's tests share, made in beforeAll (after the service started, so it may use
 * it). Like the service handle, the answer reads the value's fields when they are used.
 */
export const useFixture = <T extends object>(make: () => Promise<T>): T => {
  let made: T | undefined;
  beforeAll(async () => {
    made = await make();
  });
  const value = (): T => {
    if (made === undefined) throw new Error('useFixture(): the value is made in beforeAll');
    return made;
  };
  // Reads, spreads and comparisons (toEqual) all see the made value.
  return new Proxy({} as T, {
    get: (_target, field) => Reflect.get(value(), field),
    has: (_target, field) => Reflect.has(value(), field),
    ownKeys: () => Reflect.ownKeys(value()),
    getOwnPropertyDescriptor: (_target, field) => Reflect.getOwnPropertyDescriptor(value(), field),
  });
};

/** One caller per permission set, made on first use: tests of many operations share them. */
export const callersByPermissions = (make: (permissions: readonly PermissionId[]) => Promise<Caller>) => {
  const callers = new Map<string, Promise<Caller>>();
  return (permissions: readonly PermissionId[]): Promise<Caller> => {
    const key = [...permissions].sort().join(' ');
    const caller = callers.get(key) ?? make(permissions);
    callers.set(key, caller);
    return caller;
  };
};
