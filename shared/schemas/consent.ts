import * as z from 'zod';
import { identifier } from './common.js';

/** `Date.prototype.toISOString()`: always 24 characters. */
const ISO_TIME = z.iso.datetime().max(24);

/** Where an agreement is published (the operator CLI's `agreement publish`). */
export const AGREEMENT_URL = z.url({ protocol: /^https?$/ }).max(2048);

/**
 * The latest agreement, or null. Not a named component: OpenAPI 3.0 can only say "nullable" next
 * to a type, not next to a reference.
 */
export const nullableAgreement = z
  .strictObject({
    createdAt: ISO_TIME.meta({ description: 'ISO 8601 time of publication' }),
    url: AGREEMENT_URL,
    id: identifier,
  })
  .nullable();

export const consent = z
  .strictObject({
    id: identifier,
    createdAt: ISO_TIME.meta({ description: 'ISO 8601 time of acceptance' }),
    agreementId: identifier,
    userId: identifier.meta({ description: "The accepting principal's id (a user or an API client)" }),
  })
  .meta({ id: 'Consent' });

export const consentStatus = z.strictObject({ accepted: z.boolean() }).meta({ id: 'ConsentStatus' });

export const agreementPathParams = z.strictObject({ agreementId: identifier });
