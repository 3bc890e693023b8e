import { expect } from 'vitest';
import {
  type ApiError,
  type ApiResponse,
  type ApiUserGroup,
  type ApiUserGroupEnvelope,
  nextLink,
} from './api.js';
import type { TestService } from './service.js';

export type GroupResponse = ApiResponse<ApiUserGroupEnvelope & ApiError>;

export interface NewGroupFields {
  name: string;
  number?: string;
  description?: string;
  status?: 'ACTIVE' | 'INACTIVE';
}

export const groupPath = (id: string, suffix = '') => `/idp/userGroups/${id}${suffix}`;

/** The user-group operations as `caller` calls them (its token is read on each call). */
export const groupsApi = (service: TestService, caller: { readonly token: string }) => {
  const call = <T>(method: string, path: string, body?: unknown) =>
    service.call<T>(method, path, { token: caller.token, ...(body === undefined ? {} : { body }) });

  const create = (body: unknown): Promise<GroupResponse> => call('POST', '/idp/userGroups', body);

  return {
    create,
    /** Creates a group through the typed client and answers it (a refusal throws). */
    newGroup: async (fields: NewGroupFields): Promise<ApiUserGroup> =>
      (await service.client(caller).createUserGroup({ body: fields })).userGroup,
    get: (id: string): Promise<GroupResponse> => call('GET', groupPath(id)),
    patch: (id: string, body: unknown): Promise<GroupResponse> => call('PATCH', groupPath(id), body),
    count: async (): Promise<number> => {
      const response = await call<{ count: number }>('GET', '/idp/userGroups/count');
      expect(response.status).toBe(200);
      return response.body.count;
    },
    /** Every group, following `Link: rel="next"` from the first page; answers the groups and the pages. */
    listAll: async (pageSize = 1000): Promise<{ groups: ApiUserGroup[]; pages: number }> => {
      const groups: ApiUserGroup[] = [];
      let pages = 0;
      let next: string | undefined = `/idp/userGroups/list?page=0&pageSize=${pageSize}`;
      while (next) {
        const response: ApiResponse<{ userGroups: ApiUserGroup[] }> = await call('GET', next);
        expect(response.status).toBe(200);
        groups.push(...response.body.userGroups);
        pages++;
        next = nextLink(response.headers);
        if (pages > 1000) throw new Error('listAll: the Link headers never end');
      }
      return { groups, pages };
    },
    /** Adds a user to a group through the users API (PUT /idp/users/{id}/userGroups/{groupId}). */
    addMember: async (userId: string, groupId: string) => {
      const response = await call('PUT', `/idp/users/${userId}/userGroups/${groupId}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
    },
  };
};

export type GroupsApi = ReturnType<typeof groupsApi>;

/** The fields of a group the API shows right after creation, without id and timestamps. */
export const freshGroupFields = (principalId: string, fields: NewGroupFields) => ({
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
