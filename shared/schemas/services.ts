import * as z from 'zod';
import { identifier } from './common.js';
import { oneLine } from './text.js';

export const MAX_SERVICE_IDS = 100;

export const servicesByIdsRequest = z
  .strictObject({ ids: z.array(identifier).min(1).max(MAX_SERVICE_IDS) })
  .meta({ id: 'ServicesByIdsRequest' });

export const servicesByIds = z
  .strictObject({ id: identifier, name: oneLine(200).optional() })
  .meta({ id: 'ServicesByIds' });
