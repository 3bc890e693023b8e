import { randomUUID } from 'node:crypto';
import { assignPlugin, definePlugin } from '../../../../shared/store/plugin-repository.js';
import { idFromLocation, putTestRole, setDefaultRole } from '../../../support/service.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

const REPORTS_VIEW = { module: 'REPORTS', actionName: 'VIEW' };

/** A role of the organization, made by the store. */
const withRole = async (_service: TestService, org: ClientCaller) => ({
  roleId: (await putTestRole(org.orgId, { permissions: ['USER.LIST'] })).id,
});

/** A role and a plugin (defining REPORTS VIEW) assigned to the organization. */
const withRoleAndPlugin = async (service: TestService, org: ClientCaller) => {
  const pluginId = `plugin-${randomUUID()}`;
  await definePlugin({
    id: pluginId,
    permissionDefinitions: [{ id: `${pluginId}-view`, ...REPORTS_VIEW, description: 'See reports' }],
    dependentPermissions: [],
  });
  await assignPlugin(org.orgId, pluginId);
  return { ...(await withRole(service, org)), pluginId };
};

/** The roles group's writes (spec 4.3). */
export const ROLES_CALLS: WalkCalls = {
  createRole: walkCall({
    path: () => '/idp/roles',
    body: () => ({ name: `Walk role ${randomUUID().slice(0, 8)}`, permissions: ['USER.LIST'] }),
    target: (_made, answer) => idFromLocation(answer),
  }),
  updateRole: walkCall({
    prepare: withRole,
    path: ({ roleId }) => `/idp/roles/${roleId}`,
    body: () => ({ permissions: ['USER.LIST', 'USER.DETAILS'] }),
    target: ({ roleId }) => roleId,
  }),
  archiveRole: walkCall({
    prepare: withRole,
    path: ({ roleId }) => `/idp/roles/${roleId}`,
    target: ({ roleId }) => roleId,
  }),
  assignRolePermissions: walkCall({
    prepare: withRole,
    path: ({ roleId }) => `/idp/roles/${roleId}/permissions/assign`,
    body: () => ({ permissionIds: ['USER.DETAILS'] }),
    target: ({ roleId }) => roleId,
  }),
  revokeRolePermissions: walkCall({
    prepare: withRole,
    path: ({ roleId }) => `/idp/roles/${roleId}/permissions/revoke`,
    body: () => ({ permissionIds: ['USER.LIST'] }),
    target: ({ roleId }) => roleId,
  }),
  setRolePluginPermissions: walkCall({
    prepare: withRoleAndPlugin,
    path: ({ roleId, pluginId }) => `/idp/roles/${roleId}/plugin/${pluginId}`,
    body: () => [REPORTS_VIEW],
    target: ({ roleId }) => roleId,
  }),
  assignRolePluginPermissions: walkCall({
    prepare: withRoleAndPlugin,
    path: ({ roleId, pluginId }) => `/idp/roles/${roleId}/plugin/${pluginId}/assign`,
    body: () => ({ pluginPermissions: [REPORTS_VIEW] }),
    target: ({ roleId }) => roleId,
  }),
  revokeRolePluginPermissions: walkCall({
    prepare: async (service, org) => {
      const made = await withRoleAndPlugin(service, org);
      const granted = await service.call('PUT', `/idp/roles/${made.roleId}/plugin/${made.pluginId}`, {
        token: org.token,
        body: [REPORTS_VIEW],
      });
      if (granted.status !== 204) throw new Error(`The plugin grant was refused: ${granted.status}`);
      return made;
    },
    path: ({ roleId, pluginId }) => `/idp/roles/${roleId}/plugin/${pluginId}/revoke`,
    body: () => ({ pluginPermissions: [REPORTS_VIEW] }),
    target: ({ roleId }) => roleId,
  }),
  setDefaultRole: walkCall({
    prepare: withRole,
    path: () => '/idp/setDefaultRole',
    body: ({ roleId }) => ({ roleId }),
    target: ({ roleId }) => roleId,
  }),
  clearDefaultRole: walkCall({
    prepare: async (service, org) => {
      const made = await withRole(service, org);
      await setDefaultRole(org.orgId, made.roleId, true);
      return made;
    },
    path: () => '/idp/clearDefaultRole',
    target: ({ roleId }) => roleId,
  }),
};
