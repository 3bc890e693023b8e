import * as z from 'zod';
import { epochMillis } from './common.js';

/**
 * An SSO provider's client id: also the name of its secret (`sso/<clientId>`), so only the
 * characters both an identifier and a Secrets Manager name allow.
 */
export const ssoClientId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, 'Letters, digits and . _ @ - only');

// Bounded so that any accepted value can be stored as it is (DynamoDB numbers, safe integers).
const expirationHint = epochMillis.min(0).max(Number.MAX_SAFE_INTEGER).meta({
  description:
    'When the customer says the client secret expires (ms); a support hint only, 0 when it was never given',
});

export const ssoProvider = z
  .strictObject({ clientId: z.string(), clientSecretExpirationDate: expirationHint })
  .meta({ id: 'SSOProviderResponse' });

export const ssoClientSecret = z
  .string()
  .min(1)
  .max(8192)
  .refine((secret) => secret.trim() !== '', 'Must not be empty');

export const updateSsoProviderRequest = z
  .strictObject({
    clientSecret: ssoClientSecret,
    clientSecretExpirationDate: expirationHint
      .optional()
      .meta({ description: 'Optional (the previous hint is kept when omitted)' }),
  })
  .meta({ id: 'UpdateSSOProviderRequest' });

export const ssoProviderPath = z.strictObject({ clientId: ssoClientId });
