import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { TableAccess } from '../shared/api/table-access.js';
import { type MiddlewareWrites, writesDigests } from '../shared/api/table-requests.js';
import {
  AUDIT_DIGEST_PREFIX,
  AUDIT_INDEX_NAMES,
  AUDIT_PREFIX,
  keys,
  RATE_COUNTER_PARTITIONS,
  TABLE_SCHEMA,
} from '../shared/store/keys.js';

export type { TableAccess } from '../shared/api/table-access.js';
export { middlewareWritesOf } from '../shared/api/table-requests.js';

/** No Scan: no operation of the service scans, so no function may. */
const READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
const IDEMPOTENCY_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];

/** What no function may do to an audit record: read it (the audit function reads its indexes), change or delete it. */
const AUDIT_DENIED_ACTIONS = [
  ...READ_ACTIONS,
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** Restricts item actions to items whose partition key matches (IAM fine-grained access control). */
const leadingKeys = (operator: 'StringEquals' | 'StringLike', ...partitions: string[]) => ({
  [`ForAllValues:${operator}`]: { 'dynamodb:LeadingKeys': partitions },
});

/**
 * Least-privilege statements for one function. Indexes are named one by one (from TABLE_SCHEMA)
 * instead of `index/*`, and a read-only function writes only the partitions its middleware owns.
 */
export const tableStatements = (
  table: ITableV2,
  access: Exclude<TableAccess, 'none'>,
  writes: MiddlewareWrites,
): PolicyStatement[] => {
  const indexArn = (name: string) => `${table.tableArn}/index/${name}`;
  const indexes = [...TABLE_SCHEMA.indexes, ...TABLE_SCHEMA.localIndexes].map((index) => index.name);
  const statements = [
    new PolicyStatement({
      actions: READ_ACTIONS,
      resources: [table.tableArn, ...indexes.filter((name) => !AUDIT_INDEX_NAMES.has(name)).map(indexArn)],
    }),
    // Audit records are appended, never read, changed or deleted by a function (issue 26).
    new PolicyStatement({
      effect: Effect.DENY,
      actions: AUDIT_DENIED_ACTIONS,
      resources: [table.tableArn],
      conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [`${AUDIT_PREFIX}*`] } },
    }),
    // Digests are written once and kept: nobody rewrites or deletes one, and only the digest
    // writer puts one (a PutItem over a head or page would replace it).
    new PolicyStatement({
      effect: Effect.DENY,
      actions: [
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        ...(writesDigests(access) ? [] : ['dynamodb:PutItem']),
      ],
      resources: [table.tableArn],
      conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [`${AUDIT_DIGEST_PREFIX}*`] } },
    }),
  ];
  if (access === 'read-audit' || (typeof access === 'object' && access.readsAudit)) {
    statements.push(
      new PolicyStatement({ actions: ['dynamodb:Query'], resources: [...AUDIT_INDEX_NAMES].map(indexArn) }),
    );
  }
  if (access === 'read-write') {
    statements.push(new PolicyStatement({ actions: WRITE_ACTIONS, resources: [table.tableArn] }));
    return statements;
  }
  if (typeof access === 'object') {
    statements.push(
      new PolicyStatement({
        actions: WRITE_ACTIONS,
        resources: [table.tableArn],
        conditions: leadingKeys('StringLike', ...access.writesPartitions),
      }),
      new PolicyStatement({
        actions: ['dynamodb:PutItem'],
        resources: [table.tableArn],
        conditions: leadingKeys('StringLike', `${AUDIT_PREFIX}*`),
      }),
    );
  }
  if (writes.rateLimitCounters) {
    statements.push(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: leadingKeys('StringLike', RATE_COUNTER_PARTITIONS),
      }),
    );
  }
  if (writes.idempotencyRecords) {
    statements.push(
      new PolicyStatement({
        actions: IDEMPOTENCY_ACTIONS,
        resources: [table.tableArn],
        conditions: leadingKeys('StringLike', keys.idempotencyRecord('*').pk),
      }),
    );
  }
  return statements;
};
