import { randomUUID } from 'node:crypto';
import { changesBetween } from '../audit/changes.js';
import { Conflict, NotFound } from '../domain/errors.js';
import { auditWrites } from './audit-records.js';
import {
  GroupMemberEntity,
  GroupNameGuardEntity,
  GroupNumberGuardEntity,
  OrganizationEntity,
  UserGroupEntity,
  type UserGroupRecord,
} from './entities.js';
import { externalIdEntry, externalIdRemoval } from './external-ids.js';
import {
  type GrantField,
  type GrantTarget,
  grantAction,
  grantedKind,
  grantLimitReached,
  targetIsLive,
  targetLive,
  withinGrantLimit,
} from './grant-targets.js';
import { keys, LISTINGS } from './keys.js';
import { type ItemBudget, queryPartition } from './query.js';
import { bucketCountDelta, nextSequence, readPage } from './sequenced-listing.js';
import {
  addTo,
  concurrentChange,
  create,
  guard,
  put,
  remove,
  retryOnConcurrentChange,
  transact,
  update,
  type Write,
} from './writes.js';

export type { UserGroupRecord } from './entities.js';

export const isVisible = (group: UserGroupRecord | undefined): group is UserGroupRecord =>
  group !== undefined && group.lifecycle === undefined;

const groupNotFound = (groupId: string) => () => new NotFound('User group', groupId);
const nameTaken = () => new Conflict('User group', 'A user group with this name already exists');
const numberTaken = () => new Conflict('User group', 'A user group with this number already exists');

const nameGuardKey = (orgId: string, name: string) =>
  GroupNameGuardEntity.key({ organizationId: orgId, name });
const numberGuardKey = (orgId: string, number: string) =>
  GroupNumberGuardEntity.key({ organizationId: orgId, number });

/** A group as the audit log names it. */
export const groupTarget = (group: Pick<UserGroupRecord, 'id'> & Partial<Pick<UserGroupRecord, 'name'>>) => ({
  type: 'group',
  id: group.id,
  ...(group.name !== undefined ? { name: group.name } : {}),
});

/** What a record of a group's creation or deletion shows: the group without its store bookkeeping. */
export const auditedGroup = ({
  organizationId: _org,
  sequence: _sequence,
  lifecycle: _lifecycle,
  ...fields
}: UserGroupRecord) => fields;

/** The group becoming visible (1) or hidden (-1): its listing count and the organization's count. */
export const visibilityWrites = (group: UserGroupRecord, delta: 1 | -1): Write[] => [
  bucketCountDelta(group.organizationId, LISTINGS.groups, group.sequence, delta),
  addTo(keys.organization(group.organizationId), 'userGroupCount', delta),
];

/** The name guard and, when the group has one, the number guard. */
export const guardWrites = (group: UserGroupRecord, nameTakenMeans: () => Error = nameTaken): Write[] =>
  [
    guard(nameGuardKey(group.organizationId, group.name), { groupId: group.id }, nameTakenMeans),
    group.number
      ? [guard(numberGuardKey(group.organizationId, group.number), { groupId: group.id }, numberTaken)]
      : [],
  ].flat();

/** Frees the group's name and number. */
export const freeGuardWrites = (group: UserGroupRecord): Write[] =>
  [
    remove(nameGuardKey(group.organizationId, group.name)),
    group.number ? [remove(numberGuardKey(group.organizationId, group.number))] : [],
  ].flat();

