import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { conflict } from '../http/errors.js';
import { countMetric } from '../observability/metrics.js';
import { db } from './dynamo.js';

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

interface CancellationReason {
  Code?: string;
  Item?: Record<string, unknown>;
}

const MAX_CONFLICT_RETRIES = 10;

/**
 * Runs one DynamoDB transaction. A condition that fails is reported by the index of its item
 * through `onConditionFailed`, which names the error the caller should see. Conflicts with
 * concurrent transactions on the same items are retried with jittered backoff: they mean
 * "try again", not "refused", and retrying is what keeps concurrent grants from failing.
 */
export const transactWrite = async (
  items: TransactItems,
  onConditionFailed: (index: number, reason: CancellationReason) => Error,
): Promise<void> => {
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') throw error;
      const reasons = ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ??
        []) as CancellationReason[];
      const failed = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (failed >= 0) throw onConditionFailed(failed, reasons[failed] as CancellationReason);
      const conflicted = reasons.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflicted) throw error;
      if (attempt >= MAX_CONFLICT_RETRIES)
        throw conflict('The resource is being changed by other requests; retry');
      countMetric('RecoveredFaults');
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** Math.min(attempt, 5)));
    }
  }
};

/** Condition: the item exists and is not archived (needs `:false` bound to false). */
export const IS_LIVE = 'attribute_exists(pk) AND (attribute_not_exists(archived) OR archived = :false)';

/** A transaction item that only checks that a grant target exists and is not archived. */
export const liveTargetCheck = (tableName: string, key: { pk: string; sk: string }) => ({
  ConditionCheck: {
    TableName: tableName,
    Key: key,
    ConditionExpression: IS_LIVE,
    ExpressionAttributeValues: { ':false': false },
  },
});

/** A uniqueness guard: a Put that fails while the key is taken. */
export const guardPut = (
  tableName: string,
  key: { pk: string; sk: string },
  owner: Record<string, string>,
) => ({
  Put: { TableName: tableName, Item: { ...key, ...owner }, ConditionExpression: 'attribute_not_exists(pk)' },
});

/** A version or state condition failed: someone changed the item between our read and write. */
export class ConcurrentChange extends Error {
  constructor() {
    super('The item was changed concurrently');
  }
}

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
      if (tried >= attempts) throw conflict('The resource was changed concurrently; retry');
      countMetric('RecoveredFaults');
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(tried, 6)));
    }
  }
};
