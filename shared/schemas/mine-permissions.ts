import {
  MAX_PERMISSIONS_PER_ROLE,
  MAX_PLUGIN_PERMISSION_DEFINITIONS,
  MAX_PLUGINS_PER_ORGANIZATION,
} from '../domain/limits.js';
import * as z from '../zod.js';
import { catalogueWord, pluginAction } from './catalogue-names.js';
import { identifier } from './common.js';

/** What `GET /idp/users/mine/permissions` answers: the caller's UI and plugin UI permissions. */
export const minePermissions = z.withMeta(
  z.strictObject({
    uiPermissions: z.withMeta(z.array(catalogueWord).check(z.maxLength(MAX_PERMISSIONS_PER_ROLE)), {
      description: 'Access types of the UI module the caller holds',
    }),
    pluginsUIPermissions: z.withMeta(
      z.record(identifier, z.array(pluginAction).check(z.maxLength(MAX_PLUGIN_PERMISSION_DEFINITIONS))),
      { maxProperties: MAX_PLUGINS_PER_ORGANIZATION, description: 'Plugin id -> action names' },
    ),
  }),
  { id: 'MinePermissions' },
);
export type MinePermissions = z.infer<typeof minePermissions>;
