import * as z from 'zod';
import { identifier } from './common.js';

export const servicesByIdsRequest = z
  .strictObject({ ids: z.array(identifier).min(1).max(100) })
  .meta({ id: 'ServicesByIdsRequest' });

export const servicesByIds = z
  .strictObject({ id: z.string(), name: z.string().optional() })
  .meta({ id: 'ServicesByIds' });
