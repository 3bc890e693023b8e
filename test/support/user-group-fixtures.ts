import { decodeJwt } from 'jose';
import { expect } from 'vitest';
import { ALL_PERMISSION_IDS, type PermissionId } from '../../shared/domain/permission-catalogue.js';
import { createTestClient, createTestOrganization } from './fixtures.js';
import type { ApiResponse, TestService } from './test-service.js';
import { type ApiError, nextLink } from './user-fixtures.js';

/** The UserGroup shape of the API (spec section 2) as this service answers it. */
export interface ApiUserGroup {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  updatedBy: string;
  number?: string;
  description?: string;
  roles: string[];
  managedRoles: string[];
  policies: string[];
  status: 'ACTIVE' | 'INACTIVE';
}

export interface GroupEnvelope {
  userGroup: ApiUserGroup;
}

export type GroupResponse = ApiResponse<GroupEnvelope & ApiError>;

export const groupPath = (id: string, suffix = '') => `/idp/userGroups/${id}${suffix}`;

/** A caller: its token and the principal id the service records as createdBy / updatedBy. */
export interface Caller {
  token: string;
  principalId: string;
}

export const callerOf = (token: string): Caller => ({ token, principalId: String(decodeJwt(token).sub) });

/** A token of a new API client of `orgId` with exactly `permissions` (and their dependencies). */
export const callerWith = async (
  service: TestService,
  orgId: string,
  permissions: readonly PermissionId[],
  options: { clientType?: 'STANDARD' | 'RESTRICTED' } = {},
): Promise<Caller> => {
  const { clientId, clientSecret } = await createTestClient(orgId, permissions, options);
  return { token: await service.token(clientId, clientSecret), principalId: clientId };
};

/** A new, empty organization and an administrator client of it: lists and counts start at zero. */
export const freshOrganization = async (service: TestService): Promise<Caller & { orgId: string }> => {
  const organization = await createTestOrganization();
  return { orgId: organization.id, ...(await callerWith(service, organization.id, ALL_PERMISSION_IDS)) };
};

export const createGroup = (service: TestService, token: string, body: unknown): Promise<GroupResponse> =>
  service.call<GroupEnvelope & ApiError>('POST', '/idp/userGroups', { token, body });

/** Creates a group and answers it; fails the test unless the answer is 201. */
export const newGroup = async (
  service: TestService,
  token: string,
  body: { name: string; number?: string; description?: string; status?: 'ACTIVE' | 'INACTIVE' },
): Promise<ApiUserGroup> => {
  const response = await createGroup(service, token, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.userGroup;
};

export const getGroup = (service: TestService, token: string, id: string): Promise<GroupResponse> =>
  service.call<GroupEnvelope & ApiError>('GET', groupPath(id), { token });

export const patchGroup = (
  service: TestService,
  token: string,
  id: string,
  body: unknown,
): Promise<GroupResponse> => service.call<GroupEnvelope & ApiError>('PATCH', groupPath(id), { token, body });

export const countGroups = async (service: TestService, token: string): Promise<number> => {
  const response = await service.call<{ count: number }>('GET', '/idp/userGroups/count', { token });
  expect(response.status).toBe(200);
  return response.body.count;
};

/** Every group, following `Link: rel="next"` from the first page; answers the groups and the pages. */
export const listAllGroups = async (
  service: TestService,
  token: string,
  pageSize = 1000,
): Promise<{ groups: ApiUserGroup[]; pages: number }> => {
  const groups: ApiUserGroup[] = [];
  let pages = 0;
  let next: string | undefined = `/idp/userGroups/list?page=0&pageSize=${pageSize}`;
  while (next) {
    const response: ApiResponse<{ userGroups: ApiUserGroup[] }> = await service.call<{
      userGroups: ApiUserGroup[];
    }>('GET', next, { token });
    expect(response.status).toBe(200);
    groups.push(...response.body.userGroups);
    pages++;
    next = nextLink(response.headers);
    if (pages > 1000) throw new Error('listAllGroups: the Link headers never end');
  }
  return { groups, pages };
};

/** Adds a user to a group through the users API (PUT /idp/users/{id}/userGroups/{groupId}). */
export const addMember = async (service: TestService, token: string, userId: string, groupId: string) => {
  const response = await service.call('PUT', `/idp/users/${userId}/userGroups/${groupId}`, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
};

/** The fields of a group the API shows right after creation, without id and timestamps. */
export const freshGroupFields = (
  principalId: string,
  fields: { name: string; number?: string; description?: string; status?: 'ACTIVE' | 'INACTIVE' },
) => ({
  name: fields.name,
  ...(fields.number !== undefined ? { number: fields.number } : {}),
  ...(fields.description !== undefined ? { description: fields.description } : {}),
  createdBy: principalId,
  updatedBy: principalId,
  roles: [],
  managedRoles: [],
  policies: [],
  status: fields.status ?? 'ACTIVE',
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const statuses = (responses: { status: number }[]) => responses.map((response) => response.status);

export const times = <T>(count: number, make: (index: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, index) => make(index)));
