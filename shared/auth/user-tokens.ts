import { type EffectiveAccess, grantedIds } from '../domain/effective-permissions.js';
import { prefetchAccessVersions } from '../store/access-versions.js';
import { batchGet } from '../store/batch.js';
import { UserGroupEntity } from '../store/entities.js';
import { getUser, type UserRecord } from '../store/user-repository.js';
import { resolveAccess } from './grant-resolution.js';
import type { TokenSubject } from './token-service.js';

/**
 * What a user's grants and groups amount to, whatever its status (two reads: groups, then grants).
 * `withInactiveGroups`: with what its INACTIVE groups give once activated too (what someone who
 * takes the account over may come to hold).
 */
export const accessOfUser = async (
  user: UserRecord,
  options: { withInactiveGroups?: boolean } = {},
): Promise<EffectiveAccess> => {
  const orgId = user.organizationId;
  const groups = (
    await batchGet(
      [...(user.userGroups ?? [])].map((id) => UserGroupEntity.key({ organizationId: orgId, id })),
    )
  ).map(UserGroupEntity.decode);
  return resolveAccess(
    orgId,
    grantedIds(
      user,
      // A group being copied or deleted grants nothing either.
      groups.map((group) => ({
        ...group,
        active: (options.withInactiveGroups || group.status === 'ACTIVE') && group.lifecycle === undefined,
      })),
    ),
  );
};

/**
 * An ACTIVE user of the organization with what it may do (its roles, managed roles and policies,
 * plus those of its ACTIVE user groups: `shared/domain/effective-permissions.ts`); undefined for
 * any other. Three sequential reads: the user, its groups (one BatchGet), then every role,
 * managed role and policy at once (one BatchGet). Nothing of it is cached, so changes to users
 * and groups need not move the access version; the cached dependency graph is checked against
 * the versions, read beside the user.
 */
export const activeUserAccess = async (
  orgId: string,
  userId: string,
): Promise<{ user: UserRecord; subject: TokenSubject } | undefined> => {
  prefetchAccessVersions(orgId);
  const user = await getUser(orgId, userId, true);
  if (user?.status !== 'ACTIVE') return undefined;
  const access = await accessOfUser(user);
  return {
    user,
    subject: { id: user.id, type: 'user', organizationId: orgId, userType: user.userType, ...access },
  };
};
