import * as z from 'zod';
import { FLOW_TYPES, TOKEN_ENDPOINT_AUTH_METHODS } from '../domain/applications.js';
import { defineEntity, stringSet } from './entity.js';
import { keys, LISTINGS } from './keys.js';

/**
 * Every entity of the single table, declared once: attributes, key, index attributes. Those few
 * functions use live beside the repositories that use them (sign-in-entities.ts,
 * sso-entities.ts, outbox.ts, bin/local/bootstrap.ts), so that other bundles leave them out. Record
 * types are the schemas' outputs; repositories read items only through `decode` or a projection.
 * The access patterns are listed in the README's "Storage" section.
 */

const userType = z.enum(['STANDARD', 'RESTRICTED']);
const status = z.enum(['ACTIVE', 'INACTIVE']);
type InOrganization = { organizationId: string; id: string };

// System data (global) ------------------------------------------------------------------------

export const PermissionEntity = defineEntity({
  name: 'Permission',
  key: ({ id }: { id: string }) => keys.permission(id),
  attributes: z.object({
    id: z.string(),
    module: z.string(),
    accessType: z.string(),
    moduleDisplayName: z.string(),
    accessTypeDisplayName: z.string(),
    position: z.number(),
    dependsOn: z.array(z.string()).default([]),
    createdAt: z.number(),
  }),
});

const pluginAction = z.object({ module: z.string(), actionName: z.string() });
/** A plugin permission a role holds: the definition's id and what tokens and responses show. */
const pluginGrant = pluginAction.extend({ id: z.string() });

export const ManagedRoleEntity = defineEntity({
  name: 'Managed role',
  key: ({ id }: { id: string }) => keys.managedRole(id),
  attributes: z.object({
    id: z.string(),
    permissions: z.array(z.string()),
    pluginPermissions: z.record(z.string(), z.array(pluginAction)).default({}),
    createdAt: z.number(),
    updatedAt: z.number(),
  }),
});

export const PluginDefinitionEntity = defineEntity({
  name: 'Plugin',
  key: ({ id }: { id: string }) => keys.pluginDefinition(id),
  attributes: z.object({
    id: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    permissionDefinitions: z.array(pluginAction.extend({ id: z.string(), description: z.string() })),
    dependentPermissions: z.array(
      z.object({ permissionId: z.string(), dependentPermissionIds: z.array(z.string()) }),
    ),
  }),
});

export const AgreementEntity = defineEntity({
  name: 'Agreement',
  key: ({ id }: { id: string }) => keys.agreement(id),
  attributes: z.object({ id: z.string(), url: z.string(), createdAt: z.string() }),
});

/** A copy of the newest agreement, so "latest" is one GetItem. */
export const LatestAgreementEntity = defineEntity({
  name: 'Agreement',
  key: (_ref: Record<string, never>) => keys.latestAgreement(),
  attributes: AgreementEntity.attributes,
});

// Organizations -------------------------------------------------------------------------------

const defaultRole = z.object({ roleId: z.string(), isStandardRole: z.boolean() });

export const OrganizationEntity = defineEntity({
  name: 'Organization',
  key: ({ id }: { id: string }) => keys.organization(id),
  indexes: (organization) => keys.organizationDirectoryEntry(organization.createdAt, organization.id),
  attributes: z.object({
    id: z.string(),
    name: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    createdBy: z.string().optional(),
    mfaEnabled: z.boolean().default(false),
    /** Overrides the default 10 + 10 requests per second. */
    rateLimit: z.object({ rate: z.number(), burst: z.number() }).optional(),
    defaultRole: defaultRole.optional(),
    /** Policies that are not archived (GET /policies answers them at once): at most the limit. */
    livePolicies: z.number().optional(),
    archivedRoleIds: stringSet,
    archivedPolicyIds: stringSet,
    /** The organization's first user, claimed in the transaction that creates it. */
    initialUserId: z.string().optional(),
    userGroupCount: z.number().optional(),
    /** Plugins assigned (MAX_PLUGINS_PER_ORGANIZATION), counted in the assigning transaction. */
    assignedPluginCount: z.number().optional(),
    /**
     * Additional property names with at least one user (MAX_ADDITIONAL_PROPERTY_NAMES), changed in
     * the transaction that brings a name into use or takes its last user away.
     */
    additionalPropertyNameCount: z.number().optional(),
    // Per-organization sequences of creation order (listings page by them).
    userSequence: z.number().optional(),
    groupSequence: z.number().optional(),
    roleSequence: z.number().optional(),
    clientSequence: z.number().optional(),
  }),
});

export const PluginAssignmentEntity = defineEntity({
  name: 'Plugin',
  key: ({ organizationId, pluginId }: { organizationId: string; pluginId: string }) =>
    keys.pluginAssignment(organizationId, pluginId),
  attributes: z.object({ pluginId: z.string(), assignedAt: z.number() }),
});

/**
 * Items that only count: a listing's bucket, an additional property name's users (the item of a
 * name exists only while some user holds it).
 */
