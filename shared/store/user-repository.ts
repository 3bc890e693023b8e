import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserType } from '../api/route-definition.js';
import { conflict, notFound } from '../http/errors.js';
import type { UserStatus } from '../schemas/users.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { defaultRoleOf } from './organization-repository.js';
import { queryPartition } from './query.js';
import { bucketCountDelta, LISTING_SORT_KEY, readPage } from './sequenced-listing.js';
import {
  ConcurrentChange,
  retryOnConcurrentChange,
  type TransactItems,
  transactWrite,
} from './transactions.js';

export interface UserRecord {
  id: string;
  organizationId: string;
  email: string;
  name: string;
  status: UserStatus;
  userType: UserType;
  /** Creation order within the organization (1 = the first user). */
  sequence: number;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  roles?: Set<string>;
  managedRoles?: Set<string>;
  policies?: Set<string>;
  userGroups?: Set<string>;
  additionalProperties?: Record<string, unknown>;
  pictureContentType?: string;
  pictureUpdatedAt?: number;
  passwordHash?: string;
  totpSecret?: string;
  canSendEmail: boolean;
  /** The organization's first user; claimed on the organization item in the creating transaction. */
  isInitial: boolean;
  /** Optimistic concurrency for read-modify-write changes (email, status, properties). */
  version: number;
}

export interface JoinEmail {
  organizationId: string;
  userId: string;
  to: string;
  name: string;
}

/** The join email goes into the outbox in the same transaction as the change that causes it. */
export const outboxPut = (email: JoinEmail, now: number) => {
  const messageId = randomUUID();
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.outboxMessage(email.organizationId, now, messageId),
        messageId,
        type: 'JOIN_EMAIL',
        ...email,
        createdAt: now,
      },
    },
  };
};

/**
 * Creates a user: takes the next sequence number from the organization (which also answers the
 * default role), then writes the user, the email guard, the bucket count and the join email in
 * one transaction. A duplicate email (any case) is 409, also under concurrent creates.
 */
export const createUser = async (
  input: { organizationId: string; email: string; name: string; userType: UserType; createdBy: string },
  now = Date.now(),
): Promise<UserRecord> => {
  let organization: Record<string, unknown> | undefined;
  try {
    ({ Attributes: organization } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(input.organizationId),
        UpdateExpression: 'ADD userSequence :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    ));
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw notFound('Organization');
    throw error;
  }
  const sequence = Number(organization?.userSequence);
  const defaultRole = defaultRoleOf(organization);
  const base: UserRecord = {
    id: randomUUID(),
    organizationId: input.organizationId,
    email: input.email,
    name: input.name,
    status: 'ACTIVE',
    userType: input.userType,
    sequence,
    createdAt: now,
    updatedAt: now,
    createdBy: input.createdBy,
    ...(defaultRole?.isStandardRole === true ? { roles: new Set([defaultRole.roleId]) } : {}),
    ...(defaultRole?.isStandardRole === false ? { managedRoles: new Set([defaultRole.roleId]) } : {}),
    canSendEmail: true,
    isInitial: false,
    version: 1,
  };
  /** Position of the "initial user" claim among the transaction's items below. */
  const INITIAL_CLAIM_INDEX = 4;
  // Until some user holds it, try to claim "initial" in the same transaction; a concurrent
  // creation may win it, and then this user is created as an ordinary one.
  let claimInitial = organization?.initialUserId === undefined;
  for (;;) {
    const user = { ...base, isInitial: claimInitial };
    try {
      await transactWrite(
        [
          {
            Put: {
              TableName: tableName(),
              Item: { ...storedUser(user) },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.emailGuard(input.organizationId, input.email), userId: user.id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          bucketCountDelta(input.organizationId, keys.userListing('ACTIVE'), sequence, 1),
          outboxPut(
            { organizationId: input.organizationId, userId: user.id, to: user.email, name: user.name },
            now,
          ),
          ...(claimInitial
            ? [
                {
                  Update: {
                    TableName: tableName(),
                    Key: keys.organization(input.organizationId),
                    UpdateExpression: 'SET initialUserId = :id',
                    ConditionExpression: 'attribute_not_exists(initialUserId)',
                    ExpressionAttributeValues: { ':id': user.id },
                  },
                },
              ]
            : []),
        ],
        // Losing the claim (the last item) to a concurrent creation only means "not initial".
        (index) =>
          claimInitial && index === INITIAL_CLAIM_INDEX
            ? new ConcurrentChange()
            : conflict('A user with this email already exists in the organization'),
      );
      return user;
    } catch (error) {
      if (!(error instanceof ConcurrentChange)) throw error;
      claimInitial = false;
    }
  }
};

/** The stored item of a user: its key and its place in the status listing. */
export const storedUser = (user: UserRecord) => ({
  ...keys.user(user.organizationId, user.id),
  [LISTING_SORT_KEY]: keys.listingEntry(keys.userListing(user.status), user.sequence),
  ...user,
});

export const getUser = async (
  orgId: string,
  userId: string,
  consistent = false,
): Promise<UserRecord | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.user(orgId, userId), ConsistentRead: consistent }),
  );
  return Item as UserRecord | undefined;
};

/** Only the status of a user (projected read), for the per-request "still active?" check. */
export const getUserStatus = async (orgId: string, userId: string): Promise<UserStatus | undefined> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.user(orgId, userId),
      ProjectionExpression: '#status',
      ExpressionAttributeNames: { '#status': 'status' },
    }),
  );
  return Item?.status as UserStatus | undefined;
};

