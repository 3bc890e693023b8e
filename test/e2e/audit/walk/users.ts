import { addPasskey } from '../../../../shared/store/passkeys.js';
import { linkSsoSubject } from '../../../../shared/store/sso-links.js';
import { getUser, updateUserAttributes } from '../../../../shared/store/user-repository.js';
import {
  idFromLocation,
  putTestPolicy,
  putTestRole,
  putTestUserGroup,
  setMfaEnabled,
  uniqueEmail,
} from '../../../support/service.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

/** A user of the organization, created through the API. */
export const withUser = async (service: TestService, org: ClientCaller) => ({
  userId: await service.createUser({ as: org }),
});

/** A user and one thing to grant it: made in the store, as the walk only needs their ids. */
const withUserAnd =
  (make: (orgId: string) => Promise<string>) => async (service: TestService, org: ClientCaller) => ({
    ...(await withUser(service, org)),
    grantedId: await make(org.orgId),
  });

/** A user already holding what `path` grants (granted through the API before the walked call). */
const withGranted =
  (make: (orgId: string) => Promise<string>, grantPath: (userId: string, id: string) => string) =>
  async (service: TestService, org: ClientCaller) => {
    const made = await withUserAnd(make)(service, org);
    const granted = await service.call('PUT', grantPath(made.userId, made.grantedId), { token: org.token });
    if (granted.status >= 300) throw new Error(`Granting for the walk failed: ${granted.status}`);
    return made;
  };

const newRole = async (orgId: string) => (await putTestRole(orgId)).id;
const SEEDED_MANAGED_ROLE = async () => 'read-only';

/** A user enrolled in TOTP, in an organization that uses MFA. */
const withEnrolledUser = async (service: TestService, org: ClientCaller) => {
  await setMfaEnabled(org.orgId, true);
  const made = await withUser(service, org);
  await updateUserAttributes(org.orgId, made.userId, { totpSecret: 'JBSWY3DPEHPK3PXP' });
  return made;
};

const rolePath = (userId: string, roleId: string) => `/idp/users/${userId}/roles/${roleId}`;
const policyPath = (userId: string, policyId: string) => `/idp/users/${userId}/policies/${policyId}`;
const managedRolePath = (userId: string, roleId: string) => `/idp/users/${userId}/managedRoles/${roleId}`;
const groupPath = (userId: string, groupId: string) => `/idp/users/${userId}/userGroups/${groupId}`;
const propertiesPath = (userId: string, change: 'grant' | 'revoke') =>
  `/idp/users/${userId}/additionalProperties/${change}`;

type Made = { userId: string; grantedId: string };
const targetUser = ({ userId }: { userId: string }) => userId;

