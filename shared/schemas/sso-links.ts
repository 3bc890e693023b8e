import * as z from '../zod.js';
import { epochMillis, identifier } from './common.js';

/**
 * An SSO provider's client id: also the name of its secret (`sso/<clientId>`), so only the
 * characters both an identifier and a Secrets Manager name allow. Here rather than in sso.ts, as
 * the users function takes it alone (a person's links).
 */
export const ssoClientId = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, 'Letters, digits and . _ @ - only'),
  );

/** An upstream's `sub`: at most 255 ASCII characters (OpenID Connect Core 2), printable ones here. */
export const upstreamSubject = z
  .string()
  .check(z.maxLength(255), z.regex(/^[\x20-\x7e]{1,255}$/, 'Printable ASCII, at most 255'));

export const ssoLink = z.withMeta(
  z.strictObject({
    clientId: z.withMeta(ssoClientId, { description: 'The SSO provider' }),
    issuer: z.withMeta(z.url().check(z.maxLength(2048)), {
      description: "The provider's issuer when the link was made",
    }),
    subject: z.withMeta(upstreamSubject, {
      description: "The person's identifier at the provider's upstream (its ID tokens' `sub`)",
    }),
    linkedAt: z.withMeta(epochMillis, {
      description: 'When their first sign-in through the provider linked it',
    }),
  }),
  { id: 'SsoLink', description: "A person's identity at an SSO provider's upstream, pinned to the account" },
);

export const userSsoLinkPath = z.strictObject({ id: identifier, clientId: ssoClientId });
