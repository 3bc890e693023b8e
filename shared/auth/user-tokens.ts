import { effectivePermissions } from '../domain/effective-permissions.js';
import { batchGet } from '../store/batch.js';
import { permissionDependencies } from '../store/catalogue-repository.js';
import { keys } from '../store/keys.js';
import { getUser } from '../store/user-repository.js';
import { resolveGrants } from './grant-resolution.js';
import { grantedScope, signAccessToken, type TokenSubject } from './token-service.js';

const idsOf = (value: unknown): string[] => (value instanceof Set ? [...value].map(String) : []);

/**
 * What a user may do: its roles, managed roles and policies, plus those of its ACTIVE user
 * groups; archived roles and policies grant nothing. Three reads: the user, its groups, then all
 * roles, managed roles and policies at once (`resolveGrants`).
 */
export const userTokenSubject = async (orgId: string, userId: string): Promise<TokenSubject | undefined> => {
  const user = await getUser(orgId, userId, true);
  if (user?.status !== 'ACTIVE') return undefined;
  // Only ACTIVE groups grant; a group being copied or deleted grants nothing.
  const groups = (await batchGet(idsOf(user.userGroups).map((id) => keys.userGroup(orgId, id)))).filter(
    (group) => group.status === 'ACTIVE' && group.lifecycle === undefined,
  );
  const roleIds = new Set([...idsOf(user.roles), ...groups.flatMap((group) => idsOf(group.roles))]);
  const managedRoleIds = new Set([
    ...idsOf(user.managedRoles),
    ...groups.flatMap((group) => idsOf(group.managedRoles)),
  ]);
  const policyIds = new Set([...idsOf(user.policies), ...groups.flatMap((group) => idsOf(group.policies))]);
  const [{ roles, policyIds: livePolicyIds }, dependencies] = await Promise.all([
    resolveGrants(orgId, { roleIds, managedRoleIds, policyIds }),
    permissionDependencies(),
  ]);
  return {
    id: user.id,
    type: 'user',
    organizationId: orgId,
    userType: user.userType,
    policies: livePolicyIds,
    ...effectivePermissions(roles, dependencies),
  };
};

/**
 * An access token for a user. Not reachable over HTTP until user sign-in exists; tests and
 * operator tooling call it directly.
 */
export const issueUserToken = async (orgId: string, userId: string, requestedScope?: string) => {
  const subject = await userTokenSubject(orgId, userId);
  if (!subject) throw new Error('Only an ACTIVE user of the organization can receive a token');
  return signAccessToken(subject, grantedScope(requestedScope));
};
