import { BoundedMap } from '../cache/bounded-map.js';
import { ExpiringCache } from '../cache/expiring-cache.js';
import { perStoreSettings } from '../config.js';
import { batchGetByKey } from './batch.js';
import { AccessVersionEntity, SystemAccessVersionEntity } from './entities.js';
import type { ItemKey } from './keys.js';
import { addTo, type Write } from './writes.js';

/**
 * Access versions tell an instance when what it cached about permissions may be out of date: one
 * counter per organization and one for system data, moved in the same transaction as every change
 * that can take a permission away from what the token endpoint caches (what a role, managed role or
 * policy grants, an API client's record, the catalogue's dependencies). Changes to users and user
 * groups do not move them: a person's token is resolved from strongly consistent reads of the user
 * and its groups every time (shared/auth/user-tokens.ts).
 *
 * A cached value is stamped with the versions the instance had read before the value's own read
 * started. It stands in for a fresh read only while those are the latest, and an instance reads
 * the latest at most once a second: a removal reaches every token issued more than a second later.
 */
export interface AccessVersions {
  organization: number;
  system: number;
}

/** One more item of a change's transaction: the organization's access version moves. */
export const accessVersionBump = (orgId: string): Write =>
  addTo(AccessVersionEntity.key({ organizationId: orgId }), 'version', 1);

/** One more write of a change of system data (managed roles, the catalogue). */
export const systemAccessVersionBump = (): Write => addTo(SystemAccessVersionEntity.key({}), 'version', 1);

/** Both versions (0 before the first change) in one strongly consistent BatchGetItem. */
const readAccessVersions = async (orgId: string): Promise<AccessVersions> => {
  const organizationKey = AccessVersionEntity.key({ organizationId: orgId });
  const systemKey = SystemAccessVersionEntity.key({});
  const read = await batchGetByKey([organizationKey, systemKey]);
  const versionAt = (key: ItemKey) => {
    const item = read.get(key);
    return item ? AccessVersionEntity.decode(item).version : 0;
  };
  return { organization: versionAt(organizationKey), system: versionAt(systemKey) };
};

/** How old a read may be for a token: a removal reaches every token issued this long after it. */
export const ACCESS_FRESHNESS_MILLIS = 1000;

/** What this instance read, per store (the CLI and tests re-point it). */
const readings = perStoreSettings(() => ({
  latest: new ExpiringCache<string, AccessVersions>(),
  /** The versions last read, of any age: what a read starting now is stamped with. */
  lastRead: new BoundedMap<string, AccessVersions>(),
  systemVersion: undefined as number | undefined,
}));

/** The organization's versions as read less than a second ago: one read per second at most. */
export const currentAccessVersions = (orgId: string, now = Date.now()): Promise<AccessVersions> => {
  const read = readings();
  return read.latest.get(
    orgId,
    ACCESS_FRESHNESS_MILLIS,
    async () => {
      const versions = await readAccessVersions(orgId);
      read.lastRead.set(orgId, versions);
      read.systemVersion = versions.system;
      return versions;
    },
    now,
  );
};

/**
 * Starts reading the versions beside other reads, when they are likely needed after those; whoever
 * awaits them later gets the same read (and sees its failure).
 */
export const prefetchAccessVersions = (orgId: string | undefined, now = Date.now()): void => {
  if (orgId !== undefined) currentAccessVersions(orgId, now).catch(() => undefined);
};

/**
 * Whether system data an instance cached (the catalogue's dependency graph, plugin definitions)
 * must be read again for a token at `now`: older than `maxAgeMillis`, or older than a second while
 * the system's version, read within the last second, has moved past the one its read started after.
 */
export const systemDataOutdated = (
  cached: { loadedAt: number; systemVersion: number | undefined },
  now: number,
  maxAgeMillis: number,
  systemVersion?: number,
): boolean =>
  now - cached.loadedAt > maxAgeMillis ||
  (systemVersion !== undefined &&
    now - cached.loadedAt >= ACCESS_FRESHNESS_MILLIS &&
    (cached.systemVersion ?? -1) < systemVersion);

/** The system's version as last read (any age), for stamping a read of system data. */
export const systemVersionLastRead = (): number | undefined => readings().systemVersion;

/** A cached value: when its read started, and the versions the instance had read before that. */
export interface Stamped<T> {
  value: T;
  readAt: number;
  versions?: AccessVersions;
}

/** Reads `load`, stamped with the organization's versions as last read (taken before it starts). */
export const stamped = async <T>(
  orgId: string | undefined,
  now: number,
  load: () => Promise<T>,
): Promise<Stamped<T>> => {
  const versions = orgId === undefined ? undefined : readings().lastRead.get(orgId);
  return { value: await load(), readAt: now, ...(versions ? { versions } : {}) };
};

/**
 * Whether a cached value of the organization may stand in for a fresh read in a token issued at
 * `now`: it was read less than a second ago, or no change that can remove a permission happened
 * between the versions it is stamped with and the latest (read within the last second).
 */
export const isCurrent = async (
  entry: Stamped<unknown>,
  orgId: string | undefined,
  now: number,
): Promise<boolean> => {
  if (now - entry.readAt < ACCESS_FRESHNESS_MILLIS) return true;
  if (!entry.versions || orgId === undefined) return false;
  const { organization, system } = await currentAccessVersions(orgId, now);
  return entry.versions.organization >= organization && entry.versions.system >= system;
};
