import {
  FLOW_TYPES,
  ID_TOKEN_SIGNING_ALGORITHMS,
  TOKEN_ENDPOINT_AUTH_METHODS,
} from '../domain/applications.js';
import { jwkSchemas } from '../schemas/client-jwk.js';
import * as z from '../zod.js';
import { defineEntity, stringSet } from './entity.js';
import { keys, LISTINGS } from './keys.js';

/**
 * Every entity of the single table, declared once: attributes, key, index attributes. Those few
 * functions use live beside the repositories that use them (sign-in-entities.ts,
 * sso-entities.ts, scim-token-entities.ts, outbox.ts, bin/local/bootstrap.ts), so that other
 * bundles leave them out. Record types are the schemas' outputs; repositories read items only
 * through `decode` or a projection. The access patterns are listed in docs/storage.md.
 */

// One instance per kind, shared by every attribute: a Zod schema costs module-load CPU in every
// function, and these are immutable.
const storedString = z.string();
const storedNumber = z.number();
const storedBoolean = z.boolean();

const userType = z.enum(['STANDARD', 'RESTRICTED']);
const status = z.enum(['ACTIVE', 'INACTIVE']);
type InOrganization = { organizationId: string; id: string };

// System data (global) ------------------------------------------------------------------------

export const PermissionEntity = defineEntity({
  name: 'Permission',
  key: ({ id }: { id: string }) => keys.permission(id),
  attributes: () =>
    z.object({
      id: storedString,
      module: storedString,
      accessType: storedString,
      moduleDisplayName: storedString,
      accessTypeDisplayName: storedString,
      position: storedNumber,
      dependsOn: z._default(z.array(storedString), []),
      createdAt: storedNumber,
    }),
});

const pluginAction = () => z.object({ module: storedString, actionName: storedString });
/** A plugin permission a role holds: the definition's id and what tokens and responses show. */
const pluginGrant = () => z.extend(pluginAction(), { id: storedString });

export const ManagedRoleEntity = defineEntity({
  name: 'Managed role',
  key: ({ id }: { id: string }) => keys.managedRole(id),
  attributes: () =>
    z.object({
      id: storedString,
      permissions: z.array(storedString),
      pluginPermissions: z._default(z.record(storedString, z.array(pluginAction())), {}),
      createdAt: storedNumber,
      updatedAt: storedNumber,
    }),
});

export const PluginDefinitionEntity = defineEntity({
  name: 'Plugin',
  key: ({ id }: { id: string }) => keys.pluginDefinition(id),
  attributes: () =>
    z.object({
      id: storedString,
      createdAt: storedNumber,
      updatedAt: storedNumber,
      permissionDefinitions: z.array(
        z.extend(pluginAction(), { id: storedString, description: storedString }),
      ),
      dependentPermissions: z.array(
        z.object({ permissionId: storedString, dependentPermissionIds: z.array(storedString) }),
      ),
    }),
});

export const AgreementEntity = defineEntity({
  name: 'Agreement',
  key: ({ id }: { id: string }) => keys.agreement(id),
  attributes: () => z.object({ id: storedString, url: storedString, createdAt: storedString }),
});

/** A copy of the newest agreement, so "latest" is one GetItem. */
export const LatestAgreementEntity = defineEntity({
  name: 'Agreement',
  key: (_ref: Record<string, never>) => keys.latestAgreement(),
  attributes: () => AgreementEntity.attributes,
});

/**
 * Access versions (shared/store/access-versions.ts): counters that move in the transaction of every
 * change that can take a permission away from what the token endpoint caches.
 */
const accessVersion = () => z.object({ version: z._default(storedNumber, 0) });

export const SystemAccessVersionEntity = defineEntity({
  name: 'System access version',
  key: (_ref: Record<string, never>) => keys.systemAccessVersion(),
  attributes: accessVersion,
});

// Organizations -------------------------------------------------------------------------------

const defaultRole = () => z.object({ roleId: storedString, isStandardRole: storedBoolean });

export const OrganizationEntity = defineEntity({
  name: 'Organization',
  key: ({ id }: { id: string }) => keys.organization(id),
  indexes: (organization) => keys.organizationDirectoryEntry(organization.createdAt, organization.id),
  attributes: () =>
    z.object({
      id: storedString,
      name: storedString,
      createdAt: storedNumber,
      updatedAt: storedNumber,
      createdBy: z.optional(storedString),
      mfaEnabled: z._default(storedBoolean, false),
      /** Overrides the default 10 + 10 requests per second. */
      rateLimit: z.optional(z.object({ rate: storedNumber, burst: storedNumber })),
      /** Overrides the audit log's defaults (shared/audit/settings.ts). */
      audit: z.optional(z.object({ retentionDays: storedNumber, shards: storedNumber })),
      defaultRole: z.optional(defaultRole()),
      /** Policies that are not archived (GET /policies answers them at once): at most the limit. */
      livePolicies: z.optional(storedNumber),
      archivedRoleIds: stringSet,
      archivedPolicyIds: stringSet,
      /** The organization's first user, claimed in the transaction that creates it. */
      initialUserId: z.optional(storedString),
      userGroupCount: z.optional(storedNumber),
      /** Plugins assigned (MAX_PLUGINS_PER_ORGANIZATION), counted in the assigning transaction. */
      assignedPluginCount: z.optional(storedNumber),
      /** Live SCIM tokens (MAX_SCIM_TOKENS_PER_ORGANIZATION), counted in their own transactions. */
      scimTokenCount: z.optional(storedNumber),
      /**
       * Additional property names with at least one user (MAX_ADDITIONAL_PROPERTY_NAMES), changed in
       * the transaction that brings a name into use or takes its last user away.
       */
      additionalPropertyNameCount: z.optional(storedNumber),
      // Per-organization sequences of creation order (listings page by them).
      userSequence: z.optional(storedNumber),
      groupSequence: z.optional(storedNumber),
      roleSequence: z.optional(storedNumber),
      clientSequence: z.optional(storedNumber),
    }),
});

