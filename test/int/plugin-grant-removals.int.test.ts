import { randomUUID } from 'node:crypto';
import { beforeAll, describe, it } from 'vitest';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import { changeRolePluginPermissions } from '../../shared/store/role-plugin-permissions.js';
import { createTestClient, createTestOrganization, useDatabase } from '../support/service.js';
import {
  clientClaims,
  expectGoneASecondAfter,
  type TokenClaims,
  useTokenCaches,
} from '../support/token-caches.js';

/**
 * A change of a role's plugin permissions that takes an action away moves the organization's
 * access version (role-repository.ts setRolePluginGrants, `removesAccess`), so new tokens lose it
 * within a second (docs/behaviour.md, "When changes take effect"). Tokens carry actions by module
 * and name: what counts is the action, not the definition id, which a plugin redefined by the
 * operator may point at another action.
 */
useDatabase();
useTokenCaches();
beforeAll(() => seedSystemData());

const setup = async () => {
  const org = (await createTestOrganization()).id;
  const client = await createTestClient(org, []);
  const pluginId = `plugin-${randomUUID()}`;
  await definePlugin({
    id: pluginId,
    permissionDefinitions: [
      { id: 'd1', module: 'REPORTS', actionName: 'export', description: 'Export' },
      { id: 'd2', module: 'REPORTS', actionName: 'print', description: 'Print' },
    ],
    dependentPermissions: [],
  });
  await assignPlugin(org, pluginId);
  await changeRolePluginPermissions(
    org,
    client.roleId,
    pluginId,
    [{ module: 'REPORTS', actionName: 'export' }],
    'set',
    '',
  );
  const exports = ({ plugin_permissions }: TokenClaims) =>
    plugin_permissions[pluginId]?.includes('export') === true;
  const token = () => clientClaims(client.clientId, client.clientSecret);
  /** The role's grants of the plugin set to print alone: export is taken away. */
  const printInsteadOfExport = () =>
    changeRolePluginPermissions(
      org,
      client.roleId,
      pluginId,
      [{ module: 'REPORTS', actionName: 'print' }],
      'set',
      '',
    );
  return { pluginId, exports, token, printInsteadOfExport };
};

describe("replacing a role's plugin grant", () => {
  it('positive control: ids as defined, replacing export by print takes export away within a second', async () => {
    const { exports, token, printInsteadOfExport } = await setup();
    await expectGoneASecondAfter(token, exports, printInsteadOfExport);
  });

  it('after the operator gave the ids other actions, the same replacement takes export away within a second', async () => {
    const { pluginId, exports, token, printInsteadOfExport } = await setup();
    // The operator reorders the definitions: d1 is now print, d3 export (tokens still carry export:
    // the plugin defines it, by module and name).
    await definePlugin({
      id: pluginId,
      permissionDefinitions: [
        { id: 'd1', module: 'REPORTS', actionName: 'print', description: 'Print' },
        { id: 'd3', module: 'REPORTS', actionName: 'export', description: 'Export' },
      ],
      dependentPermissions: [],
    });
    await expectGoneASecondAfter(token, exports, printInsteadOfExport);
  });
});
