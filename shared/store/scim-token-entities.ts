import * as z from '../zod.js';
import { defineEntity } from './entity.js';
import { keys } from './keys.js';

/**
 * SCIM bearer secrets (shared/store/scim-tokens.ts), apart from entities.ts so that only the
 * functions that manage or check them carry their declarations. Neither item holds the value.
 */

/** An organization's token as it is listed: what the administrator named it, who made it when. */
export const ScimTokenEntity = defineEntity({
  name: 'SCIM token',
  key: ({ organizationId, id }: { organizationId: string; id: string }) => keys.scimToken(organizationId, id),
  attributes: () =>
    z.object({
      id: z.string(),
      name: z.string(),
      createdAt: z.number(),
      createdBy: z.string(),
      /**
       * The key of its lookup item, so that a revocation deletes both in one transaction: a digest
       * of a 256-bit value, of no use without the value, yet never answered.
       */
      digest: z.string(),
    }),
});

/** What the SCIM endpoint reads for a bearer secret, by its digest: whose it is. */
export const ScimTokenLookupEntity = defineEntity({
  name: 'SCIM token',
  key: ({ digest }: { digest: string }) => keys.scimTokenLookup(digest),
  attributes: () => z.object({ organizationId: z.string(), tokenId: z.string() }),
});
