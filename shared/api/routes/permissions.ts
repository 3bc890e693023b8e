import { MAX_PERMISSIONS_PER_ROLE, MAX_PLUGINS_PER_ORGANIZATION } from '../../domain/limits.js';
import { dependentPermissions, detailedPlugin, permission, pluginIdModel } from '../../schemas/catalogue.js';
import * as z from '../../zod.js';
import { ok, routeGroup } from '../route-definition.js';

/** Permission catalogue and plugins (spec 4.4). */
export const permissionsRoutes = routeGroup('permissions')({
  listPermissions: {
    route: 'GET /idp/permissions',
    summary: 'Permission catalogue, oldest first',
    description:
      'The global catalogue of permission ids (`MODULE.ACCESSTYPE`, the strings tokens carry), oldest first; not paged (the catalogue holds fewer than 200).',
    permissions: ['PERMISSIONS.LIST'],
    response: ok('Permissions', z.array(permission).check(z.maxLength(MAX_PERMISSIONS_PER_ROLE))),
  },
  getPermission: {
    route: 'GET /idp/permissions/{id}',
    summary: 'One permission',
    description: 'One permission of the catalogue by its id, such as `USER.LIST`; 404 for an id not in it.',
    permissions: ['PERMISSIONS.DETAILS'],
    response: ok('The permission', permission),
  },
  listDependentPermissions: {
    route: 'GET /idp/dependentPermissions',
    summary: 'Direct dependencies of each permission that has any, oldest first',
    description:
      'For each permission that has any, the permissions it directly depends on; effective permissions add them transitively.',
    permissions: ['PERMISSIONS.LIST'],
    response: ok('Dependencies', z.array(dependentPermissions).check(z.maxLength(MAX_PERMISSIONS_PER_ROLE))),
  },
  listPlugins: {
    route: 'GET /idp/plugins',
    summary: "Plugins assigned to the caller's organization",
    description: "Ids of the plugins operators assigned to the caller's organization (at most 100).",
    response: ok('Plugins', z.array(pluginIdModel).check(z.maxLength(MAX_PLUGINS_PER_ORGANIZATION))),
  },
  getPlugin: {
    route: 'GET /idp/plugins/{id}',
    summary: "A plugin assigned to the caller's organization, with its permission definitions",
    description:
      "A plugin with its permission definitions and their dependencies; a plugin not assigned to the caller's organization is 404, like an unknown id.",
    permissions: ['ROLES.DETAILS'],
    response: ok('The plugin', detailedPlugin),
  },
});
