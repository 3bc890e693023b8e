import * as z from 'zod';
import { ERROR_TEXT_LENGTH, MAX_ERROR_DETAILS } from '../domain/limits.js';
import { epochMillis } from './common.js';
import { ONE_LINE } from './text.js';

/**
 * The one error shape, for the OpenAPI document; the functions build it in
 * shared/http/error-mapping.ts and need only its type, so they never build this schema.
 */
const errorText = z.string().max(ERROR_TEXT_LENGTH).regex(ONE_LINE);

export const errorDetail = z.strictObject({
  message: errorText,
  field: errorText.optional(),
  rejectedValue: z.unknown().optional(),
});

export const errorBody = z
  .strictObject({
    status: z.number().int().min(400).max(599),
    error: z
      .string()
      .max(64)
      .regex(/^[A-Za-z' -]+$/)
      .meta({ description: 'The reason phrase of the status' }),
    message: errorText,
    errorDetails: z.array(errorDetail).max(MAX_ERROR_DETAILS).optional(),
    requestId: z
      .string()
      .max(128)
      .regex(/^[\x21-\x7e]+$/),
    timestamp: epochMillis,
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBody>;
