/** What one shard's Query answered: entries newest first, and how far it looked if it stopped early. */
export interface ShardPage<T extends { id: string }> {
  ids: T[];
  /** The id of the last item the Query examined (LastEvaluatedKey), when it has more. */
  examinedTo?: string;
}

/** Bounds a page by size besides count: what each entry adds to the answer, and how much may be added. */
export interface PageBytes<T> {
  budget: number;
  sizeOf: (entry: T) => number;
}

/**
 * Merges the shards' answers into one page, newest first. Every shard has examined all of its
 * items at or above the highest `examinedTo`, so entries from there up are complete and in order;
 * the page takes at most `limit` of them, and within `bytes` (always the first: one entry alone
 * is answered whatever its size), and the next page continues below its last entry (or below the
 * point all shards reached, when filters left the page short). `before`, the id this page
 * continues below, is dropped: the Query's bound includes it.
 */
export const mergeShardPages = <T extends { id: string }>(
  shards: readonly ShardPage<T>[],
  limit: number,
  before?: string,
  bytes?: PageBytes<T>,
): { entries: T[]; before?: string } => {
  const reached = shards.reduce<string | undefined>(
    (highest, shard) =>
      shard.examinedTo !== undefined && (highest === undefined || shard.examinedTo > highest)
        ? shard.examinedTo
        : highest,
    undefined,
  );
  const seen = new Set<string>();
  const complete = shards
    .flatMap((shard) => shard.ids)
    .filter((entry) => entry.id !== before && (reached === undefined || entry.id >= reached))
    .filter((entry) => !seen.has(entry.id) && seen.add(entry.id))
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const entries: T[] = [];
  let left = bytes?.budget ?? Number.POSITIVE_INFINITY;
  for (const entry of complete) {
    if (entries.length === limit) break;
    const size = bytes ? bytes.sizeOf(entry) : 0;
    if (entries.length > 0 && size > left) break;
    entries.push(entry);
    left -= size;
  }
  if (entries.length < complete.length) return { entries, before: (entries.at(-1) as T).id };
  return reached === undefined ? { entries } : { entries, before: reached };
};
