import { SCIM_SCHEMAS } from './schema-ids.js';

/** At most this many resources a page (`filter.maxResults` of /ServiceProviderConfig); a larger `count` is capped. */
export const MAX_SCIM_COUNT = 200;
export const DEFAULT_SCIM_COUNT = 100;

/**
 * RFC 7644 section 3.4.2.4: `startIndex` is 1-based and a value below 1 means 1; a negative
 * `count` means 0 (only `totalResults`), and one above the maximum is capped to it.
 */
export const scimWindow = (startIndex: number | undefined, count: number | undefined) => ({
  startIndex: Math.max(1, startIndex ?? 1),
  count: Math.min(MAX_SCIM_COUNT, Math.max(0, count ?? DEFAULT_SCIM_COUNT)),
});

/**
 * The part of the window [offset, offset + count) that falls in each of several listings read one
 * after the other, given their sizes.
 */
export const windowOverListings = (sizes: readonly number[], offset: number, count: number) => {
  let before = 0;
  return sizes.map((size) => {
    const from = Math.min(size, Math.max(0, offset - before));
    const to = Math.min(size, Math.max(0, offset + count - before));
    before += size;
    return { offset: from, count: to - from };
  });
};

export const listResponse = <T>(resources: readonly T[], totalResults: number, startIndex: number) => ({
  schemas: [SCIM_SCHEMAS.listResponse],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});
