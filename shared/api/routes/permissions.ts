import { z } from 'zod';
import { dependentPermissions, detailedPlugin, permission, pluginIdModel } from '../../schemas/catalogue.js';
import { routeGroup } from '../route-definition.js';

/** Permission catalogue and plugins (spec 4.4). */
export const permissionsRoutes = routeGroup('permissions')({
  listPermissions: {
    method: 'GET',
    path: '/idp/permissions',
    summary: 'Permission catalogue, oldest first',
    permissions: ['PERMISSIONS.LIST'],
    response: { status: 200, description: 'Permissions', body: z.array(permission) },
  },
  getPermission: {
    method: 'GET',
    path: '/idp/permissions/{id}',
    summary: 'One permission',
    permissions: ['PERMISSIONS.DETAILS'],
    response: { status: 200, description: 'The permission', body: permission },
  },
  listDependentPermissions: {
    method: 'GET',
    path: '/idp/dependentPermissions',
    summary: 'Direct dependencies of each permission that has any, oldest first',
    permissions: ['PERMISSIONS.LIST'],
    response: { status: 200, description: 'Dependencies', body: z.array(dependentPermissions) },
  },
  listPlugins: {
    method: 'GET',
    path: '/idp/plugins',
    summary: "Plugins assigned to the caller's organization",
    response: { status: 200, description: 'Plugins', body: z.array(pluginIdModel) },
  },
  getPlugin: {
    method: 'GET',
    path: '/idp/plugins/{id}',
    summary: "A plugin assigned to the caller's organization, with its permission definitions",
    permissions: ['ROLES.DETAILS'],
    response: { status: 200, description: 'The plugin', body: detailedPlugin },
  },
});