export const requireUser = async (orgId: string, userId: string, consistent = false): Promise<UserRecord> => {
  const user = await getUser(orgId, userId, consistent);
  if (!user) throw notFound('User');
  return user;
};

export interface UserPage {
  users: UserRecord[];
  hasMore: boolean;
  /** Read capacity the page cost, for measurements. */
  consumedCapacity: number;
}

/** What a user list shows; hashes, secrets and additional properties stay out of list reads. */
const LISTED_USER_ATTRIBUTES = [
  'id',
  'email',
  'name',
  'status',
  'sequence',
  'pictureUpdatedAt',
  'policies',
  'roles',
  'managedRoles',
  'canSendEmail',
  'isInitial',
  'userGroups',
];

/** One page of the organization's users of one status, in creation order (listed attributes only). */
export const listUsers = async (
  orgId: string,
  status: UserStatus,
  page: number,
  pageSize: number,
): Promise<UserPage> => {
  const { items, hasMore, consumedCapacity } = await readPage(
    orgId,
    keys.userListing(status),
    page,
    pageSize,
    LISTED_USER_ATTRIBUTES,
  );
  return { users: items as unknown as UserRecord[], hasMore, consumedCapacity };
};

/** Renames the user and, when it changes, moves the email guard in the same transaction. */
export const updateUserProfile = (
  orgId: string,
  userId: string,
  changes: { name: string; email?: string },
  now = Date.now(),
): Promise<UserRecord> =>
  retryOnConcurrentChange(async () => {
    const current = await requireUser(orgId, userId, true);
    const email = changes.email ?? current.email;
    const items: TransactItems = [
      {
        Update: {
          TableName: tableName(),
          Key: keys.user(orgId, userId),
          UpdateExpression: 'SET #name = :name, email = :email, updatedAt = :now, version = version + :one',
          ConditionExpression: 'version = :version',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: {
            ':name': changes.name,
            ':email': email,
            ':now': now,
            ':one': 1,
            ':version': current.version,
          },
        },
      },
    ];
    const emailChanges = email.toLowerCase() !== current.email.toLowerCase();
    if (emailChanges) {
      items.push(
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.emailGuard(orgId, email), userId },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Delete: { TableName: tableName(), Key: keys.emailGuard(orgId, current.email) } },
      );
    }
    await transactWrite(items, (index) =>
      index === 1
        ? conflict('A user with this email already exists in the organization')
        : new ConcurrentChange(),
    );
    return { ...current, name: changes.name, email, updatedAt: now, version: current.version + 1 };
  });

/** Moves the user between the ACTIVE and INACTIVE listings, keeping the bucket counts exact. */
export const setUserStatus = (orgId: string, userId: string, status: UserStatus, now = Date.now()) =>
  retryOnConcurrentChange(async () => {
    const current = await requireUser(orgId, userId, true);
    if (current.status === status) return;
    await transactWrite(
      [
        {
          Update: {
            TableName: tableName(),
            Key: keys.user(orgId, userId),
            UpdateExpression:
              'SET #status = :status, #listing = :listing, updatedAt = :now, version = version + :one',
            ConditionExpression: '#status = :old',
            ExpressionAttributeNames: {
              '#status': 'status',
              '#listing': LISTING_SORT_KEY,
            },
            ExpressionAttributeValues: {
              ':status': status,
              ':old': current.status,
              ':listing': keys.listingEntry(keys.userListing(status), current.sequence),
              ':now': now,
              ':one': 1,
            },
          },
        },
        bucketCountDelta(orgId, keys.userListing(current.status), current.sequence, -1),
        bucketCountDelta(orgId, keys.userListing(status), current.sequence, 1),
      ],
      // Another request changed the status in between: read again and re-decide.
      () => new ConcurrentChange(),
    );
  });

/** Sets and removes attributes of an existing user (user type, MFA secret, password hash, picture). */
export const updateUserAttributes = async (
  orgId: string,
  userId: string,
  set: Record<string, unknown>,
  remove: string[] = [],
  now = Date.now(),
): Promise<void> => {
  const names = Object.keys(set);
  const expression = [
    `SET ${[...Array.from(names.keys(), (index) => `#s${index} = :s${index}`), 'updatedAt = :now'].join(', ')}`,
    ...(remove.length > 0 ? [`REMOVE ${Array.from(remove.keys(), (index) => `#r${index}`).join(', ')}`] : []),
  ].join(' ');
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.user(orgId, userId),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((name, index) => [`#s${index}`, name])),
          ...Object.fromEntries(remove.map((name, index) => [`#r${index}`, name])),
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name, index) => [`:s${index}`, set[name]])),
          ':now': now,
        },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw notFound('User');
    throw error;
  }
};

/** Queues the join email again for an existing user. */
export const queueJoinEmail = async (orgId: string, userId: string, now = Date.now()): Promise<JoinEmail> => {
  const user = await requireUser(orgId, userId);
  const email = { organizationId: orgId, userId, to: user.email, name: user.name };
  await transactWrite(
    [
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.user(orgId, userId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      outboxPut(email, now),
    ],
    () => notFound('User'),
  );
  return email;
};

/** Names of additional properties that at least one user of the organization holds. */
export const listAdditionalPropertyNames = async (orgId: string): Promise<string[]> =>
  (await queryPartition(keys.organizationPartition(orgId), keys.userPropertyNamePrefix))
    .filter((item) => Number(item.count) > 0)
    .map((item) => String(item.sk).slice(keys.userPropertyNamePrefix.length));