export const AccessVersionEntity = defineEntity({
  name: 'Access version',
  key: ({ organizationId }: { organizationId: string }) => keys.accessVersion(organizationId),
  attributes: accessVersion,
});

export const PluginAssignmentEntity = defineEntity({
  name: 'Plugin',
  key: ({ organizationId, pluginId }: { organizationId: string; pluginId: string }) =>
    keys.pluginAssignment(organizationId, pluginId),
  attributes: () => z.object({ pluginId: storedString, assignedAt: storedNumber }),
});

/**
 * Items that only count: a listing's bucket, an additional property name's users (the item of a
 * name exists only while some user holds it).
 */
export const CounterEntity = defineEntity({
  name: 'Counter',
  key: (key: { pk: string; sk: string }) => key,
  attributes: () => z.object({ count: z._default(storedNumber, 0) }),
});

// Users ---------------------------------------------------------------------------------------

/** Additional property values: strings, numbers or `{}` (docs/behaviour.md). */
const additionalValue = () => z.union([storedString, storedNumber, z.strictObject({})]);

export const UserEntity = defineEntity({
  name: 'User',
  key: ({ organizationId, id }: InOrganization) => keys.user(organizationId, id),
  indexes: (user) => ({
    [keys.listingSortKey]: keys.listingEntry(LISTINGS.users(user.status), user.sequence),
    ...keys.userSearchEntries(user),
  }),
  attributes: () =>
    z.object({
      id: storedString,
      organizationId: storedString,
      email: storedString,
      name: storedString,
      status,
      userType,
      /** Creation order within the organization (1 = the first user). */
      sequence: storedNumber,
      createdAt: storedNumber,
      updatedAt: storedNumber,
      createdBy: storedString,
      roles: stringSet,
      managedRoles: stringSet,
      policies: stringSet,
      userGroups: stringSet,
      additionalProperties: z.optional(z.record(storedString, additionalValue())),
      pictureContentType: z.optional(storedString),
      pictureUpdatedAt: z.optional(storedNumber),
      /** The stored picture's version (shared/pictures/picture-store.ts); absent before versions. */
      pictureVersion: z.optional(storedString),
      /** Set by uploads that clean the picture; one stored before is cleaned when served. */
      pictureCleaned: z.optional(storedBoolean),
      passwordHash: z.optional(storedString),
      /**
       * The email the person last proved to hold: an emailed link they used, or an SSO provider
       * that vouched for it. `email_verified` is whether it is still `email` (emailVerified).
       */
      verifiedEmail: z.optional(storedString),
      /** Epoch ms: sessions and refresh tokens of sign-ins before it are void (password reset). */
      credentialsChangedAt: z.optional(storedNumber),
      /** Digests of the live invitation and reset links: a new link voids the previous one. */
      invitationDigest: z.optional(storedString),
      resetDigest: z.optional(storedString),
      /** Epoch ms of the latest reset email: one per RESET_EMAIL_INTERVAL_MILLIS (credentials.ts). */
      resetRequestedAt: z.optional(storedNumber),
      totpSecret: z.optional(storedString),
      /** The last TOTP time step accepted: a code is accepted once (RFC 6238 5.2). */
      totpLastStep: z.optional(storedNumber),
      recoveryCodeDigests: stringSet,
      canSendEmail: storedBoolean,
      /** The organization's first user. */
      isInitial: storedBoolean,
      /** Passkeys the user holds (MAX_PASSKEYS_PER_USER), counted in their transactions. */
      passkeyCount: z.optional(storedNumber),
      /** What a SCIM directory keeps (docs/scim.md): its id for the user, the name's parts. */
      externalId: z.optional(storedString),
      givenName: z.optional(storedString),
      familyName: z.optional(storedString),
      /** Epoch ms a SCIM directory deleted the user: INACTIVE, and gone from SCIM's view. */
      deprovisionedAt: z.optional(storedNumber),
      /** Optimistic concurrency for read-modify-write changes (email, status, properties). */
      version: storedNumber,
    }),
});
export type UserRecord = z.output<typeof UserEntity.attributes>;

