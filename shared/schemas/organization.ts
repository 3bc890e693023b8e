import * as z from 'zod';
import { epochMillis, identifier } from './common.js';
import { oneLine } from './text.js';

export const organizationName = oneLine(200);

export const presentableOrganization = z
  .strictObject({
    id: identifier,
    name: organizationName,
    createdAt: epochMillis,
    updatedAt: epochMillis,
    createdBy: identifier.optional(),
    mfa: z.strictObject({ enabled: z.boolean() }).optional(),
  })
  .meta({ id: 'PresentableOrganization' });
export type PresentableOrganization = z.infer<typeof presentableOrganization>;
