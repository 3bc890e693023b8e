import type { z } from 'zod';
import type { apiClient, apiClientName } from '../../shared/schemas/clients.js';
import type { errorBody } from '../../shared/schemas/error-body.js';
import type { defaultRoleResponse, managedRole, policy, role } from '../../shared/schemas/roles.js';
import type { ssoProvider } from '../../shared/schemas/sso.js';
import type { userGroup, userGroupEnvelope } from '../../shared/schemas/user-groups.js';
import type { user } from '../../shared/schemas/users.js';

/** What the API answers, as its schemas (and so the OpenAPI document) declare it. */
export type ApiError = z.output<typeof errorBody>;
export type ApiUser = z.output<typeof user>;
export type ApiUserGroup = z.output<typeof userGroup>;
export type ApiUserGroupEnvelope = z.output<typeof userGroupEnvelope>;
export type ApiRole = z.output<typeof role>;
export type ApiManagedRole = z.output<typeof managedRole>;
export type ApiDefaultRole = z.output<typeof defaultRoleResponse>;
export type ApiPolicy = z.output<typeof policy>;
export type ApiClient = z.output<typeof apiClient>;
export type ApiClientName = z.output<typeof apiClientName>;
export type ApiSsoProvider = z.output<typeof ssoProvider>;

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** The field names of a 400 answer's errorDetails. */
export const errorFields = (response: ApiResponse<unknown>) =>
  ((response.body as ApiError).errorDetails ?? []).map((detail) => detail.field);

/** The id a 201/204 answer names in its Location header. */
export const idFromLocation = (response: { headers: Headers } | { location?: string | undefined }) =>
  (('headers' in response ? response.headers.get('location') : response.location) as string)
    .split('/')
    .pop() as string;

/** Parses `Link: <url>; rel="next"` into the path and query to call. */
export const nextLink = (headers: Headers): string | undefined => {
  const match = /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '');
  if (!match?.[1]) return undefined;
  const url = new URL(match[1]);
  return `${url.pathname}${url.search}`;
};

export const statuses = (responses: { status: number }[]) => responses.map((response) => response.status);

export const times = <T>(count: number, make: (index: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, index) => make(index)));

/**
 * Resolves as soon as the clock shows a later millisecond than when it was called: what the service
 * (in this process, on the same clock) writes afterwards is stamped later than what it wrote before.
 */
export const nextMillisecond = async (): Promise<void> => {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((resolve) => setImmediate(resolve));
};