/** Creates a visible group: item, name and number guards, listing count and group count, atomically. */
export const createUserGroup = async (
  input: {
    organizationId: string;
    name: string;
    number?: string;
    description?: string;
    status?: 'ACTIVE' | 'INACTIVE';
    /** A SCIM directory's id for it, with its entry in the same transaction. */
    externalId?: string;
    createdBy: string;
  },
  now = Date.now(),
): Promise<UserGroupRecord> => {
  const { sequence } = await nextSequence(input.organizationId, 'groupSequence');
  const group: UserGroupRecord = {
    id: randomUUID(),
    organizationId: input.organizationId,
    name: input.name,
    ...(input.number ? { number: input.number } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    status: input.status ?? 'ACTIVE',
    ...(input.externalId ? { externalId: input.externalId } : {}),
    sequence,
    createdAt: now,
    updatedAt: now,
    createdBy: input.createdBy,
    updatedBy: input.createdBy,
    version: 1,
  };
  await transact([
    input.externalId !== undefined &&
      externalIdEntry(input.organizationId, 'GROUP', input.externalId, group.id),
    ...(await auditWrites(
      {
        organizationId: group.organizationId,
        action: 'group.created',
        targets: [groupTarget(group)],
        changes: changesBetween(undefined, auditedGroup(group)),
      },
      now,
    )),
    create(
      UserGroupEntity.item(group, group),
      () => new Conflict('User group', 'A group with this id exists'),
    ),
    ...guardWrites(group),
    ...visibilityWrites(group, 1),
  ]);
  return group;
};

export const getUserGroup = (orgId: string, groupId: string): Promise<UserGroupRecord | undefined> =>
  UserGroupEntity.get({ organizationId: orgId, id: groupId });

export const requireUserGroup = async (orgId: string, groupId: string): Promise<UserGroupRecord> => {
  const group = await getUserGroup(orgId, groupId);
  if (!isVisible(group)) throw groupNotFound(groupId)();
  return group;
};

export const listUserGroups = async (orgId: string, page: number, pageSize: number, after?: number) => {
  const { items, hasMore, nextAfter } = await readPage(
    orgId,
    LISTINGS.groups,
    page,
    pageSize,
    UserGroupEntity,
    {
      after,
    },
  );
  return { groups: items, hasMore, nextAfter };
};

const GROUP_COUNT = OrganizationEntity.projection('userGroupCount');

/** The maintained count (changed in the same transactions that create and delete groups). */
export const countUserGroups = async (orgId: string): Promise<number> =>
  (await OrganizationEntity.getProjected({ id: orgId }, GROUP_COUNT))?.userGroupCount ?? 0;

const UPDATABLE = ['name', 'number', 'description', 'status', 'externalId'] as const;

/**
 * Changes the given fields; a new name or number moves its guard, and a new external id (a SCIM
 * directory's; `null` clears it) its entry, in the same transaction. Values the group has already
 * change nothing: nothing is written or recorded.
 */
export const updateUserGroup = (
  orgId: string,
  groupId: string,
  changes: {
    name?: string;
    number?: string;
    description?: string;
    status?: 'ACTIVE' | 'INACTIVE';
    externalId?: string | null;
  },
  updatedBy: string,
  /**
   * Runs when this write activates the group, at each try, on the group as read for the write
   * its put is conditioned on: a check made before would pass on a group still active, which a
   * deactivation could then turn into this write's activation.
   */
  beforeActivating?: (group: UserGroupRecord) => Promise<void>,
  now = Date.now(),
): Promise<UserGroupRecord> =>
  retryOnConcurrentChange(async () => {
    const current = await requireUserGroup(orgId, groupId);
    if (changes.status === 'ACTIVE' && current.status !== 'ACTIVE') await beforeActivating?.(current);
    const { externalId, ...fieldChanges } = changes;
    const next: UserGroupRecord = {
      ...current,
      ...fieldChanges,
      updatedAt: now,
      updatedBy,
      version: current.version + 1,
    };
    if (externalId === null) delete next.externalId;
    else if (externalId !== undefined) next.externalId = externalId;
    const fields = (group: UserGroupRecord) =>
      Object.fromEntries(UPDATABLE.map((field) => [field, group[field]]));
    const audited = changesBetween(fields(current), fields(next));
    if (Object.keys(audited).length === 0) return current;
    const nameMoves = next.name.toLowerCase() !== current.name.toLowerCase();
    const numberMoves = next.number !== current.number && Boolean(next.number);
    await transact([
      ...(await auditWrites(
        { organizationId: orgId, action: 'group.updated', targets: [groupTarget(next)], changes: audited },
        now,
      )),
      put(
        UserGroupEntity.item(next, next),
        {
          condition: 'version = :version AND attribute_not_exists(lifecycle)',
          values: { ':version': current.version },
        },
        concurrentChange,
      ),
      nameMoves && guard(nameGuardKey(orgId, next.name), { groupId }, nameTaken),
      nameMoves && remove(nameGuardKey(orgId, current.name)),
      numberMoves && next.number
        ? guard(numberGuardKey(orgId, next.number), { groupId }, numberTaken)
        : undefined,
      numberMoves && current.number ? remove(numberGuardKey(orgId, current.number)) : undefined,
      next.externalId !== current.externalId &&
        current.externalId !== undefined &&
        externalIdRemoval(orgId, 'GROUP', current.externalId, groupId),
      next.externalId !== current.externalId &&
        next.externalId !== undefined &&
        externalIdEntry(orgId, 'GROUP', next.externalId, groupId),
    ]);
    return next;
  });

/** The group holds the id already (an assign) or does not (an unassign): nothing to write or record. */
class NothingToChange extends Error {}

const holds = (group: Record<string, unknown>, field: GrantField, id: string) => {
  const held = group[field];
  return held instanceof Set && held.has(id);
};

/**
 * Assigns (ADD) or unassigns (DELETE) a role, managed role or policy. An assign needs the target
 * live in the organization (NotFound naming it); the check, the atomic set change and its record
 * are one transaction. An unassign takes what the group holds whether or not it is live: a role
 * archived since still counts toward the group's MAX_GRANTS_PER_HOLDER (Conflict beyond) until it
 * is unassigned. Assigning what the group holds, or unassigning what it does not, succeeds without
 * a write (an unassign of a target neither held nor live is NotFound): the group's condition says
 * so, so no read comes first.
 */
export const changeUserGroupGrant = async (
  orgId: string,
  groupId: string,
  target: GrantTarget,
  operation: 'ADD' | 'DELETE',
  updatedBy: string,
  now = Date.now(),
): Promise<void> => {
  const values = { ':value': new Set([target.id]), ':one': 1, ':now': now, ':by': updatedBy };
  const live = 'attribute_exists(pk) AND attribute_not_exists(lifecycle)';
  const limit = withinGrantLimit(target.field, target.id);
  try {
    await transact([
      ...(operation === 'ADD' ? [targetIsLive(target)] : []),
      // The version moves too, so a concurrent PATCH (guarded by it) cannot write old sets back.
      operation === 'ADD'
        ? update(
            keys.userGroup(orgId, groupId),
            {
              update: 'ADD #field :value, version :one SET updatedAt = :now, updatedBy = :by',
              // At most MAX_GRANTS_PER_HOLDER of the kind, and not held yet.
              condition: `${live} AND ${limit.condition} AND NOT contains(#field, :id)`,
              names: limit.names,
              values: { ...values, ...limit.values },
              seeItemOnFailure: true,
            },
            // No item, or one being copied or deleted: not found; a live group holds it or is full.
            (group) =>
              group && group.lifecycle === undefined
                ? holds(group, target.field, target.id)
                  ? new NothingToChange()
                  : grantLimitReached('User group', target.field)
                : groupNotFound(groupId)(),
          )
        : update(
            keys.userGroup(orgId, groupId),
            {
              update: 'DELETE #field :value ADD version :one SET updatedAt = :now, updatedBy = :by',
              condition: `${live} AND contains(#field, :id)`,
              names: { '#field': target.field },
              values: { ...values, ':id': target.id },
              seeItemOnFailure: true,
            },
            (group) =>
              group && group.lifecycle === undefined ? new NothingToChange() : groupNotFound(groupId)(),
          ),
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: grantAction('group', target.field, operation === 'ADD' ? 'granted' : 'revoked'),
          targets: [groupTarget({ id: groupId }), { type: grantedKind(target.field), id: target.id }],
        },
        now,
      )),
    ]);
  } catch (error) {
    // A failed condition throws the first failing item's error: a target that is not live (an
    // assign's first item) is refused even when the group's condition failed too.
    if (!(error instanceof NothingToChange)) throw error;
    // Unassigning what the group does not hold: nothing to do, but for a target that is nobody's.
    if (operation === 'DELETE' && !(await targetLive(target))) throw new NotFound(target.entity, target.id);
  }
};

