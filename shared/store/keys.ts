import { searchKeyPart } from '../domain/user-search.js';

/**
 * The single table's key schema and every key string the service builds. Nothing else in the
 * code base concatenates key strings; the CDK table definition reads `TABLE_SCHEMA` too, so the
 * table and the code cannot drift apart.
 *
 * Tenant isolation is structural: organization-owned items live under `ORG#<orgId>` partitions
 * and the organization id always comes from the verified token.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Generic inverted/alternate index: listings in creation order that cross partitions. */
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    // Audit records only (AUDIT_INDEXES below), so that IAM can keep every other function out of them.
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
    { name: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
    { name: 'gsi5', partitionKey: 'gsi5pk', sortKey: 'gsi5sk' },
    { name: 'gsi6', partitionKey: 'gsi6pk', sortKey: 'gsi6sk' },
    { name: 'gsi7', partitionKey: 'gsi7pk', sortKey: 'gsi7sk' },
    // Users by name (USER_SEARCH_INDEXES below); gsi1 holds them by email.
    { name: 'gsi8', partitionKey: 'gsi8pk', sortKey: 'gsi8sk' },
  ],

  /**
   * Sparse local index over an organization's partition: strongly consistent listings in creation
   * order (users by status). Local indexes can only be created with the table.
   */
  localIndexes: [{ name: 'lsi1', sortKey: 'lsi1sk' }],
  /** Epoch seconds; DynamoDB's TTL deletes rate-limit counters and idempotency records. */
  timeToLiveAttribute: 'expiresAt',
} as const;

export type ItemKey = { pk: string; sk: string };

/**
 * Creation-ordered listings inside an organization: entries carry `lsi1sk =
 * <listing>#<sequence>` (clients `gsi1sk`, as they live in partitions of their own); counts per
 * block of sequence numbers locate a page (shared/store/sequenced-listing.ts).
 */
export const LISTINGS = {
  users: (status: string) => `USER#${status}`,
  groups: 'GROUP',
  roles: 'ROLE',
  clients: 'CLIENT',
} as const;

const key = (pk: string, sk: string): ItemKey => ({ pk, sk });
const ORGANIZATION_DIRECTORY = 'ORGS';
const SSO_PROVIDER_DIRECTORY = 'SSO_PROVIDERS';
const clientDirectoryPartition = (orgId: string) => `ORG#${orgId}#CLIENTS`;

/** Fixed-width creation timestamp so lexical order is creation order. */
export const creationSortValue = (createdAtMs: number, id: string): string =>
  `${String(createdAtMs).padStart(15, '0')}#${id}`;

/** Fixed-width sequence number, so lexical order is numeric order. */
export const sequenceSortValue = (sequence: number): string => String(sequence).padStart(12, '0');

export const RATE_COUNTER_PREFIX = 'RATE#';
/** Every rate counter's partition key, as an IAM `dynamodb:LeadingKeys` pattern. */
export const RATE_COUNTER_PARTITIONS = `${RATE_COUNTER_PREFIX}*`;

/** Every audit item's partition key starts so: IAM scopes who may write and read them. */
export const AUDIT_PREFIX = 'AUDIT#';
/** Every audit digest's partition key starts so: nobody may change or delete them. */
export const AUDIT_DIGEST_PREFIX = 'DIGEST#';

/**
 * How audit records are found (shared/store/audit-records.ts). Each index keys a record by one
 * dimension within its organization and shard, sorted by record id (a ULID: time order). Shards
 * spread one organization's busiest index partitions (its timeline, `signin.succeeded`) over
 * several partition key values; a query reads each shard and merges.
 */
