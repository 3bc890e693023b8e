import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { allowanceForSecond, counterCount, type RateLimitSettings, shareOf } from '../domain/rate-limit.js';
import { batchGet } from './batch.js';
import { db, tableName } from './dynamo.js';
import { RateCounterEntity } from './entities.js';
import { conditionItem, isConditionFailure } from './writes.js';

/** Counters outlive their second only long enough to serve as "the previous second". */
const COUNTER_LIFETIME_SECONDS = 120;

const COUNTER = RateCounterEntity.projection('admitted', 'allowance');

/** What this instance knows of one organization's second. */
interface SecondSeen {
  /** The second's allowance, computed once from the previous second's counters. */
  allowance: Promise<number>;
  /** Counters this instance found full: they stay full for the rest of the second. */
  full: Set<number>;
  counters: number;
}

/** Per instance, the seconds of the organizations it serves (only the current and previous matter). */
const seen = new Map<string, SecondSeen>();

const secondSeen = (orgId: string, epochSecond: number, settings: RateLimitSettings): SecondSeen => {
  const id = `${orgId}#${epochSecond}`;
  const known = seen.get(id);
  if (known) return known;
  for (const [other] of seen) {
    if (Number(other.slice(other.lastIndexOf('#') + 1)) < epochSecond - 1) seen.delete(other);
  }
  const counters = counterCount(settings);
  // Without a burst the allowance is the rate. Otherwise every counter of the previous second is
  // read in one call, started at once: it runs beside the first conditional write and is waited
  // for only when a write goes beyond the steady share.
  const allowance =
    settings.burst === 0
      ? Promise.resolve(settings.rate)
      : batchGet(
          Array.from({ length: counters }, (_, counter) =>
            RateCounterEntity.key({ organizationId: orgId, epochSecond: epochSecond - 1, counter }),
          ),
        ).then((items) =>
          allowanceForSecond(
            settings,
            items.reduce((sum, item) => sum + COUNTER.decode(item).admitted, 0),
          ),
        );
  const second = { allowance, full: new Set<number>(), counters };
  allowance.catch(() => {
    if (seen.get(id) === second) seen.delete(id);
  });
  seen.set(id, second);
  return second;
};

type Increment = 'admitted' | 'full' | 'needs-allowance';

/**
 * Counts one request on a counter in one conditional write. A counter whose allowance is set
 * admits up to it. One without (nobody has needed it yet) admits up to `bound`: the counter's share
 * of the steady rate (always within the allowance) or, with `setAllowance`, its share of the
 * allowance, which the write then records.
 */
const increment = async (
  key: ReturnType<typeof RateCounterEntity.key>,
  epochSecond: number,
  bound: number,
  setAllowance: boolean,
): Promise<Increment> => {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET admitted = if_not_exists(admitted, :zero) + :one, expiresAt = :expiresAt${
          setAllowance ? ', allowance = if_not_exists(allowance, :bound)' : ''
        }`,
        ConditionExpression:
          '(attribute_exists(allowance) AND admitted < allowance) OR ' +
          '(attribute_not_exists(allowance) AND (attribute_not_exists(admitted) OR admitted < :bound))',
        ExpressionAttributeValues: {
          ':zero': 0,
          ':one': 1,
          ':bound': bound,
          ':expiresAt': epochSecond + COUNTER_LIFETIME_SECONDS,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'admitted';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const item = conditionItem(error.Item);
    const old = item ? COUNTER.decode(item) : undefined;
    return old?.allowance === undefined && !setAllowance ? 'needs-allowance' : 'full';
  }
};

/** Counts the request on one counter: within the steady share first, the allowance if needed. */
const admitOnCounter = async (
  orgId: string,
  epochSecond: number,
  counter: number,
  counters: number,
  settings: RateLimitSettings,
  second: SecondSeen,
): Promise<boolean> => {
  const key = RateCounterEntity.key({ organizationId: orgId, epochSecond, counter });
  const steadyShare = shareOf(settings.rate, counters, counter);
  if (steadyShare > 0) {
    const outcome = await increment(key, epochSecond, steadyShare, false);
    if (outcome !== 'needs-allowance') return outcome === 'admitted';
  }
  const share = shareOf(await second.allowance, counters, counter);
  return share > 0 && (await increment(key, epochSecond, share, true)) === 'admitted';
};

/**
 * Admits one request of `orgId` in `epochSecond`, or refuses it, with conditional writes only, so
 * the limit holds across any number of concurrent Lambda instances.
 *
 * A second's allowance (DECISIONS.md) is spread over `counterCount` items, each admitting its
 * share, so no item takes more writes than a partition can. A request tries counters in random
 * order until one admits it, and is refused only when every counter is full: exactly the
 * allowance is admitted. A counter admits its share of the steady rate without knowing the
 * allowance (the allowance is never less), so the usual request is one write; the previous
 * second's counters are read beside the first write of each second an instance sees, and a write
 * beyond the steady share waits for that read: at most two round trips in sequence.
 */
export const admitRequest = async (
  orgId: string,
  epochSecond: number,
  settings: RateLimitSettings,
): Promise<boolean> => {
  const second = secondSeen(orgId, epochSecond, settings);
  const { counters } = second;
  const untried = Array.from({ length: counters }, (_, counter) => counter).filter(
    (counter) => !second.full.has(counter),
  );
  while (untried.length > 0) {
    const [counter] = untried.splice(Math.floor(Math.random() * untried.length), 1) as [number];
    if (await admitOnCounter(orgId, epochSecond, counter, counters, settings, second)) return true;
    second.full.add(counter);
  }
  return false;
};

/** Whether this instance already knows every counter of the second is full (no I/O). */
export const knownFull = (orgId: string, epochSecond: number): boolean => {
  const second = seen.get(`${orgId}#${epochSecond}`);
  return second !== undefined && second.full.size >= second.counters;
};
