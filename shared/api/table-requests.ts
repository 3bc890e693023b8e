import type { TableItemAction } from '../store/dynamo.js';
import {
  AUDIT_DIGEST_PREFIX,
  AUDIT_INDEX_NAMES,
  AUDIT_PREFIX,
  keys,
  RATE_COUNTER_PARTITIONS,
} from '../store/keys.js';
import type { EndpointGroup, RouteDefinition } from './route-definition.js';
import { middlewareOf } from './route-middleware.js';
import { GROUP_TABLE_ACCESS, type TableAccess } from './table-access.js';

// Read by the CDK stack and the local gateway only, like table-access.ts: no function bundles it.

/** What the middleware chain of a function's routes writes beside the function's own data. */
export interface MiddlewareWrites {
  /** Authenticated and SCIM routes are rate limited per organization (`RATE#<org>` counters). */
  readonly rateLimitCounters: boolean;
  /** Routes that honour `Idempotency-Key` keep records under `IDEMPOTENCY#<key>`. */
  readonly idempotencyRecords: boolean;
}

/** Read from the same decision the chain is built from (`middlewareOf`). */
export const middlewareWritesOf = (routes: readonly RouteDefinition[]): MiddlewareWrites => {
  const uses = routes.map(middlewareOf);
  return {
    rateLimitCounters: uses.some((route) => route.authenticated || route.provisioning),
    idempotencyRecords: uses.some((route) => route.idempotency),
  };
};

/** IAM's `StringLike`, for the patterns the grants use: `*` stands for any characters. */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export const stringLike = (pattern: string, value: string): boolean =>
  new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's').test(value);

/** The digest writer's access: the only one whose partitions are digests'. */
export const writesDigests = (access: TableAccess): boolean =>
  typeof access === 'object' &&
  access.writesPartitions.some((pattern) => pattern.startsWith(AUDIT_DIGEST_PREFIX));

const READS: readonly TableItemAction[] = ['GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem'];

/**
 * Whether a function with `access` whose routes' middleware writes `writes` may `action` an item of
 * `partition`, as the IAM statements lib/table-grants.ts makes of the same two decide (a test of
 * the synthesized stack holds the two together): audit records are never read, changed or deleted
 * through the table, digests never changed or deleted, and only the digest writer puts a digest;
 * every function with the table reads the rest; then the function's own writes, audit records
 * appended, its routes' rate counters and idempotency records.
 */
export const itemActionGranted = (
  access: TableAccess,
  writes: MiddlewareWrites,
  action: TableItemAction,
  partition: string,
): boolean => {
  if (partition.startsWith(AUDIT_PREFIX) && action !== 'PutItem') return false;
  if (READS.includes(action)) return access !== 'none';
  if (partition.startsWith(AUDIT_DIGEST_PREFIX) && (action !== 'PutItem' || !writesDigests(access)))
    return false;
  if (access === 'read-write') return true;
  if (typeof access === 'object') {
    if (access.writesPartitions.some((pattern) => stringLike(pattern, partition))) return true;
    if (action === 'PutItem' && partition.startsWith(AUDIT_PREFIX)) return true;
  }
  if (writes.rateLimitCounters && action === 'UpdateItem' && stringLike(RATE_COUNTER_PARTITIONS, partition))
    return true;
  return (
    writes.idempotencyRecords &&
    action !== 'BatchWriteItem' &&
    stringLike(keys.idempotencyRecord('*').pk, partition)
  );
};

/** Whether a function with `access` may Query `index`: the audit indexes are the audit readers' alone. */
export const indexQueryGranted = (access: TableAccess, index: string): boolean =>
  access !== 'none' &&
  (!AUDIT_INDEX_NAMES.has(index) ||
    access === 'read-audit' ||
    (typeof access === 'object' && access.readsAudit === true));

/** What an endpoint group's function may do to the table, for the local gateway to refuse the rest as IAM would. */
export const groupTableGrant = (group: EndpointGroup, routes: readonly RouteDefinition[]) => {
  const access = GROUP_TABLE_ACCESS[group];
  const writes = middlewareWritesOf(routes.filter((route) => route.group === group));
  return {
    allows: (action: TableItemAction, partition: string): boolean =>
      itemActionGranted(access, writes, action, partition),
    queriesIndex: (index: string): boolean => indexQueryGranted(access, index),
  };
};
