import * as z from 'zod';
import { identifier } from './common.js';

/**
 * The latest agreement, or null. Not a named component: OpenAPI 3.0 can only say "nullable" next
 * to a type, not next to a reference.
 */
export const nullableAgreement = z
  .strictObject({
    createdAt: z.string().meta({ description: 'ISO 8601 time of publication' }),
    url: z.string(),
    id: z.string(),
  })
  .nullable();

export const consent = z
  .strictObject({
    id: z.string(),
    createdAt: z.string().meta({ description: 'ISO 8601 time of acceptance' }),
    agreementId: z.string(),
    userId: z.string().meta({ description: "The accepting principal's id (a user or an API client)" }),
  })
  .meta({ id: 'Consent' });

export const consentStatus = z.strictObject({ accepted: z.boolean() }).meta({ id: 'ConsentStatus' });

export const agreementPathParams = z.strictObject({ agreementId: identifier });