export const CounterEntity = defineEntity({
  name: 'Counter',
  key: (key: { pk: string; sk: string }) => key,
  attributes: z.object({ count: z.number().default(0) }),
});

// Users ---------------------------------------------------------------------------------------

/** Additional property values: strings, numbers or `{}` (README, behaviour notes). */
const additionalValue = z.union([z.string(), z.number(), z.object({}).strict()]);

export const UserEntity = defineEntity({
  name: 'User',
  key: ({ organizationId, id }: InOrganization) => keys.user(organizationId, id),
  indexes: (user) => ({
    [keys.listingSortKey]: keys.listingEntry(LISTINGS.users(user.status), user.sequence),
  }),
  attributes: z.object({
    id: z.string(),
    organizationId: z.string(),
    email: z.string(),
    name: z.string(),
    status,
    userType,
    /** Creation order within the organization (1 = the first user). */
    sequence: z.number(),
    createdAt: z.number(),
    updatedAt: z.number(),
    createdBy: z.string(),
    roles: stringSet,
    managedRoles: stringSet,
    policies: stringSet,
    userGroups: stringSet,
    additionalProperties: z.record(z.string(), additionalValue).optional(),
    pictureContentType: z.string().optional(),
    pictureUpdatedAt: z.number().optional(),
    passwordHash: z.string().optional(),
    /** Epoch ms: sessions and refresh tokens of sign-ins before it are void (password reset). */
    credentialsChangedAt: z.number().optional(),
    /** Digests of the live invitation and reset links: a new link voids the previous one. */
    invitationDigest: z.string().optional(),
    resetDigest: z.string().optional(),
    totpSecret: z.string().optional(),
    /** The last TOTP time step accepted: a code is accepted once (RFC 6238 5.2). */
    totpLastStep: z.number().optional(),
    recoveryCodeDigests: stringSet,
    canSendEmail: z.boolean(),
    /** The organization's first user. */
    isInitial: z.boolean(),
    /** Optimistic concurrency for read-modify-write changes (email, status, properties). */
    version: z.number(),
  }),
});
export type UserRecord = z.output<typeof UserEntity.attributes>;

/** Uniqueness guards: one item per taken value, naming its holder. */
const guardEntity = <Owner extends string, Ref>(
  name: string,
  key: (ref: Ref) => { pk: string; sk: string },
  owner: Owner,
) => defineEntity({ name, key, attributes: z.object({ [owner]: z.string() } as Record<Owner, z.ZodString>) });

export const EmailGuardEntity = guardEntity(
  'User',
  ({ organizationId, email }: { organizationId: string; email: string }) =>
    keys.emailGuard(organizationId, email),
  'userId',
);

// User groups ---------------------------------------------------------------------------------

export const UserGroupEntity = defineEntity({
  name: 'User group',
  key: ({ organizationId, id }: InOrganization) => keys.userGroup(organizationId, id),
  // A group being copied or deleted is not listed.
  indexes: (group) =>
    group.lifecycle ? {} : { [keys.listingSortKey]: keys.listingEntry(LISTINGS.groups, group.sequence) },
  attributes: z.object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    number: z.string().optional(),
    description: z.string().optional(),
    status,
    roles: stringSet,
    managedRoles: stringSet,
    policies: stringSet,
    sequence: z.number(),
    createdAt: z.number(),
    updatedAt: z.number(),
    createdBy: z.string(),
    updatedBy: z.string(),
    version: z.number(),
    /**
     * Set while a duplicate is still being filled (`COPYING`) or a delete is still removing
     * members (`DELETING`): such a group is invisible, grants nothing, and a repeated DELETE
     * finishes it.
     */
    lifecycle: z.enum(['COPYING', 'DELETING']).optional(),
  }),
});
export type UserGroupRecord = z.output<typeof UserGroupEntity.attributes>;

export const GroupNameGuardEntity = guardEntity(
  'User group',
  ({ organizationId, name }: { organizationId: string; name: string }) =>
    keys.userGroupNameGuard(organizationId, name),
  'groupId',
);

export const GroupNumberGuardEntity = guardEntity(
  'User group',
  ({ organizationId, number }: { organizationId: string; number: string }) =>
    keys.userGroupNumberGuard(organizationId, number),
  'groupId',
);

/** Membership, listed per group; the user's `userGroups` set is its other side. */
export const GroupMemberEntity = defineEntity({
  name: 'Group membership',
  key: ({ organizationId, groupId, userId }: { organizationId: string; groupId: string; userId: string }) =>
    keys.groupMember(organizationId, groupId, userId),
  attributes: z.object({ userId: z.string(), groupId: z.string(), addedAt: z.number() }),
});

// Roles and policies --------------------------------------------------------------------------

