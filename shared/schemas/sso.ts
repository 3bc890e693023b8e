import { isLoopbackHost } from '../domain/applications.js';
import * as z from '../zod.js';
import { epochMillis } from './common.js';
import { ssoClientId } from './sso-links.js';
import { oneLine } from './text.js';

export { ssoClientId } from './sso-links.js';

// Bounded so that any accepted value can be stored as it is (DynamoDB numbers, safe integers).
const expirationHint = z.withMeta(epochMillis.check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)), {
  description:
    'When the customer says the client secret expires (ms); a support hint only, 0 when it was never given',
});

export const ssoProvider = z.withMeta(
  z.strictObject({ clientId: ssoClientId, clientSecretExpirationDate: expirationHint }),
  { id: 'SSOProviderResponse' },
);

export const ssoClientSecret = z
  .withMeta(z.string().check(z.minLength(1), z.maxLength(8192)), { format: 'password' })
  .check(z.refine((secret) => secret.trim() !== '', 'Must not be empty'));

export const updateSsoProviderRequest = z.withMeta(
  z.strictObject({
    clientSecret: ssoClientSecret,
    clientSecretExpirationDate: z.withMeta(z.optional(expirationHint), {
      description: 'Optional (the previous hint is kept when omitted)',
    }),
  }),
  { id: 'UpdateSSOProviderRequest' },
);

export const ssoProviderPath = z.strictObject({ clientId: ssoClientId });

// Federation settings (operators, through the CLI; not part of the spec's API shapes).

/** An OpenID Connect issuer: https (http only on loopback, for local upstreams), no query or fragment. */
export const ssoIssuer = z.url().check(
  z.maxLength(2048),
  z.refine((value) => {
    // zod runs refinements after a failed check too: an unparsable value must not throw here.
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return (
      (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) &&
      !url.search &&
      !url.hash
    );
  }, 'An https URL without query or fragment (http only on localhost)'),
);

export const ssoScopes = z.string().check(
  z.maxLength(1024),
  z.regex(
    /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
    'Scope names separated by single spaces',
  ),
  z.refine((scopes) => scopes.split(' ').includes('openid'), 'Must include openid'),
);

export const ssoDisplayName = oneLine(100);

export const emailDomain = z.pipe(
  z
    .string()
    .check(
      z.maxLength(253),
      z.regex(
        /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i,
        'A domain name such as example.com',
      ),
    ),
  z.transform((domain: string) => domain.toLowerCase()),
);
