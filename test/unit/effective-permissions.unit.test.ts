import { describe, expect, it } from 'vitest';
import {
  dependentPermissionsOf,
  effectivePermissions,
  withDependencies,
} from '../../shared/domain/effective-permissions.js';
import { PERMISSION_CATALOGUE } from '../../shared/domain/permission-catalogue.js';

const graph = new Map<string, string[]>([
  ['A.UPDATE', ['A.DETAILS']],
  ['A.DETAILS', ['A.LIST']],
  ['CYCLE.ONE', ['CYCLE.TWO']],
  ['CYCLE.TWO', ['CYCLE.ONE']],
]);

describe('effective permissions', () => {
  it('adds dependencies transitively', () => {
    expect([...withDependencies(['A.UPDATE'], graph)].sort()).toEqual(['A.DETAILS', 'A.LIST', 'A.UPDATE']);
    expect(dependentPermissionsOf(['A.UPDATE'], graph)).toEqual(['A.DETAILS', 'A.LIST']);
    expect(dependentPermissionsOf(['A.UPDATE', 'A.LIST'], graph)).toEqual(['A.DETAILS']);
  });

  it('terminates on cyclic dependencies', () => {
    expect([...withDependencies(['CYCLE.ONE'], graph)].sort()).toEqual(['CYCLE.ONE', 'CYCLE.TWO']);
  });

  it('ignores archived grants and merges plugin permissions of live ones', () => {
    const result = effectivePermissions(
      [
        { permissions: ['A.DETAILS'], pluginPermissions: { reports: ['EXPORT'] } },
        { permissions: ['B.ADMIN'], pluginPermissions: { reports: ['DELETE'] }, archived: true },
        { permissions: [], pluginPermissions: { reports: ['EXPORT', 'VIEW'], billing: ['PAY'] } },
      ],
      graph,
    );
    expect(result).toEqual({
      permissions: ['A.DETAILS', 'A.LIST'],
      pluginPermissions: { reports: ['EXPORT', 'VIEW'], billing: ['PAY'] },
    });
  });

  it('grants nothing without grants', () => {
    expect(effectivePermissions([], graph)).toEqual({ permissions: [], pluginPermissions: {} });
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
