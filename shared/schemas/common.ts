import * as z from '../zod.js';

/** Epoch milliseconds, as the spec's `(ms)` fields. */
export const epochMillis = z.withMeta(z.number(), { description: 'Milliseconds since the Unix epoch' });

/**
 * Ids in paths and bodies: letters, digits and `. _ : @ -`, so an id can never carry a path
 * separator or traversal into a key or a file name (API Gateway decodes `%2F` in path values).
 */
export const identifier = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]*$/, 'Letters, digits and . _ : @ - only'),
  );

/**
 * An email address as accounts hold them: ASCII (a lookalike, such as the Kelvin sign that
 * lowercases to k, never matches an account) and at most 254 characters (RFC 5321's path).
 */
export const emailAddress = z.email().check(z.maxLength(254));

/** DynamoDB stores numbers of at most 38 digits between 1e-130 and 1e126; JavaScript integers are
 * exact only up to 2^53. Anything else would be changed or refused by the table. */
const isStorable = (value: number): boolean =>
  Number.isInteger(value) ? Number.isSafeInteger(value) : Math.abs(value) >= 1e-130;

export const storableNumber = z
  .number()
  .check(
    z.refine(
      isStorable,
      'Integers must lie within ±9007199254740991, other numbers be at least 1e-130 in magnitude',
    ),
  );

export const idPathParams = z.strictObject({ id: identifier });

export const MAX_PAGE_SIZE = 1000;
/** The highest sequence number a listing's sort value holds (twelve digits). */
const MAX_LISTING_POSITION = 999_999_999_999;

export const pagingQuery = z.strictObject({
  page: z.withMeta(z._default(z.coerce.number().check(z.int(), z.gte(0)), 0), {
    description: 'Zero-based page number',
  }),
  pageSize: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_PAGE_SIZE)), MAX_PAGE_SIZE),
  after: z.withMeta(z.optional(z.coerce.number().check(z.int(), z.gte(0), z.lte(MAX_LISTING_POSITION))), {
    description:
      'Where the previous page ended, as its `Link rel="next"` says: the page starts after it, so an item removed from an earlier page moves nothing',
  }),
});
