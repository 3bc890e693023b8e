import * as z from 'zod';
import { defineEntity } from './entity.js';
import { keys } from './keys.js';

export const SsoProviderEntity = defineEntity({
  name: 'SSO provider',
  key: ({ clientId }: { clientId: string }) => keys.ssoProvider(clientId),
  indexes: (provider) => keys.ssoProviderDirectoryEntry(provider.clientId),
  attributes: () =>
    z.object({
      clientId: z.string(),
      /** A hint from the customer (ms); 0 when never given. */
      clientSecretExpirationDate: z.number(),
      organizationIds: z.set(z.string()),
      /** Federation (docs/single-sign-on.md); a provider without an issuer only keeps a secret. */
      issuer: z.string().optional(),
      scopes: z.string().optional(),
      displayName: z.string().optional(),
      /** Lowercase; sign-in with an email of one of these goes to this provider. */
      emailDomains: z.array(z.string()).optional(),
      /** Creates people unknown to the organization at their first sign-in. */
      jitProvisioning: z.boolean().optional(),
      /** An upstream ID token saying `amr: mfa` replaces IDP's TOTP step. */
      trustedForMfa: z.boolean().optional(),
      createdAt: z.number(),
      createdBy: z.string(),
      updatedAt: z.number(),
      updatedBy: z.string(),
      version: z.number(),
    }),
});

/** The provider as one organization sees it, in a partition of that organization's own. */
export const SsoProviderBindingEntity = defineEntity({
  name: 'SSO provider',
  key: ({ organizationId, clientId }: { organizationId: string; clientId: string }) =>
    keys.ssoProviderBinding(organizationId, clientId),
  // What the sign-in page of the organization needs, with one Query.
  attributes: () =>
    SsoProviderEntity.attributes.pick({
      clientId: true,
      clientSecretExpirationDate: true,
      issuer: true,
      scopes: true,
      displayName: true,
      emailDomains: true,
    }),
});
