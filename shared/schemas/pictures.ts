import * as z from '../zod.js';

/** `v` changes with every upload, so caches never serve an old picture under the same URL. */
export const pictureQuery = z.strictObject({
  v: z.optional(z.string().check(z.maxLength(20), z.regex(/^\d+$/))),
});
