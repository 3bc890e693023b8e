import { scimRoutes } from '../shared/api/routes/scim.js';
import { config } from '../shared/config.js';
import { sendJoinEmail, sendSecurityNotice } from '../shared/email/account-emails.js';
import { notFound } from '../shared/http/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { removePicture } from '../shared/pictures/picture-store.js';
import { scimAdmission } from '../shared/scim/admission.js';
import {
  refuseDiscoveryFilter,
  resourceTypes,
  schemas,
  serviceProviderConfig,
} from '../shared/scim/discovery.js';
import { scimErrorResponse } from '../shared/scim/error-body.js';
import { invalidValue, notImplemented } from '../shared/scim/errors.js';
import { matchesScimFilter, parseScimFilter, type ScimCondition } from '../shared/scim/filter.js';
import { directoryGroupOf, scimGroup, scimGroupBody } from '../shared/scim/group-resource.js';
import { listResponse, scimWindow, windowOverListings } from '../shared/scim/list-paging.js';
import { applyScimPatch } from '../shared/scim/patch.js';
import {
  provisionedUserOf,
  type StoredUserView,
  scimUser,
  scimUserBody,
} from '../shared/scim/user-resource.js';
import { UserEntity, UserGroupEntity, type UserGroupRecord } from '../shared/store/entities.js';
import { keys, LISTINGS } from '../shared/store/keys.js';
import {
  createGroupFromDirectory,
  deleteGroupFromDirectory,
  groupsByDisplayName,
  groupsByExternalId,
  MAX_MEMBERS_ANSWERED,
  membersOf,
  membersOfGroups,
  replaceGroupFromDirectory,
  tooManyMembers,
  visibleGroup,
} from '../shared/store/scim-groups.js';
import {
  createUserFromDirectory,
  deprovisionUser,
  provisionedUser,
  provisionedUsersByEmail,
  provisionedUsersByExternalId,
  replaceUserFromDirectory,
} from '../shared/store/scim-users.js';
import { listingSize, readAt } from '../shared/store/sequenced-listing.js';
import type { UserRecord } from '../shared/store/user-repository.js';

/** SCIM 2.0 provisioning of users and groups (docs/scim.md). */

const base = () => `${config().publicOrigin}/scim/v2`;
const locate = (type: 'Users' | 'Groups', id: string) => `${base()}/${type}/${encodeURIComponent(id)}`;
const asScimUser = (user: StoredUserView) => scimUser(user, locate);

/**
 * A directory's PUT or PATCH of a user. A new address is told to the old one (docs/sign-in.md,
 * "Emails"), as when the management API changes it: it takes over password resets.
 */
const changeFromDirectory = async (
  orgId: string,
  id: string,
  desired: Parameters<typeof replaceUserFromDirectory>[2],
) => {
  const { user, before } = await replaceUserFromDirectory(orgId, id, desired);
  if (user.email.toLowerCase() !== before.email.toLowerCase())
    await sendSecurityNotice(
      { organizationId: orgId, userId: id, to: before.email, name: user.name },
      'email-changed',
    );
  return user;
};

const requireUser = async (orgId: string, id: string) =>
  (await provisionedUser(orgId, id)) ?? Promise.reject(notFound('User'));
const requireGroup = async (orgId: string, id: string) =>
  (await visibleGroup(orgId, id)) ?? Promise.reject(notFound('Group'));

/** `excludedAttributes=members` (Entra ID asks so): the members are not read at all. */
const wantsMembers = (query: { excludedAttributes?: string | undefined }) =>
  !(query.excludedAttributes ?? '').split(',').some((name) => name.trim().toLowerCase() === 'members');

/** Groups as SCIM answers them: with their members (at most MAX_MEMBERS_ANSWERED in all), or without. */
const asScimGroups = async (orgId: string, groups: readonly UserGroupRecord[], withMembers: boolean) => {
  const members = withMembers
    ? await membersOfGroups(
        orgId,
        groups.map((group) => group.id),
      )
    : undefined;
  return groups.map((group, index) => scimGroup(group, members?.[index], locate));
};

/** A group's whole membership goes into one answer only up to the answer's limit. */
const refuseUnanswerable = <D extends { members?: readonly string[] }>(desired: D): D => {
  if ((desired.members?.length ?? 0) > MAX_MEMBERS_ANSWERED) throw tooManyMembers(MAX_MEMBERS_ANSWERED);
  return desired;
};

