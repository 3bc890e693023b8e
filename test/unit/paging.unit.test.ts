import { describe, expect, it } from 'vitest';
import { bucketOf, LISTING_BUCKET_SIZE, locatePage } from '../../shared/domain/paging.js';

describe('locating a page from bucket counts', () => {
  const buckets = [
    { bucket: 0, count: 40 },
    { bucket: 2, count: 0 },
    { bucket: 1, count: 60 },
    { bucket: 3, count: 10 },
  ];

  it('starts page 0 at the first non-empty bucket', () => {
    expect(locatePage(buckets, 0)).toEqual({ fromSequence: 0, skip: 0 });
  });

  it('finds the bucket holding the offset, in bucket order, skipping empty ones', () => {
    expect(locatePage(buckets, 39)).toEqual({ fromSequence: 0, skip: 39 });
    expect(locatePage(buckets, 40)).toEqual({ fromSequence: LISTING_BUCKET_SIZE, skip: 0 });
    expect(locatePage(buckets, 99)).toEqual({ fromSequence: LISTING_BUCKET_SIZE, skip: 59 });
    expect(locatePage(buckets, 100)).toEqual({ fromSequence: 3 * LISTING_BUCKET_SIZE, skip: 0 });
  });

  it('answers nothing past the end', () => {
    expect(locatePage(buckets, 110)).toBeUndefined();
    expect(locatePage([], 0)).toBeUndefined();
  });

  it('puts sequence numbers in blocks of the bucket size', () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(LISTING_BUCKET_SIZE - 1)).toBe(0);
    expect(bucketOf(LISTING_BUCKET_SIZE)).toBe(1);
  });
});
