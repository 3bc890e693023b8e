import * as z from 'zod';
import { MAX_PERMISSIONS_PER_ROLE, MAX_PLUGINS_PER_ORGANIZATION } from '../../domain/limits.js';
import { dependentPermissions, detailedPlugin, permission, pluginIdModel } from '../../schemas/catalogue.js';
import { ok, routeGroup } from '../route-definition.js';

/** Permission catalogue and plugins (spec 4.4). */
export const permissionsRoutes = routeGroup('permissions')({
  listPermissions: {
    route: 'GET /idp/permissions',
    summary: 'Permission catalogue, oldest first',
    permissions: ['PERMISSIONS.LIST'],
    response: ok('Permissions', z.array(permission).max(MAX_PERMISSIONS_PER_ROLE)),
  },
  getPermission: {
    route: 'GET /idp/permissions/{id}',
    summary: 'One permission',
    permissions: ['PERMISSIONS.DETAILS'],
    response: ok('The permission', permission),
  },
  listDependentPermissions: {
    route: 'GET /idp/dependentPermissions',
    summary: 'Direct dependencies of each permission that has any, oldest first',
    permissions: ['PERMISSIONS.LIST'],
    response: ok('Dependencies', z.array(dependentPermissions).max(MAX_PERMISSIONS_PER_ROLE)),
  },
  listPlugins: {
    route: 'GET /idp/plugins',
    summary: "Plugins assigned to the caller's organization",
    response: ok('Plugins', z.array(pluginIdModel).max(MAX_PLUGINS_PER_ORGANIZATION)),
  },
  getPlugin: {
    route: 'GET /idp/plugins/{id}',
    summary: "A plugin assigned to the caller's organization, with its permission definitions",
    permissions: ['ROLES.DETAILS'],
    response: ok('The plugin', detailedPlugin),
  },
});