/**
 * A value whose lookup key is longer than a sort key holds (under 1,024 bytes, as DynamoDB refuses
 * others; ids, emails, external ids and names are far shorter) names nothing stored: answered without a read, which DynamoDB would
 * refuse. Measured on the key as the store builds it, since lower-casing can lengthen a value
 * (`Ⱥ`, 2 bytes, is `ⱥ`, 3).
 */
const SORT_KEY_BYTES_LIMIT = 1024;
type LookupKeys = Partial<Record<ScimCondition['attribute'], (orgId: string, value: string) => string>>;
const USER_LOOKUP_KEYS: LookupKeys = {
  id: (orgId, value) => keys.user(orgId, value).sk,
  userName: (orgId, value) => keys.emailGuard(orgId, value).sk,
  'emails.value': (orgId, value) => keys.emailGuard(orgId, value).sk,
  externalId: (_orgId, value) => keys.externalIdPrefix('USER', value),
};
const GROUP_LOOKUP_KEYS: LookupKeys = {
  id: (orgId, value) => keys.userGroup(orgId, value).sk,
  displayName: (orgId, value) => keys.userGroupNameGuard(orgId, value).sk,
  externalId: (_orgId, value) => keys.externalIdPrefix('GROUP', value),
};
const namesNothing = (orgId: string, lookupKeys: LookupKeys, conditions: readonly ScimCondition[]) =>
  conditions.some((condition) => {
    const lookupKey = lookupKeys[condition.attribute]?.(orgId, condition.value) ?? condition.value;
    return Buffer.byteLength(lookupKey) >= SORT_KEY_BYTES_LIMIT;
  });

/** The users a filter can find: read by the condition that names them (a filter always has one). */
const usersFiltered = async (orgId: string, conditions: readonly ScimCondition[]) => {
  if (namesNothing(orgId, USER_LOOKUP_KEYS, conditions)) return [];
  const by = (attribute: ScimCondition['attribute']) =>
    conditions.find((condition) => condition.attribute === attribute);
  const id = by('id');
  const email = conditions.find(
    (condition) =>
      condition.attribute === 'userName' ||
      (condition.attribute === 'emails.value' && (condition.emailType ?? 'work') === 'work'),
  );
  const externalId = by('externalId');
  const candidates = id
    ? [await provisionedUser(orgId, id.value)].filter((user) => user !== undefined)
    : email
      ? await provisionedUsersByEmail(orgId, email.value)
      : externalId
        ? await provisionedUsersByExternalId(orgId, externalId.value)
        : []; // only emails of another type than work: the service keeps a work email only
  return candidates.filter((user) =>
    matchesScimFilter(
      {
        id: user.id,
        userName: user.email,
        ...(user.externalId ? { externalId: user.externalId } : {}),
        emails: [{ value: user.email, type: 'work' }],
      },
      conditions,
    ),
  );
};

const groupsFiltered = async (orgId: string, conditions: readonly ScimCondition[]) => {
  if (namesNothing(orgId, GROUP_LOOKUP_KEYS, conditions)) return [];
  const by = (attribute: ScimCondition['attribute']) =>
    conditions.find((condition) => condition.attribute === attribute);
  const id = by('id');
  const displayName = by('displayName');
  const externalId = by('externalId');
  const candidates = id
    ? [await visibleGroup(orgId, id.value)].filter((group) => group !== undefined)
    : displayName
      ? await groupsByDisplayName(orgId, displayName.value)
      : externalId
        ? await groupsByExternalId(orgId, externalId.value)
        : [];
  return candidates.filter((group) =>
    matchesScimFilter(
      {
        id: group.id,
        displayName: group.name,
        ...(group.externalId ? { externalId: group.externalId } : {}),
      },
      conditions,
    ),
  );
};

/** What a SCIM User shows (and the mark that hides it): no hash, secret or property is read. */
const SCIM_VIEW = UserEntity.projection(
  'id',
  'email',
  'name',
  'status',
  'givenName',
  'familyName',
  'externalId',
  'userGroups',
  'createdAt',
  'updatedAt',
  'deprovisionedAt',
);
const fullGroups = { decode: (item: Record<string, unknown>) => UserGroupEntity.decode(item) };

/**
 * Every user a directory sees, ACTIVE ones then INACTIVE ones, each in creation order, by offset
 * (docs/scim.md, "Listing"): users the directory deleted count in `totalResults` but are not shown.
 */
