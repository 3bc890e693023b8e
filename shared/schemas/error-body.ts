import { ERROR_TEXT_LENGTH, MAX_ERROR_DETAILS } from '../domain/limits.js';
import * as z from '../zod.js';
import { epochMillis } from './common.js';
import { ONE_LINE } from './text.js';

/**
 * The one error shape, for the OpenAPI document; the functions build it in
 * shared/http/error-mapping.ts and need only its type, so they never build this schema.
 */
const errorText = z.string().check(z.maxLength(ERROR_TEXT_LENGTH), z.regex(ONE_LINE));

export const errorDetail = z.strictObject({
  message: errorText,
  field: z.optional(errorText),
  rejectedValue: z.optional(z.unknown()),
});

export const errorBody = z.withMeta(
  z.strictObject({
    status: z.number().check(z.int(), z.gte(400), z.lte(599)),
    error: z.withMeta(z.string().check(z.maxLength(64), z.regex(/^[A-Za-z' -]+$/)), {
      description: 'The reason phrase of the status',
    }),
    message: errorText,
    errorDetails: z.optional(z.array(errorDetail).check(z.maxLength(MAX_ERROR_DETAILS))),
    requestId: z.string().check(z.maxLength(128), z.regex(/^[\x21-\x7e]+$/)),
    timestamp: epochMillis,
  }),
  { id: 'Error' },
);
export type ErrorBody = z.infer<typeof errorBody>;
