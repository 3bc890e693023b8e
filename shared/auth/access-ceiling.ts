import {
  beyondCallerMessage,
  permissionsBeyond,
  policiesBeyond,
  takeoverTypeRefusal,
  userTypeRefusal,
} from '../domain/access-ceiling.js';
import { withDependencies } from '../domain/effective-permissions.js';
import { forbidden } from '../http/errors.js';
import { currentPermissionDependencies } from '../store/catalogue-repository.js';
import { UserGroupEntity, type UserGroupRecord } from '../store/entities.js';
import { requireUser, type UserRecord } from '../store/user-repository.js';
import { resolveAccess } from './grant-resolution.js';
import type { Principal } from './principal.js';
import { requireRecentSignIn } from './step-up.js';
import { accessOfUser } from './user-tokens.js';

/**
 * The checks of "no one gives what they do not hold" (shared/domain/access-ceiling.ts) on the
 * changes that give access: each reads what the change would give and answers 403 naming the
 * permissions the caller's token lacks; a RESTRICTED caller's policies bound the policies it
 * gives. Plugin permissions are not compared (they grant nothing in this service's own API;
 * docs/behaviour.md).
 */

const refuseBeyond = (principal: Principal, given: Iterable<string>, what: string): void => {
  const beyond = permissionsBeyond(principal.permissions, given);
  if (beyond.length > 0) throw forbidden(beyondCallerMessage(what, beyond));
};

/** Giving policies, or acting on someone who holds them: a RESTRICTED caller only its own. */
export const requirePoliciesWithinCaller = (
  principal: Principal,
  policyIds: Iterable<string>,
  what: string,
): void => {
  const beyond = policiesBeyond(principal, policyIds);
  if (beyond.length > 0) throw forbidden(beyondCallerMessage(what, beyond, 'policies'));
};

/** Making a user or client of `type` (`targetId` when it exists): 403 where the caller may not. */
export const requireUserTypeWithinCaller = (
  principal: Principal,
  targetId: string | undefined,
  type: 'STANDARD' | 'RESTRICTED',
): void => {
  const refusal = userTypeRefusal(principal, targetId, type);
  if (refusal) throw forbidden(refusal);
};

/** Giving roles and managed roles: to a user, a user group or an API client, or as the default role. */
export const requireRolesWithinCaller = async (
  principal: Principal,
  grants: { roleIds?: Iterable<string> | undefined; managedRoleIds?: Iterable<string> | undefined },
  what: string,
): Promise<void> => {
  const roleIds = [...(grants.roleIds ?? [])];
  const managedRoleIds = [...(grants.managedRoleIds ?? [])];
  if (roleIds.length + managedRoleIds.length === 0) return;
  const access = await resolveAccess(principal.organizationId, { roleIds, managedRoleIds, policyIds: [] });
  refuseBeyond(principal, access.permissions, what);
};

/**
 * Giving a role permissions, with the permissions they depend on. Ids the catalogue does not have
 * are left to the change, which refuses them (400 naming each).
 */
export const requirePermissionsWithinCaller = async (
  principal: Principal,
  permissionIds: Iterable<string>,
  what: string,
): Promise<void> => {
  const wanted = [...permissionIds];
  if (wanted.length === 0) return;
  const dependencies = await currentPermissionDependencies(principal.organizationId);
  const known = wanted.filter((permission) => dependencies.has(permission));
  refuseBeyond(principal, withDependencies(known, dependencies), what);
};

/**
 * Changing how another user signs in or whether they may (email, MFA, passkeys, SSO links, status,
 * type): the user may hold no permission the caller lacks. Acting on oneself changes nothing one
 * does not hold, but needs a recent sign-in, as the same change under `/idp/me` does: a stolen
 * token must not strip its owner's second factor or passkeys (RFC 9470 step-up).
 */
export const requireUserWithinCaller = async (
  principal: Principal,
  user: UserRecord,
  what: string,
): Promise<void> => {
  if (principal.type === 'user' && principal.id === user.id) {
    requireRecentSignIn(principal, what);
    return;
  }
  requireTargetTypeWithinCaller(principal, user.userType);
  // An INACTIVE group's roles count, as they do for making someone a member: activated, they are
  // the account's again.
  const held = await accessOfUser(user, { withInactiveGroups: true });
  refuseBeyond(principal, held.permissions, what);
  requirePoliciesWithinCaller(principal, held.policies, what);
};

/** Acting on a user or client of `type`: 403 for a RESTRICTED caller and a STANDARD target. */
export const requireTargetTypeWithinCaller = (
  principal: Principal,
  type: 'STANDARD' | 'RESTRICTED',
): void => {
  const refusal = takeoverTypeRefusal(principal.userType, type);
  if (refusal) throw forbidden(refusal);
};

/** The same, for a user named by id (404 for one that is not in the organization). */
export const requireUserIdWithinCaller = async (principal: Principal, userId: string, what: string) => {
  if (principal.type === 'user' && principal.id === userId) {
    requireRecentSignIn(principal, what);
    return;
  }
  await requireUserWithinCaller(principal, await requireUser(principal.organizationId, userId, true), what);
};

/**
 * Making the group active, or someone a member of it: its members get its roles and managed roles
 * (an inactive group's too, once it is activated).
 */
export const requireGroupGrantsWithinCaller = (
  principal: Principal,
  group: Pick<UserGroupRecord, 'roles' | 'managedRoles'>,
  what: string,
) => requireRolesWithinCaller(principal, { roleIds: group.roles, managedRoleIds: group.managedRoles }, what);

/** The same, for a group named by id; a group not found is left to the change, which answers 404. */
export const requireGroupWithinCaller = async (principal: Principal, groupId: string, what: string) => {
  const group = await UserGroupEntity.get({ organizationId: principal.organizationId, id: groupId });
  if (group) await requireGroupGrantsWithinCaller(principal, group, what);
};
