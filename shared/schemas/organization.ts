import * as z from '../zod.js';
import { epochMillis, identifier } from './common.js';
import { oneLine } from './text.js';

export const organizationName = oneLine(200);

export const presentableOrganization = z.withMeta(
  z.strictObject({
    id: identifier,
    name: organizationName,
    createdAt: epochMillis,
    updatedAt: epochMillis,
    createdBy: z.optional(identifier),
    mfa: z.optional(z.strictObject({ enabled: z.boolean() })),
  }),
  { id: 'PresentableOrganization' },
);
export type PresentableOrganization = z.infer<typeof presentableOrganization>;