/** Uniqueness guards: one item per taken value, naming its holder. */
const guardEntity = <Owner extends string, Ref>(
  name: string,
  key: (ref: Ref) => { pk: string; sk: string },
  owner: Owner,
) =>
  defineEntity({
    name,
    key,
    attributes: () => z.object({ [owner]: storedString } as Record<Owner, z.ZodMiniString>),
  });

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
  attributes: () =>
    z.object({
      id: storedString,
      organizationId: storedString,
      name: storedString,
      number: z.optional(storedString),
      description: z.optional(storedString),
      status,
      roles: stringSet,
      managedRoles: stringSet,
      policies: stringSet,
      sequence: storedNumber,
      createdAt: storedNumber,
      updatedAt: storedNumber,
      createdBy: storedString,
      updatedBy: storedString,
      version: storedNumber,
      /** A SCIM directory's id for the group (docs/scim.md). */
      externalId: z.optional(storedString),
      /**
       * Set while a duplicate is still being filled (`COPYING`) or a delete is still removing
       * members (`DELETING`): such a group is invisible, grants nothing, and a repeated DELETE
       * finishes it.
       */
      lifecycle: z.optional(z.enum(['COPYING', 'DELETING'])),
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
  attributes: () => z.object({ userId: storedString, groupId: storedString, addedAt: storedNumber }),
});

// Roles and policies --------------------------------------------------------------------------

export const RoleEntity = defineEntity({
  name: 'Role',
  key: ({ organizationId, id }: InOrganization) => keys.role(organizationId, id),
  indexes: (role) =>
    role.archived ? {} : { [keys.listingSortKey]: keys.listingEntry(LISTINGS.roles, role.sequence) },
  attributes: () =>
    z.object({
      id: storedString,
      organizationId: storedString,
      name: storedString,
      /** A string set, so assign and revoke are atomic ADD/DELETE. */
      permissions: stringSet,
      /** pluginId -> granted permission definitions. */
      pluginPermissions: z._default(z.record(storedString, z.array(pluginGrant())), {}),
      archived: z._default(storedBoolean, false),
      sequence: storedNumber,
      createdAt: storedNumber,
      updatedAt: storedNumber,
      createdBy: storedString,
      /** Guards the read-modify-writes of its permissions and plugin permissions. */
      version: storedNumber,
    }),
});
export type RoleRecord = z.output<typeof RoleEntity.attributes>;
export type PluginGrant = z.output<ReturnType<typeof pluginGrant>>;

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
  attributes: () =>
    z.object({
      id: storedString,
      organizationId: storedString,
      name: storedString,
      archived: z._default(storedBoolean, false),
      createdAt: storedNumber,
      updatedAt: storedNumber,
      createdBy: storedString,
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
  attributes: () =>
    z.object({
      id: storedString,
      organizationId: storedString,
      name: storedString,
      /** Stored as issued: the spec's client list returns it. The table is encrypted at rest. */
      clientSecret: storedString,
      /** When `clientSecret` was issued (ms): the `lastModifiedDate` of the answer that showed it. */
      secretIssuedAt: z.optional(storedNumber),
      /** The secret before the last rotation, accepted until `previousSecretExpiresAt` (ms). */
      previousSecret: z.optional(storedString),
      previousSecretExpiresAt: z.optional(storedNumber),
      clientType: userType,
      roles: z.array(storedString),
      policies: z.array(storedString),
      createdBy: storedString,
      createdDate: storedNumber,
      lastModifiedBy: storedString,
      lastModifiedDate: storedNumber,
      /** Position in the organization's client listing. */
      sequence: storedNumber,
      deleted: z.optional(storedBoolean),
      // Applications (absent on clients registered before them: api_key).
      flowType: z._default(z.enum(FLOW_TYPES), 'api_key'),
      redirectUris: z._default(z.array(storedString), []),
      postLogoutRedirectUris: z._default(z.array(storedString), []),
      tokenEndpointAuthMethod: z.optional(z.enum(TOKEN_ENDPOINT_AUTH_METHODS)),
      /** Applications only; absent on those registered before RS256 was offered: they stay on ES256. */
      idTokenSignedResponseAlg: z.optional(z.enum(ID_TOKEN_SIGNING_ALGORITHMS)),
      /** Applications only (RFC 9126 section 6): absent is false. */
      requirePushedAuthorizationRequests: z.optional(storedBoolean),
      /** The public keys of a client that authenticates with private_key_jwt (shared/domain/client-keys.ts). */
      jwks: z.optional(jwkSchemas().storedJwks),
      remoteAddresses: z._default(z.array(storedString), []),
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
  attributes: () =>
    z.object({
      id: storedString,
      createdAt: storedString,
      agreementId: storedString,
      userId: storedString,
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
  attributes: () =>
    z.object({
      admitted: storedNumber,
      allowance: z.optional(storedNumber),
      expiresAt: storedNumber,
    }),
});
