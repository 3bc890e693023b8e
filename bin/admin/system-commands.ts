import { rotateSigningKeys } from '../../shared/auth/signing-keys.js';
import { storeConfig } from '../../shared/config.js';
import { pluginActionKey } from '../../shared/domain/effective-permissions.js';
import { NotFound } from '../../shared/domain/errors.js';
import { MAX_PLUGIN_PERMISSION_DEFINITIONS } from '../../shared/domain/limits.js';
import {
  dependentPermissions,
  newPluginId,
  pluginPermissionDefinition,
} from '../../shared/schemas/catalogue.js';
import { identifier } from '../../shared/schemas/common.js';
import { AGREEMENT_URL } from '../../shared/schemas/consent.js';
import { batchGet } from '../../shared/store/batch.js';
import {
  defineManagedRole,
  listManagedRoles,
  listPermissions,
} from '../../shared/store/catalogue-repository.js';
import { publishAgreement } from '../../shared/store/consent-repository.js';
import { keys } from '../../shared/store/keys.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import * as z from '../../shared/zod.js';
import { type Command, lines, permissionsOption, requireOrganization } from './command.js';
import { integer, jsonFileOption, required, validated } from './options.js';
import { UsageError } from './target.js';

/** At most MAX_PLUGIN_PERMISSION_DEFINITIONS of each, as the plugin's API answer states. */
const pluginDefinitionsFile = z.strictObject({
  permissionDefinitions: z
    .array(pluginPermissionDefinition)
    .check(
      z.minLength(1),
      z.maxLength(
        MAX_PLUGIN_PERMISSION_DEFINITIONS,
        `A plugin has at most ${MAX_PLUGIN_PERMISSION_DEFINITIONS} permission definitions`,
      ),
    ),
  dependentPermissions: z._default(
    z
      .array(dependentPermissions)
      .check(
        z.maxLength(
          MAX_PLUGIN_PERMISSION_DEFINITIONS,
          `A plugin has at most ${MAX_PLUGIN_PERMISSION_DEFINITIONS} dependent permission entries`,
        ),
      ),
    [],
  ),
});

/** Room left in the plugin's one item (DynamoDB holds at most 400 KB) for its other attributes. */
const MAX_DEFINITIONS_BYTES = 350_000;

/**
 * Each definition once, by id (a role's grants name it) and by module and action (tokens name
 * that), and all of them within the plugin's item.
 */
const refuseUnstorableDefinitions = (definitions: z.output<typeof pluginDefinitionsFile>) => {
  const ids = new Set<string>();
  const actions = new Set<string>();
  definitions.permissionDefinitions.forEach(({ id, module, actionName }, index) => {
    const action = pluginActionKey({ module, actionName });
    if (ids.has(id) || actions.has(action)) {
      const what = ids.has(id) ? `id ${id}` : `module ${module} and actionName ${actionName}`;
      throw new UsageError(`--definitions (permissionDefinitions.${index}): ${what} is defined twice`);
    }
    ids.add(id);
    actions.add(action);
  });
  const bytes = Buffer.byteLength(JSON.stringify(definitions));
  if (bytes > MAX_DEFINITIONS_BYTES) {
    throw new UsageError(
      `--definitions: ${bytes} bytes of definitions; a plugin's must fit in ${MAX_DEFINITIONS_BYTES} (shorten the descriptions)`,
    );
  }
  return definitions;
};

/** Commands on what all organizations share: plugins, agreements, the catalogue, signing keys. */
export const SYSTEM_COMMANDS: Record<string, Command> = {
  'plugin define': {
    usage: 'plugin define --id PLUGIN_ID --definitions FILE.json',
    options: ['id', 'definitions'],
    run: async (options) => {
      const id = validated(newPluginId, required(options, 'id'), 'id');
      required(options, 'definitions');
      const parsed = await jsonFileOption(options, 'definitions');
      const definitions = refuseUnstorableDefinitions(
        validated(pluginDefinitionsFile, parsed, 'definitions'),
      );
      await definePlugin({ id, ...definitions });
      return {
        json: { id, ...definitions },
        summary: `Defined plugin ${id} with ${definitions.permissionDefinitions.length} permission definition(s)`,
      };
    },
  },

  'plugin assign': {
    usage: 'plugin assign --org ORG --plugin PLUGIN_ID',
    options: ['org', 'plugin'],
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const pluginId = validated(identifier, required(options, 'plugin'), 'plugin');
      const [organization, plugin] = await Promise.all([
        requireOrganization(orgId),
        batchGet([keys.pluginDefinition(pluginId)]),
      ]);
      if (plugin.length === 0) throw new NotFound('Plugin', pluginId);
      await assignPlugin(organization.id, pluginId);
      return {
        json: { organizationId: orgId, pluginId },
        summary: `Assigned plugin ${pluginId} to organization ${orgId}`,
      };
    },
  },

  'agreement publish': {
    usage: 'agreement publish --url URL',
    options: ['url'],
    run: async (options) => {
      const agreement = await publishAgreement(validated(AGREEMENT_URL, required(options, 'url'), 'url'));
      return {
        json: agreement,
        summary: `Published agreement ${agreement.id} (${agreement.url}); it is now the latest`,
      };
    },
  },

  'permissions list': {
    usage: 'permissions list',
    options: [],
    run: async () => {
      const permissions = await listPermissions();
      return {
        json: permissions.map(({ id, moduleDisplayName, accessTypeDisplayName, dependsOn }) => ({
          id,
          moduleDisplayName,
          accessTypeDisplayName,
          dependsOn: dependsOn ?? [],
        })),
        summary: lines(
          `${permissions.length} permission(s)`,
          ...permissions.map(
            (p) => `  ${p.id.padEnd(32)} ${p.moduleDisplayName}: ${p.accessTypeDisplayName}`,
          ),
        ),
      };
    },
  },

  'managed-role define': {
    usage: 'managed-role define --id ID (--permissions A,B | --all-permissions)',
    options: ['id', 'permissions', 'all-permissions'],
    run: async (options) => {
      const id = validated(identifier, required(options, 'id'), 'id');
      const permissions = permissionsOption(options);
      if (permissions.length === 0) throw new UsageError('--permissions or --all-permissions is required');
      const role = await defineManagedRole(id, permissions);
      return {
        json: role,
        summary: `Defined managed role ${id} with ${role.permissions.length} permission(s)`,
      };
    },
  },

  'managed-role list': {
    usage: 'managed-role list',
    options: [],
    run: async () => {
      const roles = await listManagedRoles();
      return {
        json: roles,
        summary: lines(
          `${roles.length} managed role(s)`,
          ...roles.map((role) => `  ${role.id.padEnd(24)} ${role.permissions.length} permission(s)`),
        ),
      };
    },
  },

  'signing-keys rotate': {
    usage: 'signing-keys rotate [--retain-seconds S]',
    options: ['retain-seconds'],
    run: async (options) => {
      const retainSeconds = integer(options, 'retain-seconds', 0) ?? storeConfig().signingKeyRetainSeconds;
      const kids = await rotateSigningKeys(retainSeconds * 1000);
      return {
        json: { kids, previousKeysPublishedForSeconds: retainSeconds },
        summary: `New signing keys ${kids.RS256} (RS256) and ${kids.ES256} (ES256); the previous ones stay in the JWKS for ${retainSeconds} s after tokens stop using them`,
      };
    },
  },
};
