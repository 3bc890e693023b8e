import { groupHandler } from '../shared/http/group-handler.js';

const UI_MODULE_PREFIX = 'UI.';

/** Users and the caller's own account (spec 4.1). */
export const handler = groupHandler('users', {
  getMyUiPermissions: (_input, { principal }) => ({
    body: {
      uiPermissions: [...principal.permissions]
        .filter((permission) => permission.startsWith(UI_MODULE_PREFIX))
        .map((permission) => permission.slice(UI_MODULE_PREFIX.length)),
      pluginsUIPermissions: Object.fromEntries(
        Object.entries(principal.pluginPermissions).map(([pluginId, actions]) => [pluginId, [...actions]]),
      ),
    },
  }),
});
