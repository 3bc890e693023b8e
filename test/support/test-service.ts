import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { type LocalService, startLocalService } from '../../bin/local/service.js';
import { issueUserToken } from '../../shared/auth/user-tokens.js';
import type { RateLimitSettings } from '../../shared/domain/rate-limit.js';
import { updateOrganizationSettings } from '../../shared/store/organization-repository.js';
import { useIsolatedDatabase } from './isolated-database.js';
import { OpenApiValidator } from './openapi-validator.js';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestService extends LocalService {
  /** Calls the API over HTTP and checks the answer against the OpenAPI document. */
  call<T = unknown>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** A client-credentials access token (the admin client's unless told otherwise). */
  token(clientId?: string, clientSecret?: string): Promise<string>;
  /** A user's access token, signed by the token service's own code (no sign-in endpoint yet). */
  userToken(userId: string, organizationId?: string): Promise<string>;
  /** Creates a user through the API as the admin client; answers its id. */
  createUser(email: string, name?: string, userType?: 'STANDARD' | 'RESTRICTED'): Promise<string>;
}

/** Functional tests send bursts; they run with a limit no test reaches unless it asks for one. */
export const UNLIMITED = { rate: 100_000, burst: 0 };

/** Starts the local service (API Gateway emulation + functions) on a free port, own database. */
export const startTestService = async (
  options: { rateLimit?: RateLimitSettings } = {},
): Promise<TestService> => {
  const dynamoDbEndpoint = useIsolatedDatabase();
  mkdirSync('.tmp', { recursive: true });
  const service = await startLocalService({
    port: 0,
    dynamoDbEndpoint,
    dataDirectory: mkdtempSync(join('.tmp', 'data-')),
  });
  await updateOrganizationSettings(service.organizationId, { rateLimit: options.rateLimit ?? UNLIMITED });
  let validator: OpenApiValidator | undefined;

  const call = async <T>(
    method: string,
    path: string,
    options: CallOptions = {},
  ): Promise<ApiResponse<T>> => {
    const url = `${service.baseUrl}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.rawBody !== undefined ? { body: options.rawBody } : {}),
    });
    const text = await response.text();
    const body = text === '' ? undefined : JSON.parse(text);
    if (path !== '/idp/openapi.json') {
      validator ??= new OpenApiValidator(
        (await (await fetch(`${service.baseUrl}/idp/openapi.json`)).json()) as never,
      );
      validator.assertResponse(method, url, response.status, body);
    }
    return { status: response.status, headers: response.headers, body: body as T };
  };

  const token = async (clientId = service.clientId, clientSecret = service.clientSecret) => {
    const response = await fetch(`${service.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`No token: ${JSON.stringify(body)}`);
    return body.access_token;
  };

  const userToken = async (userId: string, organizationId = service.organizationId) =>
    (await issueUserToken(organizationId, userId)).accessToken;

  let adminToken: string | undefined;
  const createUser = async (
    email: string,
    name = 'Test User',
    userType: 'STANDARD' | 'RESTRICTED' = 'STANDARD',
  ) => {
    adminToken ??= await token();
    const response = await call('POST', '/idp/users', { token: adminToken, body: { email, name, userType } });
    if (response.status !== 204)
      throw new Error(`createUser: ${response.status} ${JSON.stringify(response.body)}`);
    return (response.headers.get('location') as string).split('/').pop() as string;
  };

  return { ...service, call, token, userToken, createUser };
};
