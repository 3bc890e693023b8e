import { putTestPolicy, putTestRole, putTestUserGroup } from '../../../support/service.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

/** A group of the organization, made by the store. */
const withGroup = async (_service: TestService, org: ClientCaller) => ({
  groupId: await putTestUserGroup(org.orgId),
});

/** A group with a member (added through the API): deleting or copying it changes the member too. */
const withGroupAndMember = async (service: TestService, org: ClientCaller) => {
  const made = await withGroup(service, org);
  const userId = await service.createUser({ as: org });
  const joined = await service.call('PUT', `/idp/users/${userId}/userGroups/${made.groupId}`, {
    token: org.token,
  });
  if (joined.status !== 200) throw new Error(`The membership was refused: ${joined.status}`);
  return made;
};

const groupId = ({ groupId }: { groupId: string }) => groupId;

type Grant = {
  path: 'roles' | 'policies' | 'managedRoles';
  field: string;
  make: (orgId: string) => Promise<string>;
};

const GRANTS = {
  Role: { path: 'roles', field: 'roleId', make: async (orgId) => (await putTestRole(orgId)).id },
  Policy: { path: 'policies', field: 'policyId', make: (orgId) => putTestPolicy(orgId) },
  ManagedRole: { path: 'managedRoles', field: 'managedRoleId', make: async () => 'read-only' },
} satisfies Record<string, Grant>;

/** The assign and unassign calls of one kind of grant; an unassign starts from a group holding it. */
const grantCalls = (kind: keyof typeof GRANTS): WalkCalls => {
  const grant: Grant = GRANTS[kind];
  const path = (action: 'assign' | 'unassign') => (made: { groupId: string }) =>
    `/idp/userGroups/${made.groupId}/${grant.path}/${action}`;
  return {
    [`assignUserGroup${kind}`]: walkCall({
      prepare: async (service, org) => ({
        ...(await withGroup(service, org)),
        targetId: await grant.make(org.orgId),
      }),
      path: path('assign'),
      body: ({ targetId }) => ({ [grant.field]: targetId }),
      target: groupId,
    }),
    [`unassignUserGroup${kind}`]: walkCall({
      prepare: async (_service, org) => {
        const targetId = await grant.make(org.orgId);
        return { groupId: await putTestUserGroup(org.orgId, { [grant.path]: [targetId] }), targetId };
      },
      path: path('unassign'),
      body: ({ targetId }) => ({ [grant.field]: targetId }),
      target: groupId,
    }),
  };
};

/** The user groups group's writes (spec 4.2); memberships are the users group's. */
export const USER_GROUPS_CALLS: WalkCalls = {
  createUserGroup: walkCall({
    path: () => '/idp/userGroups',
    body: () => ({ name: 'Walk group' }),
    target: (_made, answer) => (answer.body as { userGroup: { id: string } }).userGroup.id,
  }),
  updateUserGroup: walkCall({
    prepare: withGroup,
    path: ({ groupId }) => `/idp/userGroups/${groupId}`,
    body: () => ({ description: 'Walked' }),
    target: groupId,
  }),
  deleteUserGroup: walkCall({
    prepare: withGroupAndMember,
    path: ({ groupId }) => `/idp/userGroups/${groupId}`,
    target: groupId,
  }),
  duplicateUserGroup: walkCall({
    prepare: withGroupAndMember,
    path: ({ groupId }) => `/idp/userGroups/${groupId}/duplicate`,
    target: (_made, answer) => (answer.body as { userGroup: { id: string } }).userGroup.id,
  }),
  ...grantCalls('Role'),
  ...grantCalls('Policy'),
  ...grantCalls('ManagedRole'),
};
