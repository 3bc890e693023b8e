import { MAX_PAGE_SIZE } from '../../schemas/common.js';
import { minePermissions } from '../../schemas/mine-permissions.js';
import { ssoLink, userSsoLinkPath } from '../../schemas/sso-links.js';
import {
  additionalUserProperties,
  changeStatusRequest,
  listUsersQuery,
  newUserRequest,
  passkey,
  removeAdditionalPropertiesRequest,
  searchUsersQuery,
  setAdditionalPropertiesRequest,
  updateUserRequest,
  user,
  userPasskeyPath,
  userRolePath,
  userTypePath,
} from '../../schemas/users.js';
import * as z from '../../zod.js';
import { noContent, ok, routeGroup } from '../route-definition.js';

/** Users and the caller's own account (spec 4.1). */
export const usersRoutes = routeGroup('users')({
  listUsers: {
    route: 'GET /idp/users',
    summary: 'Users in creation order; ACTIVE ones, or only INACTIVE ones with fetchInactive=true',
    description: `Lists the organization's users in creation order, one page at a time (\`page\`, \`pageSize\`; \`Link: <...>; rel="next"\` while more exist): ACTIVE ones, or only INACTIVE ones with \`fetchInactive=true\`. The list is strongly consistent.`,
    permissions: ['USER.LIST'],
    request: { query: listUsersQuery },
    response: {
      status: 200,
      description: 'One page of users; Link rel="next" while more exist',
      body: z.array(user).check(z.maxLength(MAX_PAGE_SIZE)),
    },
  },
  searchUsers: {
    route: 'GET /idp/users/search',
    summary: 'Find users by email, email or name prefix, or group; filter by status and user type',
    description: `Finds users by exactly one of \`email\` (exact), \`emailPrefix\`, \`namePrefix\` (each compared case-insensitively, after Unicode NFKC normalisation) or \`userGroupId\` (its members), optionally only those of a \`status\` and \`userType\`; ACTIVE and INACTIVE users alike unless \`status\` says. Email and name searches answer in that order, a group's members in no particular order. Pages of \`limit\` users (100 by default, at most 1000; a group's members at most 100 a page) follow \`Link: <...>; rel="next"\`, whose opaque \`cursor\` continues after the page; a page can hold fewer users than \`limit\` while more follow. Each page is one Query. Email and name searches see a change within about a second; a group's members at once.`,
    permissions: ['USER.LIST'],
    request: { query: searchUsersQuery },
    errors: [404],
    response: {
      status: 200,
      description: 'One page of the users found; Link rel="next" while more may follow',
      body: z.array(user).check(z.maxLength(MAX_PAGE_SIZE)),
    },
  },
  listUserPasskeys: {
    route: 'GET /idp/users/{id}/passkeys',
    summary: "A user's passkeys",
    description:
      'The passkeys the user enrolled (at most 10), oldest first: name, when created and last used, whether synced, and whether a sign-in with it was refused for a counter that went backwards. Never a public key. A user of another organization is 404.',
    permissions: ['USER.DETAILS'],
    extension: true,
    response: ok("The user's passkeys", z.array(passkey).check(z.maxLength(10))),
  },
  deleteUserPasskey: {
    route: 'DELETE /idp/users/{id}/passkeys/{passkeyId}',
    audit: ['passkey.removed'],
    summary: 'Remove a passkey of a user (a lost device)',
    description:
      'Removes the passkey: a sign-in with it is refused from then on. 404 for a passkey the user does not hold, and for a user of another organization.',
    permissions: ['USER.UPDATE'],
    extension: true,
    request: { path: userPasskeyPath },
    response: noContent('Removed'),
  },
  listUserSsoLinks: {
    route: 'GET /idp/users/{id}/sso-links',
    summary: "A user's single sign-on links",
    description:
      "The upstream identities the user's federated sign-ins linked to the account, one per SSO provider at most: the provider, the upstream's subject and when it was linked. Once linked, a provider signs in only that subject to the account. A user of another organization is 404.",
    permissions: ['USER.DETAILS'],
    extension: true,
    response: ok("The user's SSO links", z.array(ssoLink).check(z.maxLength(100))),
  },
  deleteUserSsoLink: {
    route: 'DELETE /idp/users/{id}/sso-links/{clientId}',
    audit: ['ssoLink.removed'],
    summary: 'Unlink a user from an SSO provider (an upstream account re-created)',
    description:
      "Removes the link: the user's next sign-in through the provider is matched by verified email again and links the subject it brings. 404 when the user is not linked to the provider, and for a user of another organization.",
    permissions: ['USER.UPDATE'],
    extension: true,
    request: { path: userSsoLinkPath },
    response: noContent('Unlinked'),
  },
  createUser: {
    route: 'POST /idp/users',
    audit: ['user.created'],
    summary: 'Create a user (email unique per organization) and send the join email',
    description:
      "The email is unique in the organization, compared case-insensitively (409), and kept as written; the organization's default role is granted and the join email with its invitation link sent. Answers 204 with `Location`.",
    permissions: ['USER.ADD'],
    request: { body: newUserRequest },
    response: { ...noContent('Created; Location names the new user'), location: true },
  },
  getUser: {
    route: 'GET /idp/users/{id}',
    summary: 'One user',
    description:
      "Reads one user of the caller's organization; a user of another organization is 404, like an unknown id.",
    permissions: ['USER.DETAILS'],
    response: ok('The user', user),
  },
  updateUser: {
    route: 'PUT /idp/users/{id}',
    audit: ['user.updated'],
    summary: 'Rename a user or change the email; the user itself, or USER.UPDATE',
    description:
      "Changes the name or the email (unique in the organization, compared case-insensitively: 409) and answers the updated user. A person changing their own email needs a sign-in of the last 5 minutes (401 with `max_age`), and cannot move it out of the domains of the SSO provider that serves it (403: the provider's offboarding must hold); an administrator can.",
    permissions: ['USER.UPDATE'],
    subject: 'self-or-permissions',
    request: { body: updateUserRequest },
    response: ok('The updated user', user),
  },
  resendJoinEmail: {
    route: 'PUT /idp/users/{id}/resendJoinEmail',
    audit: ['invitation.sent'],
    summary: 'Send the join email again',
    description:
      'Sends the join email with a new invitation link, which voids the earlier one; also for INACTIVE users, whose link works once they are ACTIVE again.',
    permissions: ['USER.ADD'],
    response: noContent('Queued'),
  },
  setUserStatus: {
    route: 'PUT /idp/users/{id}/setUserStatus',
    audit: ['user.status.changed'],
    summary: 'Activate or deactivate a user',
    description:
      'An INACTIVE user cannot obtain a token, and tokens it holds already are refused within 30 s.',
    permissions: ['USER.DELETE'],
    request: { body: changeStatusRequest },
    response: noContent('Changed'),
  },
  setUserType: {
    route: 'PUT /idp/users/{id}/userType/{type}',
    audit: ['user.type.changed'],
    summary: 'Set the user type (case-insensitive)',
    description: '`STANDARD` or `RESTRICTED`, also in lower case; tokens issued afterwards carry it.',
    permissions: ['USER.UPDATE'],
    request: { path: userTypePath },
    response: noContent('Changed'),
  },
  grantUserRole: {
    route: 'PUT /idp/users/{id}/roles/{roleName}/grant',
    audit: ['user.role.granted'],
    summary: 'Grant a role, named by name or id',
    description:
      'The role must exist in the organization and not be archived (404 naming it); granting a role held already is 204. A user holds at most 100 roles (409).',
    permissions: ['USER_ROLES.GRANT'],
    request: { path: userRolePath },
    response: noContent('Granted'),
  },
  revokeUserRole: {
    route: 'PUT /idp/users/{id}/roles/{roleName}/revoke',
    audit: ['user.role.revoked'],
    summary: 'Revoke a role, named by name or id',
    description: 'Revoking a role that is not held is 204; an archived role is still revoked by its id.',
    permissions: ['USER_ROLES.REVOKE'],
    request: { path: userRolePath },
    response: noContent('Revoked'),
  },
  grantUserPolicy: {
    route: 'PUT /idp/users/{id}/policies/{policyId}',
    audit: ['user.policy.granted'],
    summary: 'Grant a policy',
    description:
      'The policy must exist in the organization and not be archived (404 naming it); granting it again is 204. A user holds at most 100 policies (409).',
    permissions: ['USER_POLICIES.GRANT'],
    response: noContent('Granted'),
  },
  revokeUserPolicy: {
    route: 'DELETE /idp/users/{id}/policies/{policyId}',
    audit: ['user.policy.revoked'],
    summary: 'Revoke a policy',
    description: 'Revoking a policy that is not held is 204; an archived policy is still revoked.',
    permissions: ['USER_POLICIES.REVOKE'],
    response: noContent('Revoked'),
  },
  grantUserManagedRole: {
    route: 'PUT /idp/users/{id}/managedRoles/{roleId}',
    audit: ['user.managedRole.granted'],
    summary: 'Grant a managed role',
    description:
      'A managed role is global (404 for an unknown id); granting it again is 204. A user holds at most 100 managed roles (409).',
    permissions: ['USER_ROLES.GRANT'],
    response: noContent('Granted'),
  },
  revokeUserManagedRole: {
    route: 'DELETE /idp/users/{id}/managedRoles/{roleId}',
    audit: ['user.managedRole.revoked'],
    summary: 'Revoke a managed role',
    description: 'Revoking a managed role that is not held is 204.',
    permissions: ['USER_ROLES.REVOKE'],
    response: noContent('Revoked'),
  },
  grantAdditionalProperties: {
    route: 'PUT /idp/users/{id}/additionalProperties/grant',
    audit: ['user.properties.granted'],
    summary: 'Set additional properties (string, number or empty object values)',
    description:
      'Values are strings (at most 4,096 characters), numbers or `{}`; at most 50 names a call and 16 KiB a user (413 beyond). Properties not named are kept.',
    permissions: ['USER.LIST'],
    request: { body: setAdditionalPropertiesRequest },
    response: noContent('Set'),
  },
  revokeAdditionalProperties: {
    route: 'PUT /idp/users/{id}/additionalProperties/revoke',
    audit: ['user.properties.revoked'],
    summary: 'Remove additional properties',
    description:
      "Names the user does not hold are ignored; a name no user holds any more leaves the organization's list of names in use.",
    permissions: ['USER.LIST'],
    request: { body: removeAdditionalPropertiesRequest },
    response: noContent('Removed'),
  },
  addUserToGroup: {
    route: 'PUT /idp/users/{id}/userGroups/{userGroupId}',
    audit: ['user.group.added'],
    summary: 'Add the user to a user group',
    description:
      'The user group must exist in the organization (404 naming it); adding a member again changes nothing. A user belongs to at most 100 groups (409).',
    permissions: ['USER_GROUP.GRANT'],
    // User groups are STANDARD callers' (the user-groups routes): so is their membership.
    userTypes: ['STANDARD'],
    response: ok('The user with its groups', user),
  },
  removeUserFromGroup: {
    route: 'DELETE /idp/users/{id}/userGroups/{userGroupId}',
    audit: ['user.group.removed'],
    summary: 'Remove the user from a user group',
    description: 'Removing a user that is not a member is 204.',
    permissions: ['USER_GROUP.REVOKE'],
    userTypes: ['STANDARD'],
    response: noContent('Removed'),
  },
  resetUserMfa: {
    route: 'PUT /idp/users/{id}/resetMfa',
    audit: ['mfa.reset'],
    summary: "Clear a user's TOTP secret so it enrolls again (400 when the organization has MFA disabled)",
    description:
      "Clears the user's TOTP secret and recovery codes, so the user enrols again at the next sign-in; 400 when the organization has MFA disabled.",
    permissions: ['USER.UPDATE'],
    response: noContent('Reset'),
  },
  resetMyMfa: {
    route: 'PUT /idp/me/resetMfa',
    audit: ['mfa.reset'],
    summary: "Clear the calling user's TOTP secret (an API client gets 400)",
    description:
      'The user enrols again at the next sign-in; 400 for an API client, or when the organization has MFA disabled.',
    response: noContent('Reset'),
  },
  endUserSessions: {
    route: 'PUT /idp/users/{id}/endSessions',
    audit: ['user.sessions.ended'],
    summary: 'Sign a user out everywhere',
    description:
      "Ends the user's browser sessions, refresh tokens and access tokens issued so far: the next page needs a sign-in, a refresh is `invalid_grant`, and an access token is refused (401) within 30 s. The password, second factors and grants stay. The caller needs every permission the user holds; a user signing themselves out needs no recent sign-in.",
    permissions: ['USER.UPDATE'],
    response: noContent('Ended'),
  },
  endMySessions: {
    route: 'PUT /idp/me/endSessions',
    audit: ['user.sessions.ended'],
    summary: 'Sign the calling user out everywhere (an API client gets 400)',
    description:
      "As `PUT /idp/users/{id}/endSessions` for the token's own user, this token included; needs no permission.",
    response: noContent('Ended'),
  },
  getMyUiPermissions: {
    route: 'GET /idp/me/ui-permissions',
    summary: 'UI permissions of the principal in the token',
    description:
      'The access types of the `UI` module the principal holds, and its plugin action names by plugin id, as computed when its token was issued.',
    response: ok('UI permissions', minePermissions),
  },
  listAdditionalUserProperties: {
    route: 'GET /idp/additionalUserProperties',
    summary: 'Names of the additional properties in use in the organization',
    description: 'Names at least one user of the organization holds (at most 1,000).',
    response: ok('Property names', additionalUserProperties),
  },
});
