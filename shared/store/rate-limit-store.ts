import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { allowanceForSecond, type RateLimitSettings } from '../domain/rate-limit.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { keys } from './keys.js';

/** Counters outlive their second only long enough to serve as "the previous second". */
const COUNTER_LIFETIME_SECONDS = 120;

/**
 * Admits one request of `orgId` in `epochSecond`, or refuses it, with conditional writes only, so
 * the limit holds across any number of concurrent Lambda instances.
 *
 * The counter item of a second stores its own `allowance`, fixed by whoever creates it from the
 * previous second's count. The usual path is a single conditional increment; only the first
 * request of a second also reads the previous counter and the organization's settings.
 */
export const admitRequest = async (
  orgId: string,
  epochSecond: number,
  loadSettings: () => Promise<RateLimitSettings>,
): Promise<boolean> => {
  const windowKey = keys.rateWindow(orgId, epochSecond);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: windowKey,
        UpdateExpression: 'SET admitted = admitted + :one',
        ConditionExpression: 'admitted < allowance',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    // The item exists, so the condition failed on the count: this second is full.
    if ((error as { Item?: unknown }).Item) return false;
  }

  const [previous, settings] = await Promise.all([
    db().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.rateWindow(orgId, epochSecond - 1),
        ConsistentRead: true,
        ProjectionExpression: 'admitted',
      }),
    ),
    loadSettings(),
  ]);
  const allowance = allowanceForSecond(settings, Number(previous.Item?.admitted ?? 0));
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: windowKey,
        UpdateExpression:
          'SET admitted = if_not_exists(admitted, :zero) + :one, allowance = if_not_exists(allowance, :allowance), expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(admitted) OR admitted < allowance',
        ExpressionAttributeValues: {
          ':zero': 0,
          ':one': 1,
          ':allowance': allowance,
          ':expiresAt': epochSecond + COUNTER_LIFETIME_SECONDS,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
};
