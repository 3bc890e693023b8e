import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeShardPages, type ShardPage } from '../../shared/audit/shard-pages.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/** Fixed-width ids, so that their text order is their number order, as ULIDs are. */
const idOf = (n: number) => `id${String(n).padStart(5, '0')}`;
const entry = (n: number) => ({ id: idOf(n) });

interface SimulatedQuery {
  low: string;
  high: string;
  /** The Query's Limit: items examined, whether or not the filter keeps them. */
  limit: number;
  /** DynamoDB stops early at 1 MB read: at most this many examined (never fewer than 2). */
  readCap: number;
  keeps: (id: string) => boolean;
  /** DynamoDB answers a LastEvaluatedKey whenever it stopped at the Limit, even with nothing left. */
  keyAtLimit: boolean;
}

/** One shard's Query: newest first, BETWEEN low AND high inclusive, filtered after the Limit counts. */
const queryShard = (ids: readonly string[], query: SimulatedQuery): ShardPage<{ id: string }> => {
  const inRange = ids.filter((id) => id >= query.low && id <= query.high).sort((a, b) => (a < b ? 1 : -1));
  const stop = Math.min(query.limit, query.readCap);
  const examined = inRange.slice(0, stop);
  const page: ShardPage<{ id: string }> = { ids: examined.filter(query.keeps).map((id) => ({ id })) };
  const stopped =
    examined.length === stop && (inRange.length > stop || (query.keyAtLimit && stop === query.limit));
  return stopped ? { ...page, examinedTo: examined.at(-1) as string } : page;
};

describe('mergeShardPages', () => {
  it('drops the id the page continues below: the Query bound includes it', () => {
    const merged = mergeShardPages(
      [{ ids: [entry(9), entry(7), entry(5)] }, { ids: [entry(8)] }],
      10,
      idOf(9),
    );
    expect(merged).toEqual({ entries: [entry(8), entry(7), entry(5)] });
  });

  it('answers a record found in several shards once', () => {
    const merged = mergeShardPages(
      [{ ids: [entry(9), entry(6), entry(3)] }, { ids: [entry(9), entry(4), entry(3)] }, { ids: [entry(6)] }],
      10,
    );
    expect(merged).toEqual({ entries: [entry(9), entry(6), entry(4), entry(3)] });
  });

  it('counts a record found in several shards once against the limit', () => {
    const merged = mergeShardPages([{ ids: [entry(9), entry(8)] }, { ids: [entry(9), entry(8)] }], 2);
    expect(merged).toEqual({ entries: [entry(9), entry(8)] });
  });

  it('continues below its last entry when more than a page is complete', () => {
    const merged = mergeShardPages(
      [{ ids: [entry(9), entry(7), entry(5)] }, { ids: [entry(8), entry(6)] }],
      3,
    );
    expect(merged).toEqual({ entries: [entry(9), entry(8), entry(7)], before: idOf(7) });
  });

  it('keeps only what every shard has examined, and continues below where the furthest-behind stopped', () => {
    // Shard 0 stopped at 7 and may hold more between 7 and 4: entries below 7 are not yet complete.
    const merged = mergeShardPages(
      [
        { ids: [entry(9), entry(7)], examinedTo: idOf(7) },
        { ids: [entry(8), entry(5), entry(4)], examinedTo: idOf(4) },
      ],
      10,
    );
    expect(merged).toEqual({ entries: [entry(9), entry(8), entry(7)], before: idOf(7) });
  });

  it('ends a page before its bytes pass the budget, and continues right below its last entry', () => {
    const sized = (n: number, size: number) => ({ id: idOf(n), size });
    const bytes = { budget: 10, sizeOf: (entry: { size: number }) => entry.size };
    const shards = [{ ids: [sized(9, 4), sized(7, 4)] }, { ids: [sized(8, 4), sized(6, 1)] }];
    // Positive control: without the budget the page holds the limit.
    expect(mergeShardPages(shards, 3).entries.map((found) => found.id)).toEqual([idOf(9), idOf(8), idOf(7)]);
    expect(mergeShardPages(shards, 3, undefined, bytes)).toEqual({
      entries: [sized(9, 4), sized(8, 4)],
      before: idOf(8),
    });
  });

  it('answers one entry alone even when it is over the budget', () => {
    const bytes = { budget: 10, sizeOf: () => 50 };
    expect(mergeShardPages([{ ids: [entry(9), entry(8)] }], 5, undefined, bytes)).toEqual({
      entries: [entry(9)],
      before: idOf(9),
    });
  });

  it('continues below the point reached when filters left nothing', () => {
    expect(mergeShardPages([{ ids: [], examinedTo: idOf(50) }, { ids: [] }], 10, idOf(80))).toEqual({
      entries: [],
      before: idOf(50),
    });
  });
});

describe('mergeShardPages pages through shards (property)', () => {
  const universe = 120;
  const scenario = fc.record({
    shards: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: universe }), { maxLength: 60 }), {
      minLength: 1,
      maxLength: 5,
    }),
    pageLimit: fc.integer({ min: 1, max: 12 }),
    bounds: fc.tuple(fc.integer({ min: 0, max: universe }), fc.integer({ min: 0, max: universe })),
    dropped: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: universe })), { nil: undefined }),
    readCap: fc.integer({ min: 2, max: 20 }),
    keyAtLimit: fc.boolean(),
    budget: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
  });
  /** An entry's size under a byte budget: 1 to 10, fixed per id. */
  const sizeOf = (found: { id: string }) => (Number(found.id.slice(2)) % 10) + 1;

  it('answers every matching id exactly once, newest first, at most a page (and a budget) at a time', () => {
    console.log(`audit shard pages property: seed ${SEED}`);
    fc.assert(
      fc.property(scenario, ({ shards, pageLimit, bounds, dropped, readCap, keyAtLimit, budget }) => {
        const stored = shards.map((numbers) => numbers.map(idOf).sort());
        const [low, high] = [idOf(Math.min(...bounds)), idOf(Math.max(...bounds))];
        const droppedIds = new Set((dropped ?? []).map(idOf));
        const keeps = (id: string) => !droppedIds.has(id);
        const expected = [...new Set(stored.flat())]
          .filter((id) => id >= low && id <= high && keeps(id))
          .sort((a, b) => (a < b ? 1 : -1));

        const answered: string[] = [];
        let before: string | undefined;
        for (let pages = 0; ; pages++) {
          expect(pages, 'paging ends').toBeLessThanOrEqual(4 * universe + 4);
          const query = { low, high: before ?? high, limit: pageLimit + 1, readCap, keeps, keyAtLimit };
          const page = mergeShardPages(
            stored.map((ids) => queryShard(ids, query)),
            pageLimit,
            before,
            budget === undefined ? undefined : { budget, sizeOf },
          );
          expect(page.entries.length).toBeLessThanOrEqual(pageLimit);
          if (budget !== undefined && page.entries.length > 1)
            expect(page.entries.reduce((total, found) => total + sizeOf(found), 0)).toBeLessThanOrEqual(
              budget,
            );
          answered.push(...page.entries.map((found) => found.id));
          if (page.before === undefined) break;
          before = page.before;
        }
        expect(answered).toEqual(expected);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