const usersPage = async (orgId: string, offset: number, count: number) => {
  const listings = [LISTINGS.users('ACTIVE'), LISTINGS.users('INACTIVE')];
  const sizes = await Promise.all(listings.map((listing) => listingSize(orgId, listing)));
  const parts = windowOverListings(
    sizes.map(({ size }) => size),
    offset,
    count,
  );
  const pages = await Promise.all(
    listings.map((listing, index) => {
      const part = parts[index] ?? { offset: 0, count: 0 };
      return readAt(orgId, listing, part.offset, part.count, sizes[index]?.buckets ?? [], SCIM_VIEW);
    }),
  );
  return {
    users: pages.flat().filter((user) => user.deprovisionedAt === undefined),
    total: sizes.reduce((sum, { size }) => sum + size, 0),
  };
};

const groupsPage = async (orgId: string, offset: number, count: number) => {
  const { size, buckets } = await listingSize(orgId, LISTINGS.groups);
  return { groups: await readAt(orgId, LISTINGS.groups, offset, count, buckets, fullGroups), total: size };
};

/** What a listing is asked: `GET`'s query parameters, or a SearchRequest's (`asListing`). */
interface Listing {
  filter?: string | undefined;
  startIndex?: number | undefined;
  count?: number | undefined;
  excludedAttributes?: string | undefined;
}

/** A SearchRequest (RFC 7644 section 3.4.3) as the query a GET would carry. */
const asListing = (
  search: Omit<Listing, 'excludedAttributes'> & { excludedAttributes?: string[] | undefined },
): Listing => ({
  filter: search.filter,
  startIndex: search.startIndex,
  count: search.count,
  excludedAttributes: search.excludedAttributes?.join(','),
});

const listUsers = async (org: string, listing: Listing) => {
  const { startIndex, count } = scimWindow(listing.startIndex, listing.count);
  if (listing.filter !== undefined) {
    const found = await usersFiltered(org, parseScimFilter('User', listing.filter));
    const page = found.slice(startIndex - 1, startIndex - 1 + count);
    return { body: listResponse(page.map(asScimUser), found.length, startIndex) };
  }
  const { users, total } = await usersPage(org, startIndex - 1, count);
  return { body: listResponse(users.map(asScimUser), total, startIndex) };
};

const listGroups = async (org: string, listing: Listing) => {
  const { startIndex, count } = scimWindow(listing.startIndex, listing.count);
  const { groups, total } =
    listing.filter !== undefined
      ? await groupsFiltered(org, parseScimFilter('Group', listing.filter)).then((found) => ({
          groups: found.slice(startIndex - 1, startIndex - 1 + count),
          total: found.length,
        }))
      : await groupsPage(org, startIndex - 1, count);
  return { body: listResponse(await asScimGroups(org, groups, wantsMembers(listing)), total, startIndex) };
};

/** A patched resource must still be one: what scim-patch answers is read like a body. */
const parsedPatch = <T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  patched: unknown,
): T => {
  const parsed = schema.safeParse(patched);
  if (!parsed.success) throw invalidValue('The operations leave the resource without a valid value');
  return parsed.data;
};

/** RFC 7644 section 3.11: a server without `/Me` SHOULD answer 501. */
const refuseMe = () => {
  throw notImplemented('/Me is not supported: a SCIM token stands for a directory, not a user');
};