export const RoleEntity = defineEntity({
  name: 'Role',
  key: ({ organizationId, id }: InOrganization) => keys.role(organizationId, id),
  indexes: (role) =>
    role.archived ? {} : { [keys.listingSortKey]: keys.listingEntry(LISTINGS.roles, role.sequence) },
  attributes: z.object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    /** A string set, so assign and revoke are atomic ADD/DELETE. */
    permissions: stringSet,
    /** pluginId -> granted permission definitions. */
    pluginPermissions: z.record(z.string(), z.array(pluginGrant)).default({}),
    archived: z.boolean().default(false),
    sequence: z.number(),
    createdAt: z.number(),
    updatedAt: z.number(),
    createdBy: z.string(),
    /** Guards the read-modify-write of plugin permissions. */
    version: z.number(),
  }),
});
export type RoleRecord = z.output<typeof RoleEntity.attributes>;
export type PluginGrant = z.output<typeof pluginGrant>;

export const RoleNameGuardEntity = guardEntity(
  'Role',
  ({ organizationId, name }: { organizationId: string; name: string }) =>
    keys.roleNameGuard(organizationId, name),
  'roleId',
);

export const PolicyEntity = defineEntity({
  name: 'Policy',
  key: ({ organizationId, id }: InOrganization) => keys.policy(organizationId, id),
  indexes: (policy) =>
    policy.archived ? {} : { [keys.listingSortKey]: keys.policyListingEntry(policy.createdAt, policy.id) },
  attributes: z.object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    archived: z.boolean().default(false),
    createdAt: z.number(),
    updatedAt: z.number(),
    createdBy: z.string(),
  }),
});
export type PolicyRecord = z.output<typeof PolicyEntity.attributes>;

export const PolicyNameGuardEntity = guardEntity(
  'Policy',
  ({ organizationId, name }: { organizationId: string; name: string }) =>
    keys.policyNameGuard(organizationId, name),
  'policyId',
);

// API clients ---------------------------------------------------------------------------------

export const ApiClientEntity = defineEntity({
  name: 'API client',
  key: ({ id }: { id: string }) => keys.apiClient(id),
  // A deleted client stays (history) but leaves its organization's listing.
  indexes: (client) =>
    client.deleted ? {} : keys.apiClientDirectoryEntry(client.organizationId, client.sequence),
  attributes: z.object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    /** Stored as issued: the spec's client list returns it. The table is encrypted at rest. */
    clientSecret: z.string(),
    /** When `clientSecret` was issued (ms): the `lastModifiedDate` of the answer that showed it. */
    secretIssuedAt: z.number().optional(),
    /** The secret before the last rotation, accepted until `previousSecretExpiresAt` (ms). */
    previousSecret: z.string().optional(),
    previousSecretExpiresAt: z.number().optional(),
    clientType: userType,
    roles: z.array(z.string()),
    policies: z.array(z.string()),
    createdBy: z.string(),
    createdDate: z.number(),
    lastModifiedBy: z.string(),
    lastModifiedDate: z.number(),
    /** Position in the organization's client listing. */
    sequence: z.number(),
    deleted: z.boolean().optional(),
    // Applications (absent on clients registered before them: api_key).
    flowType: z.enum(FLOW_TYPES).default('api_key'),
    redirectUris: z.array(z.string()).default([]),
    postLogoutRedirectUris: z.array(z.string()).default([]),
    tokenEndpointAuthMethod: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).optional(),
    remoteAddresses: z.array(z.string()).default([]),
  }),
});
export type ApiClientRecord = z.output<typeof ApiClientEntity.attributes>;

// Consents ------------------------------------------------------------------------------------

export const ConsentEntity = defineEntity({
  name: 'Consent',
  key: ({
    organizationId,
    principalId,
    agreementId,
  }: {
    organizationId: string;
    principalId: string;
    agreementId: string;
  }) => keys.consent(organizationId, principalId, agreementId),
  attributes: z.object({
    id: z.string(),
    createdAt: z.string(),
    agreementId: z.string(),
    userId: z.string(),
  }),
});

// Rate limiting, idempotency --------------------------------------------------------

/** One of the counters of an organization's second; `allowance` is its share, once known. */
export const RateCounterEntity = defineEntity({
  name: 'Rate counter',
  key: ({
    organizationId,
    epochSecond,
    counter,
  }: {
    organizationId: string;
    epochSecond: number;
    counter: number;
  }) => keys.rateCounter(organizationId, epochSecond, counter),
  attributes: z.object({ admitted: z.number(), allowance: z.number().optional(), expiresAt: z.number() }),
});

/**
 * An `Idempotency-Key` record: the hash of the request body it was first used with, who holds it
 * while the request runs, and the response once it finished (without any secret it carried).
 */
export const IdempotencyRecordEntity = defineEntity({
  name: 'Idempotency record',
  key: ({ hash }: { hash: string }) => keys.idempotencyRecord(hash),
  attributes: z.object({
    status: z.enum(['IN_PROGRESS', 'COMPLETED']),
    bodyHash: z.string(),
    /** The request holding the record while it runs; only it may complete or release it. */
    holder: z.string(),
    /** Epoch ms after which a request still IN_PROGRESS is taken to have died. */
    heldUntil: z.number(),
    response: z.string().optional(),
    /** Epoch seconds: DynamoDB's TTL deletes the record. */
    expiresAt: z.number(),
  }),
});