/** The users group's writes (spec 4.1). */
export const USERS_CALLS: WalkCalls = {
  createUser: walkCall({
    path: () => '/idp/users',
    body: () => ({ email: uniqueEmail('walk'), name: 'Walk Person', userType: 'STANDARD' }),
    target: (_made, answer) => idFromLocation(answer),
  }),
  updateUser: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}`,
    body: () => ({ name: 'Walk Renamed' }),
    target: targetUser,
  }),
  setUserStatus: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}/setUserStatus`,
    body: () => ({ userStatus: 'INACTIVE' }),
    target: targetUser,
  }),
  resendJoinEmail: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}/resendJoinEmail`,
    target: targetUser,
  }),
  setUserType: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}/userType/RESTRICTED`,
    target: targetUser,
  }),
  grantUserRole: walkCall<Made>({
    prepare: withUserAnd(newRole),
    path: ({ userId, grantedId }) => `${rolePath(userId, grantedId)}/grant`,
    target: targetUser,
  }),
  revokeUserRole: walkCall<Made>({
    prepare: withGranted(newRole, (userId, id) => `${rolePath(userId, id)}/grant`),
    path: ({ userId, grantedId }) => `${rolePath(userId, grantedId)}/revoke`,
    target: targetUser,
  }),
  grantUserPolicy: walkCall<Made>({
    prepare: withUserAnd((orgId) => putTestPolicy(orgId)),
    path: ({ userId, grantedId }) => policyPath(userId, grantedId),
    target: targetUser,
  }),
  revokeUserPolicy: walkCall<Made>({
    prepare: withGranted((orgId) => putTestPolicy(orgId), policyPath),
    path: ({ userId, grantedId }) => policyPath(userId, grantedId),
    target: targetUser,
  }),
  grantUserManagedRole: walkCall<Made>({
    prepare: withUserAnd(SEEDED_MANAGED_ROLE),
    path: ({ userId, grantedId }) => managedRolePath(userId, grantedId),
    target: targetUser,
  }),
  revokeUserManagedRole: walkCall<Made>({
    prepare: withGranted(SEEDED_MANAGED_ROLE, managedRolePath),
    path: ({ userId, grantedId }) => managedRolePath(userId, grantedId),
    target: targetUser,
  }),
  grantAdditionalProperties: walkCall({
    prepare: withUser,
    path: ({ userId }) => propertiesPath(userId, 'grant'),
    body: () => ({ additionalProperties: { department: 'Walks' } }),
    target: targetUser,
  }),
  revokeAdditionalProperties: walkCall({
    prepare: async (service, org) => {
      const made = await withUser(service, org);
      await service.call('PUT', propertiesPath(made.userId, 'grant'), {
        token: org.token,
        body: { additionalProperties: { department: 'Walks' } },
      });
      return made;
    },
    path: ({ userId }) => propertiesPath(userId, 'revoke'),
    body: () => ({ propertiesToRemove: ['department'] }),
    target: targetUser,
  }),
  addUserToGroup: walkCall<Made>({
    prepare: withUserAnd((orgId) => putTestUserGroup(orgId)),
    path: ({ userId, grantedId }) => groupPath(userId, grantedId),
    target: targetUser,
  }),
  removeUserFromGroup: walkCall<Made>({
    prepare: withGranted((orgId) => putTestUserGroup(orgId), groupPath),
    path: ({ userId, grantedId }) => groupPath(userId, grantedId),
    target: targetUser,
  }),
  deleteUserPasskey: walkCall({
    prepare: async (service: TestService, org: ClientCaller) => {
      const { userId } = await withUser(service, org);
      const passkey = await addPasskey({
        organizationId: org.orgId,
        userId,
        credentialId: `walk-${userId}`,
        publicKey: 'pQECAyYgASFYIA',
        signCount: 0,
        backupEligible: true,
        backedUp: true,
        aaguid: '00000000-0000-0000-0000-000000000000',
        name: 'Walk passkey',
      });
      return { userId, passkeyId: passkey.credentialKey };
    },
    path: ({ userId, passkeyId }) => `/idp/users/${userId}/passkeys/${passkeyId}`,
    target: targetUser,
  }),
  deleteUserSsoLink: walkCall({
    prepare: async (service: TestService, org: ClientCaller) => {
      const made = await withUser(service, org);
      const user = await getUser(org.orgId, made.userId);
      if (!user) throw new Error('The walk user is missing');
      await linkSsoSubject(user, {
        clientId: 'walk-provider',
        issuer: 'https://walk.example',
        subject: `walk-${made.userId}`,
      });
      return made;
    },
    path: ({ userId }) => `/idp/users/${userId}/sso-links/walk-provider`,
    target: targetUser,
  }),
  resetUserMfa: walkCall({
    prepare: withEnrolledUser,
    path: ({ userId }) => `/idp/users/${userId}/resetMfa`,
    target: targetUser,
  }),
  resetMyMfa: walkCall({
    prepare: async (service, org) => {
      const { userId } = await withEnrolledUser(service, org);
      return { userId, token: await service.userToken(userId, org.orgId) };
    },
    as: ({ userId, token }) => ({ token, actor: { type: 'user', id: userId } }),
    path: () => '/idp/me/resetMfa',
    target: targetUser,
  }),
  endUserSessions: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}/endSessions`,
    target: targetUser,
  }),
  endMySessions: walkCall({
    prepare: async (service, org) => {
      const { userId } = await withUser(service, org);
      return { userId, token: await service.userToken(userId, org.orgId) };
    },
    as: ({ userId, token }) => ({ token, actor: { type: 'user', id: userId } }),
    path: () => '/idp/me/endSessions',
    target: targetUser,
  }),
};
