/**
 * Offset paging over a creation-ordered list without reading what comes before the page.
 *
 * Items carry a per-organization sequence number; a maintained counter per block ("bucket") of
 * `LISTING_BUCKET_SIZE` sequence numbers says how many items of a listing fall in it. The page's
 * first item is then found from the counters alone, and the list query starts at its bucket,
 * skipping fewer than one bucket's worth of items. Pure: the store reads and writes the counters.
 */
export const LISTING_BUCKET_SIZE = 100;

export const bucketOf = (sequence: number): number => Math.floor(sequence / LISTING_BUCKET_SIZE);

export interface BucketCount {
  bucket: number;
  count: number;
}

export interface PageStart {
  /** The first sequence number of the bucket where the page begins. */
  fromSequence: number;
  /** Items of that bucket (in the listing) that come before the page. */
  skip: number;
}

/** Where the item at `offset` is, or undefined when the listing has no more than `offset` items. */
export const locatePage = (buckets: readonly BucketCount[], offset: number): PageStart | undefined => {
  let before = 0;
  for (const { bucket, count } of [...buckets].sort((a, b) => a.bucket - b.bucket)) {
    if (count > 0 && offset < before + count) {
      return { fromSequence: bucket * LISTING_BUCKET_SIZE, skip: offset - before };
    }
    before += Math.max(0, count);
  }
  return undefined;
};