export const AUDIT_INDEXES = {
  timeline: { index: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  actor: { index: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  target: { index: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
  action: { index: 'gsi5', partitionKey: 'gsi5pk', sortKey: 'gsi5sk' },
  namespace: { index: 'gsi6', partitionKey: 'gsi6pk', sortKey: 'gsi6sk' },
  outcome: { index: 'gsi7', partitionKey: 'gsi7pk', sortKey: 'gsi7sk' },
} as const;
export type AuditDimension = keyof typeof AUDIT_INDEXES;
/** The indexes only audit records are in: only the audit function may read them. */
export const AUDIT_INDEX_NAMES: ReadonlySet<string> = new Set(
  Object.values(AUDIT_INDEXES).map((index) => index.index),
);

/**
 * How users are searched (shared/store/user-search.ts): the user item itself carries both index
 * entries, so DynamoDB keeps them with every write and a Query answers whole users. Sort values are
 * case-folded (`searchKeyPart`); names, not unique, end in the user id.
 */
export const USER_SEARCH_INDEXES = {
  email: { index: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  name: { index: 'gsi8', partitionKey: 'gsi8pk', sortKey: 'gsi8sk' },
} as const;
export type UserSearchIndex = keyof typeof USER_SEARCH_INDEXES;

const userSearchPartition = (orgId: string, index: UserSearchIndex) =>
  `ORG#${orgId}#USERS_BY_${index.toUpperCase()}`;

export const keys = {
  // System data (global): permission catalogue, managed roles, plugin definitions.
  permissionPartition: 'SYSTEM#PERMISSIONS',
  permission: (permissionId: string) => key('SYSTEM#PERMISSIONS', `PERMISSION#${permissionId}`),
  managedRolePartition: 'SYSTEM#MANAGED_ROLES',
  managedRole: (managedRoleId: string) => key('SYSTEM#MANAGED_ROLES', `MANAGED_ROLE#${managedRoleId}`),
  pluginDefinition: (pluginId: string) => key(`PLUGIN#${pluginId}`, 'DEFINITION'),
  /** Which organization and admin client `npm start` created, so a restart reuses them. */
  localBootstrap: () => key('SYSTEM#BOOTSTRAP', 'LOCAL'),
  /** Moves with every change of system data that can take a permission away (access versions). */
  systemAccessVersion: () => key('SYSTEM#ACCESS_VERSION', 'ACCESS_VERSION'),

  // Agreements (global, published by operators): one item each, and a copy of the latest.
  agreement: (agreementId: string) => key('SYSTEM#AGREEMENTS', `AGREEMENT#${agreementId}`),
  latestAgreement: () => key('SYSTEM#AGREEMENTS', 'LATEST'),

  // Organizations.
  organization: (orgId: string) => key(`ORG#${orgId}`, 'ORG'),
  organizationDirectory: { gsi1pk: ORGANIZATION_DIRECTORY },
  organizationDirectoryEntry: (createdAtMs: number, orgId: string) => ({
    gsi1pk: ORGANIZATION_DIRECTORY,
    gsi1sk: creationSortValue(createdAtMs, orgId),
  }),
  pluginAssignmentPrefix: 'PLUGIN#',
  pluginAssignment: (orgId: string, pluginId: string) => key(`ORG#${orgId}`, `PLUGIN#${pluginId}`),
  organizationPartition: (orgId: string) => `ORG#${orgId}`,
  /** Moves with every change in the organization that can take a permission away (access versions). */
  accessVersion: (orgId: string) => key(`ORG#${orgId}`, 'ACCESS_VERSION'),

  // Roles and policies (organization-owned). Roles are listed by sequence (paged by offset),
  // policies by creation time (listed whole); archiving removes the listing entry.
  role: (orgId: string, roleId: string) => key(`ORG#${orgId}`, `ROLE#${roleId}`),
  policyListingPrefix: 'POLICY#',
  policyListingEntry: (createdAtMs: number, policyId: string) =>
    `POLICY#${creationSortValue(createdAtMs, policyId)}`,

  // API clients: looked up by client id alone at the token endpoint, listed per organization.
  apiClient: (clientId: string) => key(`CLIENT#${clientId}`, 'CLIENT'),
  apiClientDirectory: (orgId: string) => ({ gsi1pk: clientDirectoryPartition(orgId) }),
  apiClientDirectoryEntry: (orgId: string, sequence: number) => ({
    gsi1pk: clientDirectoryPartition(orgId),
    gsi1sk: `${LISTINGS.clients}#${sequenceSortValue(sequence)}`,
  }),

  // Listings (LISTINGS above): the sort key attribute of the organization's listing index, an
  // entry, the end of a listing, and the bucket counts.
  listingSortKey: TABLE_SCHEMA.localIndexes[0].sortKey,
  listingEntry: (listing: string, sequence: number) => `${listing}#${sequenceSortValue(sequence)}`,
  listingEnd: (listing: string) => `${listing}#~`,
  listingBucket: (orgId: string, listing: string, bucket: number) =>
    key(`ORG#${orgId}`, `BUCKET#${listing}#${sequenceSortValue(bucket)}`),
  listingBucketPrefix: (listing: string) => `BUCKET#${listing}#`,

  // Users: creation order is a per-organization sequence number, listed by status.
  user: (orgId: string, userId: string) => key(`ORG#${orgId}`, `USER#${userId}`),
  /** Uniqueness guard: one per lower-cased email in the organization. */
  emailGuard: (orgId: string, email: string) => key(`ORG#${orgId}`, `EMAIL#${email.toLowerCase()}`),
  /** Number of users holding an additional property of this name. */
  userPropertyName: (orgId: string, name: string) => key(`ORG#${orgId}`, `USERPROP#${name}`),
  userPropertyNamePrefix: 'USERPROP#',
  /** The user's search index entries (USER_SEARCH_INDEXES). */
  userSearchPartition,
  userSearchEntries: (user: { organizationId: string; id: string; email: string; name: string }) => ({
    [USER_SEARCH_INDEXES.email.partitionKey]: userSearchPartition(user.organizationId, 'email'),
    [USER_SEARCH_INDEXES.email.sortKey]: searchKeyPart(user.email),
    [USER_SEARCH_INDEXES.name.partitionKey]: userSearchPartition(user.organizationId, 'name'),
    [USER_SEARCH_INDEXES.name.sortKey]: `${searchKeyPart(user.name)}#${user.id}`,
  }),

  // Grant targets owned by other modules (roles, policies, user groups).
  roleNameGuard: (orgId: string, name: string) => key(`ORG#${orgId}`, `ROLENAME#${name.toLowerCase()}`),
  policy: (orgId: string, policyId: string) => key(`ORG#${orgId}`, `POLICY#${policyId}`),
  policyNameGuard: (orgId: string, name: string) => key(`ORG#${orgId}`, `POLICYNAME#${name.toLowerCase()}`),
  userGroup: (orgId: string, groupId: string) => key(`ORG#${orgId}`, `GROUP#${groupId}`),
  /** Uniqueness guards of user groups: lower-cased name, and number when given. */
  userGroupNamePrefix: 'GROUPNAME#',
  userGroupNameGuard: (orgId: string, name: string) => key(`ORG#${orgId}`, `GROUPNAME#${name.toLowerCase()}`),
  userGroupNumberGuard: (orgId: string, number: string) => key(`ORG#${orgId}`, `GROUPNUMBER#${number}`),
  groupMemberPrefix: (groupId: string) => `GROUPMEMBER#${groupId}#`,
  /** Membership, listed per group: `begins_with(sk, GROUPMEMBER#<groupId>#)`. */
  groupMember: (orgId: string, groupId: string, userId: string) =>
    key(`ORG#${orgId}`, `GROUPMEMBER#${groupId}#${userId}`),

  // SCIM: a directory's external ids of users and groups, not unique, found by prefix.
  externalIdPrefix: (type: 'USER' | 'GROUP', externalId: string) => `EXTID#${type}#${externalId}#`,
  externalIdEntry: (orgId: string, type: 'USER' | 'GROUP', externalId: string, id: string) =>
    key(`ORG#${orgId}`, `EXTID#${type}#${externalId}#${id}`),

  // Passkeys (docs/passkeys.md): each in its person's organization, listed per person, and a lookup
  // by credential for a sign-in that names no one yet. Keyed by a digest of the credential id,
  // which WebAuthn lets grow to 1,023 bytes (more than a sort key holds).
  passkey: (orgId: string, userId: string, credentialKey: string) =>
    key(`ORG#${orgId}`, `PASSKEY#${userId}#${credentialKey}`),
  passkeyPrefix: (userId: string) => `PASSKEY#${userId}#`,
  passkeyLookup: (credentialKey: string) => key(`PASSKEYID#${credentialKey}`, 'PASSKEYID'),
  /** A WebAuthn challenge handed out and not yet answered (by its digest): used once, short-lived. */
  passkeyChallenge: (challengeDigest: string) => key(`WEBAUTHN#${challengeDigest}`, 'WEBAUTHN'),

  // Single sign-on links (shared/store/sso-links.ts): a person's upstream identity per SSO
  // provider, pinned at their first federated sign-in. One item per person and provider (listed
  // per person), and one per provider and upstream subject (found at sign-in), each unique.
  // The subject is keyed by a digest: an upstream may send one longer than a sort key holds.
  ssoLink: (orgId: string, userId: string, clientId: string) =>
    key(`ORG#${orgId}`, `SSOLINK#${userId}#${clientId}`),
  ssoLinkPrefix: (userId: string) => `SSOLINK#${userId}#`,
  ssoSubject: (orgId: string, clientId: string, subjectKey: string) =>
    key(`ORG#${orgId}`, `SSOSUBJECT#${clientId}#${subjectKey}`),

  // Consents: one per principal and agreement.
  consent: (orgId: string, principalId: string, agreementId: string) =>
    key(`ORG#${orgId}`, `CONSENT#${principalId}#${agreementId}`),

  // SSO providers (operator-configured): one item per provider, listed across organizations, and
  // one binding per organization it serves, in a partition of that organization's own, so that
  // the sso function may write these two partitions only. The client secret itself lives in the
  // secret store, never here.
  ssoProvider: (clientId: string) => key(`SSO#${clientId}`, 'PROVIDER'),
  ssoProviderDirectory: { gsi1pk: SSO_PROVIDER_DIRECTORY },
  ssoProviderDirectoryEntry: (clientId: string) => ({ gsi1pk: SSO_PROVIDER_DIRECTORY, gsi1sk: clientId }),
  ssoProviderBindingPartition: (orgId: string) => `SSOORG#${orgId}`,
  ssoProviderBinding: (orgId: string, clientId: string) => key(`SSOORG#${orgId}`, `PROVIDER#${clientId}`),

  // SCIM bearer secrets (shared/store/scim-tokens.ts): the SCIM function finds one by the digest of
  // the value a directory sends, in a partition of its own; the organization lists its tokens, each
  // entry holding that digest so that a revocation deletes both. The value itself is never stored.
  scimTokenLookup: (tokenDigest: string) => key(`SCIMTOKEN#${tokenDigest}`, 'SCIMTOKEN'),
  scimTokenPrefix: 'SCIMTOKEN#',
  scimToken: (orgId: string, tokenId: string) => key(`ORG#${orgId}`, `SCIMTOKEN#${tokenId}`),

  // Transactional outbox: messages written with the change that causes them.
  outboxMessage: (orgId: string, createdAt: number, messageId: string) =>
    key(`OUTBOX#${orgId}`, creationSortValue(createdAt, messageId)),

  // Rate limiting: one counter item per organization and calendar second.
  // One partition per organization, second and counter: a second's writes spread over its
  // counters, and no organization's history shares a partition with its present.
  rateCounter: (orgId: string, epochSecond: number, counter: number) =>
    key(`${RATE_COUNTER_PREFIX}${orgId}#${epochSecond}#${counter}`, 'RATE'),

  // Sign-in state, short-lived (TTL) and each in a partition of its own, found by an unguessable
  // id. Codes, sessions and refresh tokens are keyed by a SHA-256 digest of the value the browser
  // or application holds, so the table never holds a usable credential.
  authorizationRequest: (requestId: string) => key(`AUTHREQ#${requestId}`, 'AUTHREQ'),
  authorizationCode: (codeDigest: string) => key(`CODE#${codeDigest}`, 'CODE'),
  session: (sessionDigest: string) => key(`SESSION#${sessionDigest}`, 'SESSION'),
  federationState: (stateDigest: string) => key(`FEDSTATE#${stateDigest}`, 'FEDSTATE'),
  /** A pushed authorization request (RFC 9126), by the digest of its request_uri's random part. */
  pushedRequest: (handleDigest: string) => key(`PAR#${handleDigest}`, 'PAR'),
  refreshToken: (tokenDigest: string) => key(`REFRESH#${tokenDigest}`, 'REFRESH'),
  /** A client assertion's `jti`, kept until the assertion expires: each is accepted once (RFC 7523 3). */
  usedClientAssertion: (clientId: string, jti: string) => key(`ASSERTION#${clientId}#${jti}`, 'JTI'),
  /** Consecutive failed sign-ins of an email in an organization (known or not: no enumeration). */
  signInFailures: (orgId: string, email: string) => key(`LOCKOUT#${orgId}#${email.toLowerCase()}`, 'LOCKOUT'),
  /** Every refresh token descended from one code: reuse of a rotated one revokes them all. */
  refreshFamily: (familyId: string) => key(`RFAMILY#${familyId}`, 'FAMILY'),
  /** An emailed invitation or password reset link (by the digest of its token). */
  passwordLink: (tokenDigest: string) => key(`PWLINK#${tokenDigest}`, 'PWLINK'),
  /** A browser origin of a registered application (its redirect URIs'), for CORS. */
  browserOrigin: (origin: string, clientId: string) => key(`CORS_ORIGIN#${origin}`, `CLIENT#${clientId}`),
  /** Sign-in attempts from one client IP address in one minute. */
  signInAttempts: (address: string, epochMinute: number | '*') =>
    key(`SIGNIN_IP#${address}#${epochMinute}`, 'ATTEMPTS'),

  // Audit records: each in a partition of its own (writes spread; no item collection grows), a
  // record with several targets beside copies that index its other targets. `auditIndexKey` is
  // what one index is keyed by; `value` is empty for the timeline.
  auditRecord: (orgId: string, recordId: string) => key(`${AUDIT_PREFIX}${orgId}#${recordId}`, 'RECORD'),
  auditTargetCopy: (orgId: string, recordId: string, position: number) =>
    key(`${AUDIT_PREFIX}${orgId}#${recordId}`, `TARGET#${position}`),
  auditIndexKey: (orgId: string, dimension: AuditDimension, value: string, shard: number) =>
    `${AUDIT_PREFIX}${orgId}#${dimension}#${value}#${shard}`,

  // Audit digests (shared/audit/digest.ts): an organization's signed hour heads in one partition,
  // each hour's pages of record hashes in one of their own. Not under AUDIT#: the digest function
  // reads them; nobody changes or deletes them (IAM); they expire (TTL) with their last record.
  auditDigestHeads: (orgId: string) => `${AUDIT_DIGEST_PREFIX}${orgId}`,
  /** The hour of the newest head, written with it: a head extends the chain from there only. */
  auditDigestTip: (orgId: string) => key(`${AUDIT_DIGEST_PREFIX}${orgId}`, 'CHAIN'),
  auditDigestHead: (orgId: string, hour: number) =>
    key(`${AUDIT_DIGEST_PREFIX}${orgId}`, `HOUR#${String(hour).padStart(15, '0')}`),
  auditDigestPage: (orgId: string, hour: number, page: number) =>
    key(
      `${AUDIT_DIGEST_PREFIX}${orgId}#${String(hour).padStart(15, '0')}`,
      `PAGE#${String(page).padStart(6, '0')}`,
    ),

  // Idempotency records: one partition each (a table with a local index cannot split
  // a partition key value, so one shared partition would cap the whole service).
  idempotencyRecord: (idempotencyKey: string) => key(`IDEMPOTENCY#${idempotencyKey}`, 'IDEMPOTENCY'),
} as const;
