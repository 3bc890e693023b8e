import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/admin/cli.js';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import {
  MAX_PLUGIN_PERMISSION_DEFINITIONS,
  MAX_PLUGINS_PER_ORGANIZATION,
} from '../../shared/domain/limits.js';
import { batchPut } from '../../shared/store/batch.js';
import { PluginAssignmentEntity } from '../../shared/store/entities.js';
import { keys } from '../../shared/store/keys.js';
import { assignPlugin, definePlugin, listAssignedPluginIds } from '../../shared/store/plugin-repository.js';
import { runsAdminCli } from '../support/database.js';
import { createTestOrganization, getItem, useDatabase } from '../support/service.js';
import { useTempDirs } from '../support/temp-dir.js';

/**
 * The operator CLI's plugin bounds against DynamoDB Local (no service): permission definitions per
 * plugin (the definitions file) and plugins per organization (`plugin assign`, atomic in the store).
 */

runsAdminCli();
useDatabase();
const tempDir = useTempDirs('plugin-limits');
let dataDirectory: string;
beforeAll(() => {
  dataDirectory = tempDir();
});

const admin = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  // The CLI points the store at its target through the environment: keep the test's data folder.
  process.env.IDP_DATA_DIR = dataDirectory;
  const code = await runCli([...args, '--endpoint', process.env.IDP_DYNAMODB_ENDPOINT as string], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    readStdin: async () => '',
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
};

const definitions = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: `d${index}`,
    module: 'REPORTS',
    actionName: `ACTION_${index}`,
    description: `Action ${index}`,
  }));

const definitionsFile = (content: unknown) => {
  const path = join(dataDirectory, `${randomUUID()}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};

const LIMIT = MAX_PLUGINS_PER_ORGANIZATION;

/** `count` more plugins assigned to the organization, written as `plugin assign` writes them, counted. */
const seedAssignments = async (orgId: string, count: number) => {
  const pluginIds = Array.from({ length: count }, (_, index) => `seeded-${index}`);
  const organization = await getItem(keys.organization(orgId));
  await batchPut([
    ...pluginIds.map((pluginId) =>
      PluginAssignmentEntity.item({ organizationId: orgId, pluginId }, { pluginId, assignedAt: 1 }),
    ),
    { ...organization, assignedPluginCount: Number(organization?.assignedPluginCount ?? 0) + count },
  ]);
  return pluginIds;
};

const assignedCount = async (orgId: string) =>
  (await getItem(keys.organization(orgId)))?.assignedPluginCount as number | undefined;

describe('plugin define', () => {
  it(`takes at most ${MAX_PLUGIN_PERMISSION_DEFINITIONS} permission definitions (a usage error beyond, nothing stored)`, async () => {
    const atLimit = await admin(
      'plugin',
      'define',
      '--id',
      'big',
      '--definitions',
      definitionsFile({ permissionDefinitions: definitions(MAX_PLUGIN_PERMISSION_DEFINITIONS) }),
    );
    expect([atLimit.code, atLimit.stderr]).toEqual([0, '']);
    expect(atLimit.stdout).toContain(`with ${MAX_PLUGIN_PERMISSION_DEFINITIONS} permission definition(s)`);

    const beyond = await admin(
      'plugin',
      'define',
      '--id',
      'too-big',
      '--definitions',
      definitionsFile({ permissionDefinitions: definitions(MAX_PLUGIN_PERMISSION_DEFINITIONS + 1) }),
    );
    expect([beyond.code, beyond.stdout]).toEqual([2, '']);
    expect(beyond.stderr).toContain(
      `error: --definitions (permissionDefinitions): A plugin has at most ${MAX_PLUGIN_PERMISSION_DEFINITIONS} permission definitions`,
    );
    expect(await getItem(keys.pluginDefinition('too-big'))).toBeUndefined();

    const dependents = await admin(
      'plugin',
      'define',
      '--id',
      'too-many-dependents',
      '--definitions',
      definitionsFile({
        permissionDefinitions: definitions(1),
        dependentPermissions: Array.from({ length: MAX_PLUGIN_PERMISSION_DEFINITIONS + 1 }, () => ({
          permissionId: 'd0',
          dependentPermissionIds: [],
        })),
      }),
    );
    expect(dependents.code).toBe(2);
    expect(dependents.stderr).toContain('(dependentPermissions)');
    expect(await getItem(keys.pluginDefinition('too-many-dependents'))).toBeUndefined();
  });
});

describe(`plugin assign: at most ${LIMIT} plugins per organization`, () => {
  it('up to the limit; one more is refused (exit 1) and not written; an assigned plugin is assigned again', async () => {
    const orgId = (await createTestOrganization()).id;
    await seedAssignments(orgId, LIMIT - 1);
    for (const id of ['last', 'beyond']) {
      await definePlugin({ id, permissionDefinitions: definitions(1), dependentPermissions: [] });
    }

    expect((await admin('plugin', 'assign', '--org', orgId, '--plugin', 'last')).code).toBe(0);
    expect(await assignedCount(orgId)).toBe(LIMIT);

    const refused = await admin('plugin', 'assign', '--org', orgId, '--plugin', 'beyond');
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toBe(
      `error: Organization ${orgId} has ${LIMIT} plugins assigned already, the most an organization may`,
    );
    expect(await getItem(keys.pluginAssignment(orgId, 'beyond'))).toBeUndefined();

    // Assigning an assigned plugin again is a success and counts nothing.
    const again = await admin('plugin', 'assign', '--org', orgId, '--plugin', 'last');
    expect(again.code, again.stderr).toBe(0);
    expect(await assignedCount(orgId)).toBe(LIMIT);
    expect(await listAssignedPluginIds(orgId)).toHaveLength(LIMIT);
  });

  it('counts from the first assignment, once per plugin, and admits exactly the room left under concurrency', async () => {
    const orgId = (await createTestOrganization()).id;
    await assignPlugin(orgId, 'first');
    await assignPlugin(orgId, 'first');
    expect(await assignedCount(orgId)).toBe(1);

    await seedAssignments(orgId, LIMIT - 3);
    // Room for two: of six plugins assigned at once, exactly two are.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => assignPlugin(orgId, `late-${index}`)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        expect(outcome.reason).toBeInstanceOf(Conflict);
        expect(String(outcome.reason)).toContain(`has ${LIMIT} plugins assigned already`);
      }
    }
    expect(await assignedCount(orgId)).toBe(LIMIT);
    expect(await listAssignedPluginIds(orgId)).toHaveLength(LIMIT);
  });

  it('an organization that does not exist is NotFound, with nothing written', async () => {
    const orgId = randomUUID();
    await expect(assignPlugin(orgId, 'orphan')).rejects.toMatchObject({
      constructor: NotFound,
      entity: 'Organization',
      id: orgId,
    });
    expect(await getItem(keys.pluginAssignment(orgId, 'orphan'))).toBeUndefined();
    expect(await getItem(keys.organization(orgId))).toBeUndefined();
  });
});
