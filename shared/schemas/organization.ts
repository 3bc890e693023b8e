import * as z from 'zod';
import { epochMillis } from './common.js';

export const presentableOrganization = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    createdAt: epochMillis,
    updatedAt: epochMillis,
    createdBy: z.string().optional(),
    mfa: z.strictObject({ enabled: z.boolean() }).optional(),
  })
  .meta({ id: 'PresentableOrganization' });
export type PresentableOrganization = z.infer<typeof presentableOrganization>;
