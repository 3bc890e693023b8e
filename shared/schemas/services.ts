import * as z from '../zod.js';
import { identifier } from './common.js';
import { oneLine } from './text.js';

export const MAX_SERVICE_IDS = 100;

export const servicesByIdsRequest = z.withMeta(
  z.strictObject({ ids: z.array(identifier).check(z.minLength(1), z.maxLength(MAX_SERVICE_IDS)) }),
  { id: 'ServicesByIdsRequest' },
);

export const servicesByIds = z.withMeta(z.strictObject({ id: identifier, name: z.optional(oneLine(200)) }), {
  id: 'ServicesByIds',
});
