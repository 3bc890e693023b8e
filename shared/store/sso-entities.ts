import * as z from '../zod.js';
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
      issuer: z.optional(z.string()),
      scopes: z.optional(z.string()),
      displayName: z.optional(z.string()),
      /** Lowercase; sign-in with an email of one of these goes to this provider. */
      emailDomains: z.optional(z.array(z.string())),
      /** Creates people unknown to the organization at their first sign-in. */
      jitProvisioning: z.optional(z.boolean()),
      /** An upstream ID token saying `amr: mfa` replaces IDP's TOTP step. */
      trustedForMfa: z.optional(z.boolean()),
      /** Which stored value of its client secret is in use (sso-secret-values.ts); none before versions. */
      secretVersion: z.optional(z.string()),
      /**
       * Epoch ms each organization was bound at: what the provider signed in there ends once it is
       * unbound or deleted, and a binding made again later does not revive it.
       */
      boundAt: z.optional(z.record(z.string(), z.number())),
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
    z.extend(
      z.pick(SsoProviderEntity.attributes, {
        clientId: true,
        clientSecretExpirationDate: true,
        issuer: true,
        scopes: true,
        displayName: true,
        emailDomains: true,
      }),
      /** When the provider was bound to this organization (none on bindings written before it was kept). */
      { boundAt: z.optional(z.number()) },
    ),
});
