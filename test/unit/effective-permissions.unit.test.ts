import { describe, expect, it } from 'vitest';
import {
  dependentPermissionsOf,
  effectiveAccess,
  grantedIds,
  pluginActionKey,
  type ResolvedGrants,
  type RoleGrant,
  withDependencies,
} from '../../shared/domain/effective-permissions.js';
import { PERMISSION_CATALOGUE } from '../../shared/domain/permission-catalogue.js';

const graph = new Map<string, string[]>([
  ['A.UPDATE', ['A.DETAILS']],
  ['A.DETAILS', ['A.LIST']],
  ['CYCLE.ONE', ['CYCLE.TWO']],
  ['CYCLE.TWO', ['CYCLE.THREE']],
  ['CYCLE.THREE', ['CYCLE.ONE']],
  ['SELF.LOOP', ['SELF.LOOP']],
]);

const plugin = (...actions: string[]) => actions.map((actionName) => ({ module: 'M', actionName }));

const roles = new Map<string, RoleGrant>([
  ['editor', { permissions: ['A.UPDATE'], pluginPermissions: { reports: plugin('EXPORT') } }],
  ['gone', { permissions: ['B.ADMIN'], pluginPermissions: { reports: plugin('DELETE') }, archived: true }],
  [
    'viewer',
    {
      permissions: ['C.LIST'],
      pluginPermissions: { reports: plugin('EXPORT', 'VIEW'), billing: plugin('PAY') },
    },
  ],
  ['cyclic', { permissions: ['CYCLE.TWO'] }],
  ['group-only', { permissions: ['G.READ'] }],
]);
/** What each plugin defines now. */
const defined = (plugins: Record<string, string[]>) =>
  new Map(
    Object.entries(plugins).map(([pluginId, actions]) => [
      pluginId,
      new Set(plugin(...actions).map(pluginActionKey)),
    ]),
  );

const resolved: ResolvedGrants = {
  roles,
  managedRoles: new Map([['auditor', { permissions: ['AUDIT.READ'] }]]),
  policies: new Map([
    ['p-live', {}],
    ['p-archived', { archived: true }],
  ]),
  pluginActions: defined({ reports: ['EXPORT', 'VIEW', 'DELETE'], billing: ['PAY'] }),
};

describe('withDependencies / dependentPermissionsOf', () => {
  it('adds dependencies transitively', () => {
    expect([...withDependencies(['A.UPDATE'], graph)].sort()).toEqual(['A.DETAILS', 'A.LIST', 'A.UPDATE']);
    expect(dependentPermissionsOf(['A.UPDATE'], graph)).toEqual(['A.DETAILS', 'A.LIST']);
    expect(dependentPermissionsOf(['A.UPDATE', 'A.LIST'], graph)).toEqual(['A.DETAILS']);
    expect(dependentPermissionsOf(['UNKNOWN.X'], graph)).toEqual([]);
  });

  it('terminates on cycles of any length, including a self-dependency', () => {
    expect([...withDependencies(['CYCLE.ONE'], graph)].sort()).toEqual([
      'CYCLE.ONE',
      'CYCLE.THREE',
      'CYCLE.TWO',
    ]);
    expect(dependentPermissionsOf(['CYCLE.TWO'], graph)).toEqual(['CYCLE.ONE', 'CYCLE.THREE']);
    expect([...withDependencies(['SELF.LOOP'], graph)]).toEqual(['SELF.LOOP']);
  });
});

describe('grantedIds', () => {
  it("unites the principal's grants with those of its ACTIVE groups only", () => {
    const ids = grantedIds({ roles: new Set(['editor']), policies: ['p-live'] }, [
      { active: true, roles: ['group-only'], managedRoles: new Set(['auditor']), policies: ['p-archived'] },
      { active: false, roles: ['viewer'], managedRoles: ['inactive-managed'], policies: ['p-inactive'] },
      { active: true, roles: ['editor'] },
    ]);
    expect(ids).toEqual({
      roleIds: ['editor', 'group-only'],
      managedRoleIds: ['auditor'],
      policyIds: ['p-archived', 'p-live'],
    });
  });
});

