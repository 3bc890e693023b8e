import { routeUrl } from '../shared/api/route-url.js';
import { userPicturesRoutes } from '../shared/api/routes/user-pictures.js';
import { usersRoutes } from '../shared/api/routes/users.js';
import {
  requireGroupWithinCaller,
  requirePoliciesWithinCaller,
  requireRolesWithinCaller,
  requireUserIdWithinCaller,
  requireUserTypeWithinCaller,
  requireUserWithinCaller,
} from '../shared/auth/access-ceiling.js';
import { requireRecentSignIn } from '../shared/auth/step-up.js';
import { config } from '../shared/config.js';
import {
  decodeSearchCursor,
  encodeSearchCursor,
  searchCriterionOf,
  type UserSearchCriterion,
} from '../shared/domain/user-search.js';
import { noticeRecipient, sendJoinEmail, sendSecurityNotice } from '../shared/email/account-emails.js';
import { badRequest, forbidden } from '../shared/http/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { nextCursorLink, nextPageLink } from '../shared/http/next-page-link.js';
import type { User } from '../shared/schemas/users.js';
import { type ArchivedIds, archivedIds, visibleIds } from '../shared/store/archive.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { grantTarget } from '../shared/store/grant-targets.js';
import type { PasskeyRecord } from '../shared/store/passkey-entities.js';
import { listPasskeys, removePasskey } from '../shared/store/passkeys.js';
import { providerLosing, signInOptions } from '../shared/store/sign-in-providers.js';
import { listSsoLinks, removeSsoLink } from '../shared/store/sso-links.js';
import {
  addUserToGroup,
  changeAdditionalProperties,
  grantToUser,
  removeUserFromGroup,
  resolveRoleId,
  revokeFromUser,
} from '../shared/store/user-grants.js';
import {
  createUser,
  endUserSessions,
  type ListedUser,
  listAdditionalPropertyNames,
  listUsers,
  presentableUser,
  queueJoinEmail,
  requireUser,
  resetMfa,
  setUserStatus,
  setUserType,
  type UserRecord,
  updateUserProfile,
} from '../shared/store/user-repository.js';
import { searchUsers } from '../shared/store/user-search.js';

const UI_MODULE_PREFIX = 'UI.';
/** The User shape; references to archived roles and policies stay stored but are not shown. */
const presentUser = (user: ListedUser, archived: ArchivedIds): User => ({
  id: user.id,
  email: user.email,
  name: user.name,
  picture: user.pictureUpdatedAt
    ? routeUrl(
        userPicturesRoutes.getUserPicture,
        { id: user.id },
        new URLSearchParams({ v: String(user.pictureUpdatedAt) }),
      )
    : null,
  policies: visibleIds(user.policies, archived.policies),
  roles: visibleIds(user.roles, archived.roles),
  managedRoles: visibleIds(user.managedRoles),
  canSendEmail: user.canSendEmail,
  isInitial: user.isInitial === true,
  userGroups: visibleIds(user.userGroups),
});

const presentPasskey = (passkey: PasskeyRecord) => ({
  id: passkey.credentialKey,
  name: passkey.name,
  createdAt: passkey.createdAt,
  lastUsedAt: passkey.lastUsedAt ?? null,
  transports: [...(passkey.transports ?? [])].sort(),
  backupEligible: passkey.backupEligible,
  backedUp: passkey.backedUp,
  aaguid: passkey.aaguid,
  flagged: passkey.flaggedAt !== undefined,
});

/** The person whose MFA was reset hears of it (OWASP ASVS 2.5.5); nothing reset, nothing said. */
const noticeMfaReset = async (reset: UserRecord | undefined) => {
  if (reset)
    await sendSecurityNotice(
      { organizationId: reset.organizationId, userId: reset.id, to: reset.email, name: reset.name },
      'mfa-reset',
    );
};

