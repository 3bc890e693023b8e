/**
 * An example of each request body, by the schema's name in the OpenAPI document (what generated
 * clients and API consoles show first). A test parses each with the route's own schema.
 */
const ROLE_ID = '67a8c9ff-0d95-4237-8d10-314739d6ce94';

export const REQUEST_EXAMPLES: Record<string, unknown> = {
  NewUserRequest: { email: 'ada@example.com', name: 'Ada Lovelace', userType: 'STANDARD' },
  UpdateUserRequest: { name: 'Ada King', email: 'ada.king@example.com' },
  ChangeStatusRequest: { userStatus: 'INACTIVE' },
  ChangePasswordRequest: {
    currentPassword: 'correct horse battery staple',
    newPassword: 'a different long passphrase',
    confirmPassword: 'a different long passphrase',
  },
  SetAdditionalPropertiesRequest: { additionalProperties: { costCentre: 'CC-1042', floor: 3 } },
  RemoveAdditionalPropertiesRequest: { propertiesToRemove: ['floor'] },
  CreateUserGroupRequestBody: { name: 'Support team', number: 'SUP-1', description: 'First-line support' },
  UpdateUserGroupRequestBody: { description: 'First- and second-line support', status: 'ACTIVE' },
  UserGroupRoleRequest: { roleId: ROLE_ID },
  UserGroupPolicyRequest: { policyId: '9b1f3c52-7d0e-4a57-9f0c-2d5b8e6a4c31' },
  UserGroupManagedRoleRequest: { managedRoleId: 'read-only' },
  NewRoleRequest: { name: 'Support', permissions: ['USER.LIST', 'USER.DETAILS'] },
  UpdateRoleRequest: { permissions: ['USER.LIST'] },
  AssignRevokeRolePermissionRequest: { permissionIds: ['USER.DETAILS'] },
  PluginPermissionsRequest: [{ module: 'REPORTS', actionName: 'VIEW' }],
  AssignRevokeRolePluginPermissionRequest: { pluginPermissions: [{ module: 'REPORTS', actionName: 'VIEW' }] },
  DefaultRoleRequest: { roleId: ROLE_ID },
  PolicyRequest: { name: 'Only their own region' },
  CreateAPIClientRequest: { name: 'Billing service', clientType: 'STANDARD', roles: [ROLE_ID] },
  UpdateAPIClientRequest: { name: 'Billing service (EU)', remoteAddresses: ['203.0.113.0/24'] },
  UpdateSSOProviderRequest: {
    clientSecret: 'the-new-secret-from-the-provider',
    clientSecretExpirationDate: 1798761600000,
  },
  ServicesByIdsRequest: { ids: ['85c81f42-6451-4bc0-bbb4-96f58ca96d0d'] },
  CreateSCIMTokenRequest: { name: 'Okta provisioning' },
};