/**
 * The first step of a delete, atomic: the group is marked DELETING (hidden, granting nothing),
 * leaves its listing and the count, and frees its name and number. A group already marked is left
 * as it is: a repeated DELETE only finishes the work.
 */
export const hideForDeletion = (orgId: string, groupId: string, now: number) =>
  retryOnConcurrentChange(async () => {
    const group = await getUserGroup(orgId, groupId);
    if (!group) throw groupNotFound(groupId)();
    if (group.lifecycle !== undefined) return;
    await transact([
      // The group is gone for everyone from this transaction on: its record rides here.
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'group.deleted',
          targets: [groupTarget(group)],
          changes: changesBetween(auditedGroup(group), undefined),
        },
        now,
      )),
      update(
        keys.userGroup(orgId, groupId),
        {
          update: 'SET lifecycle = :deleting, updatedAt = :now REMOVE #listing',
          condition: 'version = :version AND attribute_not_exists(lifecycle)',
          names: { '#listing': keys.listingSortKey },
          values: { ':deleting': 'DELETING', ':now': now, ':version': group.version },
        },
        // Changed (or marked) in between: read again and decide again.
        concurrentChange,
      ),
      ...visibilityWrites(group, -1),
      ...freeGuardWrites(group),
    ]);
  });

/** The last step of a delete: the hidden group's item goes (unless a concurrent DELETE finished first). */
export const removeHiddenGroup = async (orgId: string, groupId: string) => {
  await transact([
    remove(
      keys.userGroup(orgId, groupId),
      { condition: 'attribute_not_exists(pk) OR attribute_exists(lifecycle)' },
      concurrentChange,
    ),
  ]);
};

/**
 * Member ids of a group (one strongly consistent Query per 1 MB of membership items); under a
 * budget, those read until it ran out.
 */
export const memberIdsOf = async (orgId: string, groupId: string, budget?: ItemBudget): Promise<string[]> =>
  (
    await queryPartition(keys.organizationPartition(orgId), keys.groupMemberPrefix(groupId), {
      consistent: true,
      ...(budget ? { budget } : {}),
    })
  ).map((item) => GroupMemberEntity.decode(item).userId);

/** Lower-cased names taken that start like `name` (one Query on the name guards). */
export const takenNamesStartingWith = async (orgId: string, name: string): Promise<Set<string>> =>
  new Set(
    (await queryPartition(keys.organizationPartition(orgId), nameGuardKey(orgId, name).sk)).map((item) =>
      String(item.sk).slice(keys.userGroupNamePrefix.length),
    ),
  );
