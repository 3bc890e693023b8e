import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type ApiError, type ApiResponse, type ApiRole, idFromLocation } from './api.js';
import type { TestService } from './service.js';

export type RoleResponse = ApiResponse<ApiRole & ApiError>;

export const rolePath = (id: string, suffix = '') => `/idp/roles/${encodeURIComponent(id)}${suffix}`;

const uniqueRoleName = () => `Role ${randomUUID().slice(0, 8)}`;

/** The role operations of spec 4.3, called with one token. */
export const rolesApi = (service: TestService, token: string) => ({
  create: (body: unknown) => service.call<ApiError>('POST', '/idp/roles', { token, body }),
  get: (id: string): Promise<RoleResponse> =>
    service.call<ApiRole & ApiError>('GET', rolePath(id), { token }),
  list: (query = '') => service.call<ApiRole[] & ApiError>('GET', `/idp/roles${query}`, { token }),
  update: (id: string, body: unknown) => service.call<ApiError>('PUT', rolePath(id), { token, body }),
  archive: (id: string) => service.call<ApiError>('DELETE', rolePath(id), { token }),
  change: (id: string, action: 'assign' | 'revoke', permissionIds: unknown) =>
    service.call<ApiError>('POST', rolePath(id, `/permissions/${action}`), {
      token,
      body: { permissionIds },
    }),
});

export type RolesApi = ReturnType<typeof rolesApi>;

/** Creates a role through the API; fails the test unless the answer is 204; answers its id. */
export const newRole = async (api: RolesApi, name: string, permissions: string[] = []): Promise<string> => {
  const response = await api.create({ name, permissions });
  expect(response.status, JSON.stringify(response.body)).toBe(204);
  return idFromLocation(response);
};

/** Creates a role with a unique name as the caller of `token` (the typed client); answers its id. */
export const newRoleAs = async (service: TestService, token: string, permissions: string[] = []) =>
  idFromLocation(
    await service.client({ token }).createRole({ body: { name: uniqueRoleName(), permissions } }),
  );

/** Reads a role; fails the test unless the answer is 200. */
export const readRole = async (api: RolesApi, id: string): Promise<ApiRole> => {
  const response = await api.get(id);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
};

/** The names of every role the token's organization lists (one page of up to 1000). */
export const listedNames = async (api: RolesApi): Promise<string[]> => {
  const response = await api.list();
  expect(response.status).toBe(200);
  return response.body.map((role) => role.name);
};

/**
 * The errorDetails field of item `index` of a list in the body, e.g. `body.permissions.1` (the
 * README's convention, the same zod uses for a wrongly typed item).
 */
export const itemField = (list: string, index: number) => `body.${list}.${index}`;

/** The error answer every unknown, archived or foreign role gets. */
export const ROLE_NOT_FOUND = { status: 404, error: 'Not Found', message: 'Role not found' };
