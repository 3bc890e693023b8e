import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { allowanceForSecond, type RateLimitSettings } from '../domain/rate-limit.js';
import { db, tableName } from './dynamo.js';
import { RateWindowEntity } from './entities.js';
import { keys } from './keys.js';

/** The one write of the store that needs the item a failed condition saw (to learn a full window's
 * allowance), so it cannot go through `writeOne`. */
const isConditionalCheckFailure = (
  error: unknown,
): error is Error & { Item?: Record<string, AttributeValue> } =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

const WINDOW = RateWindowEntity.projection('admitted', 'allowance');
const PREVIOUS_COUNT = RateWindowEntity.projection('admitted');

/** Counters outlive their second only long enough to serve as "the previous second". */
const COUNTER_LIFETIME_SECONDS = 120;

/** Per instance: allowances of the (organization, second) windows this instance has seen. */
const knownAllowances = new Map<string, Promise<number>>();
/** Per instance: windows found full (pruned with the allowances once their second is past). */
const fullWindows = new Set<string>();

const windowId = (orgId: string, epochSecond: number) => `${orgId}#${epochSecond}`;

const remember = (orgId: string, epochSecond: number, allowance: Promise<number>) => {
  const id = windowId(orgId, epochSecond);
  knownAllowances.set(id, allowance);
  allowance.catch(() => knownAllowances.delete(id));
  // Only the current and the previous second matter; forget older windows.
  const isOld = (id: string) => Number(id.slice(id.lastIndexOf('#') + 1)) < epochSecond - 1;
  for (const known of knownAllowances.keys()) if (isOld(known)) knownAllowances.delete(known);
  for (const full of fullWindows) if (isOld(full)) fullWindows.delete(full);
};

/** The window's allowance from the previous second's count; concurrent callers share one read. */
const allowanceOf = (orgId: string, epochSecond: number, loadSettings: () => Promise<RateLimitSettings>) => {
  const known = knownAllowances.get(windowId(orgId, epochSecond));
  if (known) return known;
  const computed = Promise.all([
    RateWindowEntity.getProjected({ organizationId: orgId, epochSecond: epochSecond - 1 }, PREVIOUS_COUNT),
    loadSettings(),
  ]).then(([previous, settings]) => allowanceForSecond(settings, previous?.admitted ?? 0));
  remember(orgId, epochSecond, computed);
  return computed;
};

/** Increments the window's counter if it has room, creating it with `allowance` if it is new. */
const incrementOrCreate = async (orgId: string, epochSecond: number, allowance: number): Promise<boolean> => {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateWindow(orgId, epochSecond),
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
    if (!isConditionalCheckFailure(error)) throw error;
    fullWindows.add(windowId(orgId, epochSecond));
    return false;
  }
};

/**
 * Admits one request of `orgId` in `epochSecond`, or refuses it, with conditional writes only, so
 * the limit holds across any number of concurrent Lambda instances.
 *
 * Each second has one counter item that stores its own `allowance`, fixed by whoever creates it
 * from the previous second's count. An instance that does not know the window yet first tries a
 * plain conditional increment (the usual case once any instance created the window: one write);
 * otherwise it reads the previous count once and creates or increments in one conditional write.
 */
export const admitRequest = async (
  orgId: string,
  epochSecond: number,
  loadSettings: () => Promise<RateLimitSettings>,
): Promise<boolean> => {
  // A window this instance saw full stays full for the rest of its second: refuse without a write.
  if (fullWindows.has(windowId(orgId, epochSecond))) return false;
  const known = knownAllowances.get(windowId(orgId, epochSecond));
  if (known) return incrementOrCreate(orgId, epochSecond, await known);
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateWindow(orgId, epochSecond),
        UpdateExpression: 'SET admitted = admitted + :one',
        ConditionExpression: 'admitted < allowance',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    remember(orgId, epochSecond, Promise.resolve(WINDOW.decode(Attributes ?? {}).allowance));
    return true;
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
    if (error.Item) {
      // The window exists and is full.
      // The item a failed condition saw comes in DynamoDB's own format, not the document client's.
      remember(orgId, epochSecond, Promise.resolve(WINDOW.decode(unmarshall(error.Item)).allowance));
      fullWindows.add(windowId(orgId, epochSecond));
      return false;
    }
  }
  return incrementOrCreate(orgId, epochSecond, await allowanceOf(orgId, epochSecond, loadSettings));
};