describe('effectiveAccess', () => {
  it('takes roles, managed roles and group grants, adds dependencies, and drops archived ones', () => {
    const ids = grantedIds({ roles: ['editor', 'gone', 'cyclic'], policies: ['p-live', 'p-archived'] }, [
      { active: true, roles: ['viewer'], managedRoles: ['auditor'] },
    ]);
    expect(effectiveAccess(ids, resolved, graph)).toEqual({
      permissions: [
        'A.DETAILS',
        'A.LIST',
        'A.UPDATE',
        'AUDIT.READ',
        'C.LIST',
        'CYCLE.ONE',
        'CYCLE.THREE',
        'CYCLE.TWO',
      ],
      pluginPermissions: { billing: ['PAY'], reports: ['EXPORT', 'VIEW'] },
      policies: ['p-live'],
    });
  });

  it('grants nothing for an inactive group, an archived role, or ids that resolve to nothing', () => {
    const ids = grantedIds(
      { roles: ['gone', 'missing'], managedRoles: ['missing-managed'], policies: ['p-missing'] },
      [{ active: false, roles: ['editor'], managedRoles: ['auditor'], policies: ['p-live'] }],
    );
    expect(effectiveAccess(ids, resolved, graph)).toEqual({
      permissions: [],
      pluginPermissions: {},
      policies: [],
    });
  });

  it('names plugins and their actions in order, leaving out a plugin that grants no action', () => {
    const pluginOnly = new Map<string, RoleGrant>([
      ['plugins', { pluginPermissions: { zeta: plugin('B', 'A'), empty: [], alpha: plugin('C') } }],
    ]);
    const access = effectiveAccess(
      grantedIds({ roles: ['plugins'] }),
      { ...resolved, roles: pluginOnly, pluginActions: defined({ zeta: ['A', 'B'], alpha: ['C'] }) },
      graph,
    );
    // Tokens carry the claim as JSON: its order is part of what they say.
    expect(JSON.stringify(access)).toBe(
      JSON.stringify({
        permissions: [],
        pluginPermissions: { alpha: ['C'], zeta: ['A', 'B'] },
        policies: [],
      }),
    );
  });

  it('grants a plugin action only while its plugin defines it (by module and name), whatever a role still holds', () => {
    const ids = grantedIds({ roles: ['viewer'] });
    // Positive control: every action held is defined.
    expect(effectiveAccess(ids, resolved, graph).pluginPermissions).toEqual({
      billing: ['PAY'],
      reports: ['EXPORT', 'VIEW'],
    });
    // The plugin was redefined without VIEW, then with VIEW in another module; billing is gone.
    const redefined = new Map([
      [
        'reports',
        new Set([
          pluginActionKey({ module: 'M', actionName: 'EXPORT' }),
          pluginActionKey({ module: 'N', actionName: 'VIEW' }),
        ]),
      ],
    ]);
    expect(effectiveAccess(ids, { ...resolved, pluginActions: redefined }, graph).pluginPermissions).toEqual({
      reports: ['EXPORT'],
    });
  });

  it('unites a plugin whose id is a name of Object.prototype like any other', () => {
    const odd = new Map<string, RoleGrant>([
      ['odd', { pluginPermissions: { constructor: plugin('RUN'), toString: plugin('SHOW') } }],
    ]);
    const access = effectiveAccess(
      grantedIds({ roles: ['odd'] }),
      { ...resolved, roles: odd, pluginActions: defined({ constructor: ['RUN'], toString: ['SHOW'] }) },
      graph,
    );
    expect(access.pluginPermissions).toEqual({ constructor: ['RUN'], toString: ['SHOW'] });
  });

  it('grants nothing without grants', () => {
    expect(effectiveAccess(grantedIds({}), resolved, graph)).toEqual({
      permissions: [],
      pluginPermissions: {},
      policies: [],
    });
  });
});

describe('permission catalogue', () => {
  it('has unique ids and dependencies that exist in the catalogue', () => {
    const ids = PERMISSION_CATALOGUE.map((permission) => permission.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const permission of PERMISSION_CATALOGUE) {
      for (const dependency of permission.dependsOn) expect(ids).toContain(dependency);
    }
  });
});
