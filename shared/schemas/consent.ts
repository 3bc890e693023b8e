import * as z from '../zod.js';
import { identifier } from './common.js';

/** `Date.prototype.toISOString()`: always 24 characters. */
const ISO_TIME = z.iso.datetime().check(z.maxLength(24));

/** Where an agreement is published (the operator CLI's `agreement publish`). */
export const AGREEMENT_URL = z.url({ protocol: /^https?$/ }).check(z.maxLength(2048));

/**
 * The latest agreement, or null. Not a named component: OpenAPI 3.0 can only say "nullable" next
 * to a type, not next to a reference.
 */
export const nullableAgreement = z.nullable(
  z.strictObject({
    createdAt: z.withMeta(ISO_TIME, { description: 'ISO 8601 time of publication' }),
    url: AGREEMENT_URL,
    id: identifier,
  }),
);

export const consent = z.withMeta(
  z.strictObject({
    id: identifier,
    createdAt: z.withMeta(ISO_TIME, { description: 'ISO 8601 time of acceptance' }),
    agreementId: identifier,
    userId: z.withMeta(identifier, { description: "The accepting principal's id (a user or an API client)" }),
  }),
  { id: 'Consent' },
);

export const consentStatus = z.withMeta(z.strictObject({ accepted: z.boolean() }), { id: 'ConsentStatus' });

export const agreementPathParams = z.strictObject({ agreementId: identifier });
