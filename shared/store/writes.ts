import {
  type AttributeValue,
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ChangedMeanwhile } from '../domain/errors.js';
import { countMetric } from '../observability/metrics.js';
import { db, tableName } from './dynamo.js';
import type { ItemKey } from './keys.js';

/**
 * Every conditional write of the store, single or in a transaction, described the same way: the
 * operation and the error its condition failing means. The table name is filled in here, and a
 * failed condition becomes that error whatever position the item has in a transaction, so
 * reordering items never changes what a caller is told.
 */

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type WithoutTable<T> = { [K in keyof T]: Omit<NonNullable<T[K]>, 'TableName'> };
export type Operation =
  | WithoutTable<Pick<TransactItem, 'Put'>>
  | WithoutTable<Pick<TransactItem, 'Update'>>
  | WithoutTable<Pick<TransactItem, 'Delete'>>
  | WithoutTable<Pick<TransactItem, 'ConditionCheck'>>;

/** The item a failed condition met, as it was; undefined when there was none. */
export type SeenItem = Record<string, unknown> | undefined;

export interface Write {
  readonly operation: Operation;
  /**
   * What a failed condition means; a write without one has no condition that can fail. Told the
   * item the condition met when the write asked to see it (`update`'s `seeItemOnFailure`).
   */
  readonly fails?: (seen: SeenItem) => Error;
}

/** A condition failed where no caller expected one: a bug, not a refusal. */
const unexpected = () => new Error('A write without a condition failed its condition');

interface Expression {
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

const expressionParts = ({ condition, names, values }: Expression) => ({
  ...(condition ? { ConditionExpression: condition } : {}),
  ...(names && Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
  ...(values && Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
});

export const put = (
  item: Record<string, unknown>,
  expression: Expression = {},
  fails?: () => Error,
): Write => ({
  operation: { Put: { Item: item, ...expressionParts(expression) } },
  ...(fails ? { fails } : {}),
});

/** Writes a new item; `fails` when an item with its key exists already. */
export const create = (item: Record<string, unknown>, fails: () => Error): Write =>
  put(item, { condition: 'attribute_not_exists(pk)' }, fails);

/** A uniqueness guard: an item that only says who holds the key; `fails` while it is taken. */
export const guard = (key: ItemKey, owner: Record<string, string>, fails: () => Error): Write =>
  create({ ...key, ...owner }, fails);

interface UpdateBuilder {
  /**
   * With `seeItemOnFailure`, a failed condition returns the item it met (`ALL_OLD`) and `fails`
   * is told it, so one write tells "missing" (no item) from "full" (an item) without a read.
   */
  (
    key: ItemKey,
    expression: Expression & { update: string; seeItemOnFailure: true },
    fails: (seen: SeenItem) => Error,
  ): Write;
  (key: ItemKey, expression: Expression & { update: string }, fails?: () => Error): Write;
}

export const update: UpdateBuilder = (
  key: ItemKey,
  expression: Expression & { update: string; seeItemOnFailure?: boolean },
  fails?: (seen: SeenItem) => Error,
): Write => ({
  operation: {
    Update: {
      Key: key,
      UpdateExpression: expression.update,
      ...expressionParts(expression),
      ...(expression.seeItemOnFailure ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } : {}),
    },
  },
  ...(fails ? { fails } : {}),
});

export const remove = (key: ItemKey, expression: Expression = {}, fails?: () => Error): Write => ({
  operation: { Delete: { Key: key, ...expressionParts(expression) } },
  ...(fails ? { fails } : {}),
});

export const check = (
  key: ItemKey,
  expression: Expression & { condition: string },
  fails: () => Error,
): Write => ({
  operation: {
    ConditionCheck: { Key: key, ConditionExpression: expression.condition, ...expressionParts(expression) },
  },
  fails,
});

/** Condition: the item exists and is not archived. */
export const IS_LIVE = 'attribute_exists(pk) AND (attribute_not_exists(archived) OR archived = :false)';

/** Checks that an item exists and is not archived (a role, a policy, a managed role). */
export const checkLive = (key: ItemKey, fails: () => Error): Write =>
  check(key, { condition: IS_LIVE, values: { ':false': false } }, fails);

/**
 * `#<tag>0 = :<tag>0, ...` setting each attribute to its value, with the names and values to merge
 * into an update (`tag` keeps several lists apart in one expression).
 */
export const assignments = (attributes: Record<string, unknown>, tag: string) => {
  const entries = Object.entries(attributes);
  return {
    update: entries.map((_entry, index) => `#${tag}${index} = :${tag}${index}`).join(', '),
    names: Object.fromEntries(entries.map(([name], index) => [`#${tag}${index}`, name])),
    values: Object.fromEntries(entries.map(([, value], index) => [`:${tag}${index}`, value])),
  };
};

/** Adds `delta` to a numeric attribute (a count); creates it when missing. */
export const addTo = (key: ItemKey, attribute: string, delta: number): Write =>
  update(key, { update: 'ADD #count :delta', names: { '#count': attribute }, values: { ':delta': delta } });

const withTable = (operation: Operation): TransactItem => {
  const [[kind, body]] = Object.entries(operation) as [[keyof TransactItem, object]];
  return { [kind]: { ...body, TableName: tableName() } } as TransactItem;
};

const MAX_CONFLICT_RETRIES = 10;

const pause = (attempt: number, unitMillis: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * unitMillis * 2 ** Math.min(attempt, 6)));

/**
 * One DynamoDB transaction (at most 100 items; `false` and `undefined` entries are left out, so
 * optional items can be written inline). A failed condition throws that item's error. Conflicts
 * with concurrent transactions on the same items mean "try again", not "refused": they are
 * retried with jittered backoff, which keeps concurrent grants from failing.
 */
export const transact = async (writes: readonly (Write | false | undefined)[]): Promise<void> => {
  const items = writes.filter((write): write is Write => Boolean(write));
  const request = { TransactItems: items.map((write) => withTable(write.operation)) };
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand(request));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failed = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw (items[failed]?.fails ?? unexpected)(conditionItem(reasons[failed]?.Item));
      if (!reasons.some((reason) => reason.Code === 'TransactionConflict')) throw error;
      if (attempt >= MAX_CONFLICT_RETRIES) {
        throw new ChangedMeanwhile('Item', 'The resource is being changed by other requests; retry');
      }
      countMetric('RecoveredFaults');
      await pause(attempt, 20);
    }
  }
};

