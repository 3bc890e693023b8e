import { BoundedMap } from '../cache/bounded-map.js';
import { perStoreSettings } from '../config.js';
import { pluginActionKey } from '../domain/effective-permissions.js';
import { systemDataOutdated, systemVersionLastRead } from './access-versions.js';
import { batchGetByKey } from './batch.js';
import { PluginDefinitionEntity } from './entities.js';

const CACHE_MILLIS = 5 * 60 * 1000;

interface Loaded {
  loadedAt: number;
  systemVersion: number | undefined;
  actions: Promise<ReadonlySet<string>>;
}

/** Per store (the CLI and tests re-point it); plugins are few, operator-defined. */
const loaded = perStoreSettings(() => new BoundedMap<string, Loaded>(1_000));

/**
 * The actions each plugin defines now (`pluginActionKey`s; none for a plugin no longer defined),
 * for tokens to carry only those of a role's grants: a redefinition that dropped an action takes
 * it out of the next tokens. Cached per instance like the catalogue's dependency graph: 5 minutes,
 * and read again once the system's access version (read within the last second by the caller)
 * moved past the one a cached read started after. Plugins not cached are read in one BatchGet.
 */
export const definedPluginActions = async (
  pluginIds: readonly string[],
  systemVersion: number,
  now = Date.now(),
): Promise<ReadonlyMap<string, ReadonlySet<string>>> => {
  const cache = loaded();
  const stale = pluginIds.filter((pluginId) => {
    const entry = cache.get(pluginId);
    return !entry || systemDataOutdated(entry, now, CACHE_MILLIS, systemVersion);
  });
  if (stale.length > 0) {
    // Stamped before the read starts: a redefinition after this version may be missing from it.
    const systemVersionBefore = systemVersionLastRead();
    const keyOf = (pluginId: string) => PluginDefinitionEntity.key({ id: pluginId });
    const read = batchGetByKey(stale.map(keyOf));
    for (const pluginId of stale) {
      const entry: Loaded = {
        loadedAt: now,
        systemVersion: systemVersionBefore,
        actions: read.then((items) => {
          const item = items.get(keyOf(pluginId));
          const definitions = item ? PluginDefinitionEntity.decode(item).permissionDefinitions : [];
          return new Set(definitions.map(pluginActionKey));
        }),
      };
      entry.actions.catch(() => {
        if (cache.get(pluginId) === entry) cache.set(pluginId, { ...entry, loadedAt: -CACHE_MILLIS });
      });
      cache.set(pluginId, entry);
    }
  }
  return new Map(
    await Promise.all(
      pluginIds.map(
        async (pluginId) => [pluginId, (await cache.get(pluginId)?.actions) ?? new Set<string>()] as const,
      ),
    ),
  );
};