export const handler = groupHandler(
  scimRoutes,
  {
    getScimServiceProviderConfig: ({ query }) => {
      refuseDiscoveryFilter(query);
      return { body: serviceProviderConfig(base()) };
    },
    listScimResourceTypes: ({ query }) => {
      refuseDiscoveryFilter(query);
      const types = resourceTypes(base());
      return { body: listResponse(types, types.length, 1) };
    },
    getScimResourceType: ({ path, query }) => {
      refuseDiscoveryFilter(query);
      const type = resourceTypes(base()).find((candidate) => candidate.id === path.id);
      if (!type) throw notFound('Resource type');
      return { body: type };
    },
    listScimSchemas: ({ query }) => {
      refuseDiscoveryFilter(query);
      const all = schemas(base());
      return { body: listResponse(all, all.length, 1) };
    },
    getScimSchema: ({ path, query }) => {
      refuseDiscoveryFilter(query);
      const schema = schemas(base()).find((candidate) => candidate.id === path.id);
      if (!schema) throw notFound('Schema');
      return { body: schema };
    },

    listScimUsers: ({ query }, { principal }) => listUsers(principal.organizationId, query),
    searchScimUsers: ({ body }, { principal }) => listUsers(principal.organizationId, asListing(body)),
    createScimUser: async ({ body }, { principal }) => {
      const { user, joinEmail } = await createUserFromDirectory(
        principal.organizationId,
        provisionedUserOf(body),
        principal.id,
        config().signIn.invitationSeconds,
      );
      if (joinEmail) await sendJoinEmail(joinEmail);
      return { body: asScimUser(user), headers: { location: locate('Users', user.id) } };
    },
    getScimUser: async ({ path }, { principal }) => ({
      body: asScimUser(await requireUser(principal.organizationId, path.id)),
    }),
    // Both work out the user from the latest read, again at each retry of a concurrent change: a
    // change computed from an earlier read would overwrite what another request wrote meanwhile.
    replaceScimUser: async ({ path, body }, { principal }) => {
      const desired = (current: UserRecord) =>
        provisionedUserOf({ ...body, active: body.active ?? current.status === 'ACTIVE' });
      return { body: asScimUser(await changeFromDirectory(principal.organizationId, path.id, desired)) };
    },
    patchScimUser: async ({ path, body }, { principal }) => {
      const desired = (current: UserRecord) => {
        const read = asScimUser(current);
        const patched = parsedPatch(scimUserBody, applyScimPatch(read, body, 'User'));
        return provisionedUserOf(patched, parsedPatch(scimUserBody, read));
      };
      return { body: asScimUser(await changeFromDirectory(principal.organizationId, path.id, desired)) };
    },
    deleteScimUser: async ({ path }, { principal }) => {
      const { hadPicture } = await deprovisionUser(principal.organizationId, path.id);
      if (hadPicture) await removePicture(principal.organizationId, path.id);
      return {};
    },

    listScimGroups: ({ query }, { principal }) => listGroups(principal.organizationId, query),
    searchScimGroups: ({ body }, { principal }) => listGroups(principal.organizationId, asListing(body)),
    createScimGroup: async ({ body }, { principal }) => {
      const desired = refuseUnanswerable(directoryGroupOf(body, 'none'));
      const group = await createGroupFromDirectory(principal.organizationId, desired, principal.id);
      return {
        body: scimGroup(group, desired.members ?? [], locate),
        headers: { location: locate('Groups', group.id) },
      };
    },
    getScimGroup: async ({ path, query }, { principal }) => {
      const org = principal.organizationId;
      const [group] = await asScimGroups(org, [await requireGroup(org, path.id)], wantsMembers(query));
      return { body: group };
    },
    replaceScimGroup: async ({ path, body }, { principal }) => {
      const org = principal.organizationId;
      const desired = refuseUnanswerable(directoryGroupOf(body, 'none'));
      await requireGroup(org, path.id);
      // RFC 7644 3.5.1: a PUT replaces the whole group, an external id left out included.
      const replaced = { ...desired, externalId: desired.externalId ?? null };
      await replaceGroupFromDirectory(org, path.id, replaced, principal.id);
      // Its members are the body's (within the limit) unless changed meanwhile: read them all, as
      // a refusal now would say a change that was made was not.
      const group = await requireGroup(org, path.id);
      return { body: scimGroup(group, await membersOf(org, group.id), locate) };
    },
    patchScimGroup: async ({ path, body }, { principal }) => {
      const org = principal.organizationId;
      const group = await requireGroup(org, path.id);
      // The whole membership, however large: the operations apply to it, and only 204 answers.
      const current = scimGroup(group, await membersOf(org, group.id), locate);
      const patched = directoryGroupOf(
        parsedPatch(scimGroupBody, applyScimPatch(current, body, 'Group')),
        'keep',
      );
      const read = directoryGroupOf(parsedPatch(scimGroupBody, current), 'keep');
      const before = (current.members ?? []).map((member) => member.value);
      // Only what the operations changed: the name or external id as read, written back, would
      // undo a change another request committed since this one read the group.
      const changes = {
        ...(patched.displayName !== read.displayName ? { displayName: patched.displayName } : {}),
        ...(patched.externalId !== read.externalId ? { externalId: patched.externalId ?? null } : {}),
        ...(patched.members !== undefined ? { members: patched.members } : {}),
      };
      await replaceGroupFromDirectory(org, path.id, changes, principal.id, before);
      return {};
    },
    deleteScimGroup: async ({ path }, { principal }) => {
      await deleteGroupFromDirectory(principal.organizationId, path.id);
      return {};
    },
    getScimMe: refuseMe,
    createScimMe: refuseMe,
    replaceScimMe: refuseMe,
    patchScimMe: refuseMe,
    deleteScimMe: refuseMe,
    scimBulk: () => {
      throw notImplemented('Bulk operations are not supported (bulk.supported is false)');
    },
  },
  { scim: { admission: scimAdmission, errors: scimErrorResponse } },
);
