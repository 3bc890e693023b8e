import { oneLine } from '../schemas/text.js';
import type { DirectoryGroup } from '../store/scim-groups.js';
import * as z from '../zod.js';
import { invalidValue } from './errors.js';
import { requireCoreSchema, SCIM_SCHEMAS } from './schema-ids.js';

/** The attributes of a SCIM Group body the service reads (RFC 7643 section 4.2); the object is open. */
export const scimGroupBody = z.looseObject({
  schemas: z.optional(z.array(z.string().check(z.maxLength(200))).check(z.maxLength(10))),
  displayName: z.string().check(z.maxLength(200)),
  externalId: z.optional(z.nullable(z.string().check(z.maxLength(256)))),
  members: z.optional(
    z.nullable(
      // As many as a group has: a PATCH's result lists them all; a body is bounded by its 1 MiB.
      z.array(z.looseObject({ value: z.string().check(z.minLength(1), z.maxLength(100)) })),
    ),
  ),
});
export type ScimGroupBody = z.output<typeof scimGroupBody>;

const groupName = oneLine(200);

/** The group a SCIM Group body describes; `members` absent (not `[]`) leaves the members alone. */
export const directoryGroupOf = (
  body: ScimGroupBody,
  membersAbsentMeans: 'keep' | 'none',
): DirectoryGroup => {
  requireCoreSchema(body.schemas, 'Group');
  const name = groupName.safeParse(body.displayName.trim());
  if (!name.success || name.data === '')
    throw invalidValue('displayName must be one line of 1 to 200 characters');
  // Kept exactly as sent (RFC 7643 3.1: the client's identifier, caseExact); blank is none.
  const externalId = body.externalId?.trim() ? body.externalId : undefined;
  const members = body.members ?? (membersAbsentMeans === 'none' ? [] : undefined);
  return {
    displayName: name.data,
    ...(externalId ? { externalId } : {}),
    ...(members ? { members: [...new Set(members.map((member) => member.value))] } : {}),
  };
};

export interface StoredGroupView {
  id: string;
  name: string;
  externalId?: string | undefined;
  createdAt: number;
  updatedAt: number;
}

/** A user group as a SCIM Group; members only when read (`excludedAttributes=members` skips them). */
export const scimGroup = (
  group: StoredGroupView,
  memberIds: readonly string[] | undefined,
  locate: (type: 'Users' | 'Groups', id: string) => string,
) => ({
  schemas: [SCIM_SCHEMAS.group],
  id: group.id,
  ...(group.externalId ? { externalId: group.externalId } : {}),
  displayName: group.name,
  ...(memberIds
    ? {
        members: [...memberIds].sort().map((id) => ({ value: id, $ref: locate('Users', id), type: 'User' })),
      }
    : {}),
  meta: {
    resourceType: 'Group',
    created: new Date(group.createdAt).toISOString(),
    lastModified: new Date(group.updatedAt).toISOString(),
    location: locate('Groups', group.id),
  },
});
