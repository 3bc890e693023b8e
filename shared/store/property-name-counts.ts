import { Conflict, NotFound } from '../domain/errors.js';
import { MAX_ADDITIONAL_PROPERTY_NAMES } from '../domain/limits.js';
import { batchGetByKey } from './batch.js';
import { CounterEntity } from './entities.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { ConcurrentChange, concurrentChange, remove, type SeenItem, update, type Write } from './writes.js';

/**
 * The additional property names in use in an organization: one counter item per name, holding how
 * many users hold it, which exists only while one does (`GET /additionalUserProperties` lists
 * them), and on the organization item how many names are in use, at most
 * MAX_ADDITIONAL_PROPERTY_NAMES. A name whose last user lets it go frees its place at once.
 *
 * A change of a user's properties reads the counters of the names it adds or removes (with the
 * user), and writes, in the user's version-guarded transaction, each counter conditioned on what
 * was read: a name still held by others (`count > 0`) is counted up or down atomically, alongside
 * concurrent changes of the same name; a name coming into use or going out of it is conditioned on
 * being exactly there, and moves the organization's count, which refuses a name beyond the limit.
 * Whatever changed in between fails a condition and the whole change is read and decided again.
 */

const COUNT = { '#count': 'count' };
const NAMES_IN_USE = { '#inUse': 'additionalPropertyNameCount' };

/** The organization's count is missing (written before it was kept): it is counted first. */
export class NamesInUseUncounted extends ConcurrentChange {}

/** How many users hold each of `names` (0 for a name nobody holds); one BatchGet, consistent. */
export const readNameCounts = async (orgId: string, names: ReadonlySet<string>) => {
  const read = await batchGetByKey([...names].map((name) => keys.userPropertyName(orgId, name)));
  return (name: string): number => {
    const item = read.get(keys.userPropertyName(orgId, name));
    return item ? Math.max(0, CounterEntity.decode(item).count) : 0;
  };
};

/** Names in use, counted from their counter items: for an organization without its count. */
export const countNamesInUse = async (orgId: string): Promise<number> =>
  (
    await queryPartition(keys.organizationPartition(orgId), keys.userPropertyNamePrefix, {
      consistent: true,
    })
  ).filter((item) => CounterEntity.decode(item).count > 0).length;

const tooManyNames = (newNames: readonly string[]) =>
  new Conflict(
    'Additional property',
    `An organization's users hold at most ${MAX_ADDITIONAL_PROPERTY_NAMES} distinct additional property ` +
      `names; ${newNames.length} new one(s) would go beyond that`,
  );

/**
 * The writes that count a user's `added` and `removed` names (as `countOf` read them), and move the
 * organization's count of names in use by the names coming into use and going out of it.
 * `namesInUse` is that count as just counted, for an organization that has none stored yet.
 */
export const nameCountWrites = (
  orgId: string,
  change: { added: readonly string[]; removed: readonly string[] },
  countOf: (name: string) => number,
  namesInUse?: number,
): Write[] => {
  const key = (name: string) => keys.userPropertyName(orgId, name);
  const counter = (
    name: string,
    updateExpression: string,
    condition: string,
    values: Record<string, number>,
  ) => update(key(name), { update: updateExpression, condition, names: COUNT, values }, concurrentChange);
  const countUp = (name: string): Write =>
    countOf(name) > 0
      ? counter(name, 'ADD #count :one', '#count > :zero', { ':one': 1, ':zero': 0 })
      : // A name coming into use (an item left at 0 by an earlier version is taken over).
        counter(name, 'SET #count = :one', 'attribute_not_exists(pk) OR #count <= :zero', {
          ':one': 1,
          ':zero': 0,
        });
  const countDown = (name: string): Write => {
    if (countOf(name) > 1)
      return counter(name, 'ADD #count :minus', '#count > :one', { ':minus': -1, ':one': 1 });
    // The last user lets it go: the name frees its place (and leaves the listing).
    if (countOf(name) === 1)
      return remove(
        key(name),
        { condition: '#count = :one', names: COUNT, values: { ':one': 1 } },
        concurrentChange,
      );
    // Not counted as in use (data older than the counts): nothing to free; an item at 0 goes.
    return remove(
      key(name),
      { condition: 'attribute_not_exists(pk) OR #count <= :zero', names: COUNT, values: { ':zero': 0 } },
      concurrentChange,
    );
  };
  const newNames = change.added.filter((name) => countOf(name) === 0);
  const goneNames = change.removed.filter((name) => countOf(name) === 1);
  const writes = [...change.added.map(countUp), ...change.removed.map(countDown)];
  const delta = newNames.length - goneNames.length;
  if (delta === 0) return writes;
  const organization = keys.organization(orgId);
  const refusal = (seen: SeenItem) => {
    if (!seen) return new NotFound('Organization', orgId);
    if (seen[NAMES_IN_USE['#inUse']] === undefined) return new NamesInUseUncounted();
    return tooManyNames(newNames);
  };
  if (namesInUse !== undefined) {
    if (delta > 0 && namesInUse + delta > MAX_ADDITIONAL_PROPERTY_NAMES) throw tooManyNames(newNames);
    // Written only if nobody counted first; a name coming into use in between would have.
    return [
      ...writes,
      update(
        organization,
        {
          update: 'SET #inUse = :counted',
          condition: 'attribute_exists(pk) AND attribute_not_exists(#inUse)',
          names: NAMES_IN_USE,
          values: { ':counted': namesInUse + delta },
          seeItemOnFailure: true,
        },
        (seen) => (seen ? concurrentChange() : new NotFound('Organization', orgId)),
      ),
    ];
  }
  // Last in the transaction: should a counter above have changed too, that is retried, not refused.
  return [
    ...writes,
    update(
      organization,
      {
        update: 'ADD #inUse :delta',
        condition: delta > 0 ? '#inUse <= :room' : 'attribute_exists(#inUse)',
        names: NAMES_IN_USE,
        values: { ':delta': delta, ...(delta > 0 ? { ':room': MAX_ADDITIONAL_PROPERTY_NAMES - delta } : {}) },
        seeItemOnFailure: true,
      },
      refusal,
    ),
  ];
};
