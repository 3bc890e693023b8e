import * as z from '../zod.js';
import { defineEntity } from './entity.js';
import { keys } from './keys.js';

/** An emailed link that sets a password: an invitation (7 days) or a reset (1 hour). */
export const PasswordLinkEntity = defineEntity({
  name: 'Password link',
  key: ({ digest }: { digest: string }) => keys.passwordLink(digest),
  attributes: () =>
    z.object({
      purpose: z.enum(['invitation', 'reset']),
      organizationId: z.string(),
      userId: z.string(),
      /** Epoch ms after which the link is refused. */
      validUntil: z.number(),
      expiresAt: z.number(),
    }),
});
export type PasswordLinkRecord = z.output<typeof PasswordLinkEntity.attributes>;
export type PasswordLinkPurpose = PasswordLinkRecord['purpose'];