/** Users and the caller's own account (spec 4.1). */
export const handler = groupHandler(
  usersRoutes,
  {
    listUsers: async ({ query }, { principal }) => {
      const status = query.fetchInactive ? 'INACTIVE' : 'ACTIVE';
      const [result, archived] = await Promise.all([
        listUsers(principal.organizationId, status, query.page, query.pageSize, query.after),
        archivedIds(principal.organizationId),
      ]);
      return {
        body: result.users.map((user) => presentUser(user, archived)),
        ...(result.hasMore ? { headers: nextPageLink(usersRoutes.listUsers, query, result.nextAfter) } : {}),
      };
    },

    searchUsers: async ({ query }, { principal }) => {
      const { limit, cursor, status, userType, ...parameters } = query;
      const criterion = searchCriterionOf(parameters) as UserSearchCriterion; // the schema checked it
      const after = cursor === undefined ? undefined : decodeSearchCursor(cursor, criterion);
      const [page, archived] = await Promise.all([
        searchUsers(
          principal.organizationId,
          criterion,
          { status, userType },
          { limit, ...(after && { after }) },
        ),
        archivedIds(principal.organizationId),
      ]);
      const body = page.users.map((user) => presentUser(user, archived));
      if (!page.next) return { body };
      const parametersOfNext = { ...parameters, status, userType, limit };
      return {
        body,
        headers: nextCursorLink(
          usersRoutes.searchUsers,
          parametersOfNext,
          encodeSearchCursor(criterion.by, page.next),
        ),
      };
    },

    listUserPasskeys: async ({ path }, { principal }) => {
      const [passkeys] = await Promise.all([
        listPasskeys(principal.organizationId, path.id),
        requireUser(principal.organizationId, path.id),
      ]);
      return { body: passkeys.map(presentPasskey) };
    },

    deleteUserPasskey: async ({ path }, { principal }) => {
      // Another person's passkey is part of how they sign in (their MFA): as their MFA.
      const user = await requireUser(principal.organizationId, path.id, true);
      await requireUserWithinCaller(principal, user, "Removing this user's passkey");
      await removePasskey(principal.organizationId, path.id, path.passkeyId);
      await sendSecurityNotice(noticeRecipient(user), 'passkey-removed');
      return {};
    },

    listUserSsoLinks: async ({ path }, { principal }) => {
      const [links] = await Promise.all([
        listSsoLinks(principal.organizationId, path.id),
        requireUser(principal.organizationId, path.id),
      ]);
      return {
        body: links.map(({ clientId, issuer, subject, linkedAt }) => ({
          clientId,
          issuer,
          subject,
          linkedAt,
        })),
      };
    },

    deleteUserSsoLink: async ({ path }, { principal }) => {
      // Who may sign in to another person's account: as their MFA and passkeys.
      const user = await requireUser(principal.organizationId, path.id, true);
      await requireUserWithinCaller(principal, user, "Unlinking this user's SSO identity");
      await removeSsoLink(user, path.clientId);
      return {};
    },

    createUser: async ({ body }, { principal }) => {
      requireUserTypeWithinCaller(principal, undefined, body.userType);
      const { user, joinEmail } = await createUser(
        { organizationId: principal.organizationId, ...body, createdBy: principal.id },
        config().signIn.invitationSeconds,
      );
      await sendJoinEmail(joinEmail);
      return { headers: { location: routeUrl(usersRoutes.getUser, { id: user.id }) } };
    },

    getUser: async ({ path }, { principal }) => {
      const { user, archived } = await presentableUser(principal.organizationId, path.id);
      return { body: presentUser(user, archived) };
    },

    updateUser: async ({ path, body }, { principal }) => {
      // A new email is a new way into the account (its reset links go there): the caller must
      // reach the user, a person changing their own must have signed in recently, and the old
      // address is told.
      const current =
        body.email === undefined ? undefined : await requireUser(principal.organizationId, path.id, true);
      const emailChanges =
        current !== undefined && current.email.toLowerCase() !== body.email?.trim().toLowerCase();
      if (current && emailChanges) {
        if (principal.id === current.id) {
          requireRecentSignIn(principal, 'Changing your own email');
          const losing = providerLosing(
            await signInOptions(principal.organizationId),
            current.email,
            body.email ?? current.email,
          );
          if (losing)
            throw forbidden(
              `Your email is managed by ${losing.displayName}, your organization's single sign-on: ask your administrator to change it`,
            );
        }
        await requireUserWithinCaller(principal, current, "Changing this user's email");
      }
      const [user, archived] = await Promise.all([
        updateUserProfile(principal.organizationId, path.id, body),
        archivedIds(principal.organizationId),
      ]);
      if (current && emailChanges)
        await sendSecurityNotice(
          { organizationId: current.organizationId, userId: current.id, to: current.email, name: user.name },
          'email-changed',
        );
      return { body: presentUser(user, archived) };
    },

    resendJoinEmail: async ({ path }, { principal }) => {
      await sendJoinEmail(
        await queueJoinEmail(principal.organizationId, path.id, config().signIn.invitationSeconds),
      );
      return {};
    },

    setUserStatus: async ({ path, body }, { principal }) => {
      await requireUserIdWithinCaller(principal, path.id, "Changing this user's status");
      await setUserStatus(principal.organizationId, path.id, body.userStatus);
      return {};
    },

    setUserType: async ({ path }, { principal }) => {
      requireUserTypeWithinCaller(principal, path.id, path.type);
      await requireUserIdWithinCaller(principal, path.id, "Changing this user's type");
      await setUserType(principal.organizationId, path.id, path.type);
      return {};
    },

    grantUserRole: async ({ path }, { principal }) => {
      const org = principal.organizationId;
      const roleId = await resolveRoleId(org, path.roleName);
      await requireRolesWithinCaller(principal, { roleIds: [roleId] }, 'Granting this role');
      await grantToUser(org, path.id, grantTarget(org, 'roles', roleId));
      return {};
    },

    revokeUserRole: async ({ path }, { principal }) => {
      const roleId = await resolveRoleId(principal.organizationId, path.roleName, { includeArchived: true });
      await revokeFromUser(principal.organizationId, path.id, 'roles', roleId);
      return {};
    },

    grantUserPolicy: async ({ path }, { principal }) => {
      const org = principal.organizationId;
      requirePoliciesWithinCaller(principal, [path.policyId], 'Granting this policy');
      await grantToUser(org, path.id, grantTarget(org, 'policies', path.policyId));
      return {};
    },

    revokeUserPolicy: async ({ path }, { principal }) => {
      await revokeFromUser(principal.organizationId, path.id, 'policies', path.policyId);
      return {};
    },

    grantUserManagedRole: async ({ path }, { principal }) => {
      const org = principal.organizationId;
      await requireRolesWithinCaller(
        principal,
        { managedRoleIds: [path.roleId] },
        'Granting this managed role',
      );
      await grantToUser(org, path.id, grantTarget(org, 'managedRoles', path.roleId));
      return {};
    },

    revokeUserManagedRole: async ({ path }, { principal }) => {
      await revokeFromUser(principal.organizationId, path.id, 'managedRoles', path.roleId);
      return {};
    },

    grantAdditionalProperties: async ({ path, body }, { principal }) => {
      await changeAdditionalProperties(principal.organizationId, path.id, { set: body.additionalProperties });
      return {};
    },

    revokeAdditionalProperties: async ({ path, body }, { principal }) => {
      await changeAdditionalProperties(principal.organizationId, path.id, {
        remove: body.propertiesToRemove,
      });
      return {};
    },

    addUserToGroup: async ({ path }, { principal }) => {
      await requireGroupWithinCaller(principal, path.userGroupId, 'Adding a member to this user group');
      await addUserToGroup(principal.organizationId, path.id, path.userGroupId);
      const [user, archived] = await Promise.all([
        requireUser(principal.organizationId, path.id, true),
        archivedIds(principal.organizationId),
      ]);
      return { body: presentUser(user, archived) };
    },

    removeUserFromGroup: async ({ path }, { principal }) => {
      await removeUserFromGroup(principal.organizationId, path.id, path.userGroupId);
      return {};
    },

    resetUserMfa: async ({ path }, { principal }) => {
      await requireUserIdWithinCaller(principal, path.id, "Resetting this user's MFA");
      await noticeMfaReset(await resetMfa(principal.organizationId, path.id));
      return {};
    },

    resetMyMfa: async (_input, { principal }) => {
      if (principal.type !== 'user')
        throw badRequest('Only a user can reset its own MFA; this token is an API client');
      requireRecentSignIn(principal, 'Resetting your own two-step verification');
      await noticeMfaReset(await resetMfa(principal.organizationId, principal.id));
      return {};
    },

    endUserSessions: async ({ path }, { principal }) => {
      const user = await requireUser(principal.organizationId, path.id, true);
      // Signing oneself out takes nothing from anyone: no recent sign-in, unlike the changes
      // requireUserWithinCaller guards.
      if (principal.type !== 'user' || principal.id !== user.id)
        await requireUserWithinCaller(principal, user, "Ending this user's sessions");
      await endUserSessions(user);
      return {};
    },

    endMySessions: async (_input, { principal }) => {
      if (principal.type !== 'user')
        throw badRequest('Only a user can end its own sessions; this token is an API client');
      await endUserSessions(await requireUser(principal.organizationId, principal.id, true));
      return {};
    },

    getMyUiPermissions: (_input, { principal }) => ({
      body: {
        uiPermissions: [...principal.permissions]
          .filter((permission) => permission.startsWith(UI_MODULE_PREFIX))
          .map((permission) => permission.slice(UI_MODULE_PREFIX.length)),
        pluginsUIPermissions: Object.fromEntries(
          Object.entries(principal.pluginPermissions).map(([pluginId, actions]) => [pluginId, [...actions]]),
        ),
      },
    }),

    listAdditionalUserProperties: async (_input, { principal }) => ({
      body: { additionalProperties: await listAdditionalPropertyNames(principal.organizationId) },
    }),
  },
  { admission, registeredOrigin: isRegisteredOrigin, idempotency },
);