/** A condition failed where the caller only needs to know that it did: used, replaced, taken meanwhile. */
export class ConditionNotMet extends Error {}
export const conditionNotMet = () => new ConditionNotMet();

/**
 * A condition that each attribute is still as a read found it (equal, or still absent), with its
 * values: a write made on what was read, refused once another write changed it.
 */
export const unchangedSinceRead = (read: Record<string, string | number | undefined>) => ({
  condition: Object.entries(read)
    .map(([name, value]) =>
      value === undefined ? `attribute_not_exists(${name})` : `${name} = :read_${name}`,
    )
    .join(' AND '),
  values: Object.fromEntries(
    Object.entries(read).flatMap(([name, value]) => (value === undefined ? [] : [[`:read_${name}`, value]])),
  ),
});

/**
 * Whether a conditional write went through (false: its condition did not hold); with `also`
 * (an audit record, another conditional write) in the same transaction.
 */
export const conditionHeld = async (write: Write, also: Write[] = []): Promise<boolean> => {
  try {
    if (also.length > 0) await transact([write, ...also]);
    else await writeOne(write);
    return true;
  } catch (error) {
    if (error instanceof ConditionNotMet || isConditionFailure(error)) return false;
    throw error;
  }
};

/** A conditional write's condition failed (with `ALL_OLD`, the item it saw). */
export const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof ConditionalCheckFailedException;

/** The item a failed condition met comes in DynamoDB's format, not the document client's. */
export const conditionItem = (item: Record<string, AttributeValue> | undefined): SeenItem =>
  item ? unmarshall(item) : undefined;

/**
 * One write outside a transaction; answers the item as it is afterwards when `returnNew` (Put
 * and Delete answer nothing). A failed condition throws the write's error.
 */
export const writeOne = async (
  write: Write,
  options: { returnNew?: boolean } = {},
): Promise<Record<string, unknown> | undefined> => {
  const { operation } = write;
  try {
    if ('Put' in operation) {
      await db().send(new PutCommand({ ...operation.Put, TableName: tableName() } as never));
      return undefined;
    }
    if ('Delete' in operation) {
      await db().send(new DeleteCommand({ ...operation.Delete, TableName: tableName() } as never));
      return undefined;
    }
    if ('Update' in operation) {
      const { Attributes } = await db().send(
        new UpdateCommand({
          ...operation.Update,
          TableName: tableName(),
          ...(options.returnNew ? { ReturnValues: 'ALL_NEW' } : {}),
        } as never),
      );
      return Attributes;
    }
    throw new Error('A condition check is written as part of a transaction only');
  } catch (error) {
    if (isConditionFailure(error)) {
      throw (write.fails ?? unexpected)(conditionItem(error.Item));
    }
    throw error;
  }
};

/**
 * Takes an item once: one Delete answering what it deleted, only if `condition` holds (the
 * browser or client it belongs to), so a value handed out is spent by its holder alone; another's
 * attempt leaves it in place. Undefined when there was none or the condition failed, unless the
 * item the condition failed on is one `readsInPlace` says is read rather than taken: answered,
 * and left as it is (in the same request).
 */
export const takeItem = async (
  key: ItemKey,
  expression: Expression & { condition: string },
  readsInPlace?: (seen: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown> | undefined> => {
  try {
    const { Attributes } = await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ...expressionParts(expression),
        ReturnValues: 'ALL_OLD',
        ...(readsInPlace ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
      }),
    );
    return Attributes;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const seen = readsInPlace ? conditionItem(error.Item) : undefined;
    return seen && readsInPlace?.(seen) ? seen : undefined;
  }
};

/** A version or state condition failed: someone changed the item between our read and our write. */
export class ConcurrentChange extends Error {
  constructor() {
    super('The item was changed concurrently');
  }
}

export const concurrentChange = () => new ConcurrentChange();

/**
 * Re-runs an optimistic read-modify-write while concurrent changes get in its way, with jittered
 * backoff so that a burst of writers to one item spreads out instead of colliding again.
 */
export const retryOnConcurrentChange = async <T>(attempt: () => Promise<T>, attempts = 12): Promise<T> => {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ConcurrentChange)) throw error;
      if (tried >= attempts)
        throw new ChangedMeanwhile('Item', 'The resource was changed concurrently; retry');
      countMetric('RecoveredFaults');
      await pause(tried, 10);
    }
  }
};
