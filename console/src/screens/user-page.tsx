import { useEffect, useState } from 'preact/hooks';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, useOutcome } from '../outcome.js';
import { AdditionalProperties } from './additional-properties.js';
import {
  GROUP_WORDS,
  type Grantable,
  Grants,
  grantableFor,
  handlerIf,
  NOTHING_GRANTABLE,
  RoleAndPolicyGrants,
} from './grants.js';
import { type Caller, mayCallWith } from './screens.js';
import { SignInMethods } from './sign-in-methods.js';
import { UserProfile } from './user-profile.js';

/**
 * One user: profile, status and type, and the account's actions; roles, managed roles,
 * policies and groups (granted and taken away); additional properties; passkeys and SSO links. Each action shows only when the person's
 * token holds its route's permissions, and says what it did or what the API answered.
 */

interface Shown {
  id: string;
  email: string;
  name: string;
  roles: string[];
  managedRoles: string[];
  policies: string[];
  userGroups: string[] | null;
}

export const UserPage = ({ id, caller }: { id: string; caller: Caller }) => {
  const [user, setUser] = useState<Shown>();
  const [grantable, setGrantable] = useState<Grantable>(NOTHING_GRANTABLE);
  const { outcome, setOutcome, act: run } = useOutcome();
  const may = mayCallWith(caller);

  const readUser = async () => setUser((await idp.getUser({ path: { id } })) as unknown as Shown);
  useEffect(() => {
    Promise.all([readUser(), grantableFor(may, { groups: true }, setGrantable)]).catch((error) =>
      setOutcome({ problem: messageOf(error) }),
    );
  }, [id]);

  /** Runs an action, shows the user as they are now, then says what was done. */
  const act = (done: string, action: () => Promise<unknown>) => run(done, action, readUser);
  const when = handlerIf(caller);

  return (
    <section aria-labelledby="user-title">
      <p>
        <a href="#/users">← Users</a>
      </p>
      <h1 id="user-title">{user ? user.name : 'User'}</h1>
      <OutcomeMessage outcome={outcome} />
      {user && (
        <>
          <UserProfile user={user} caller={caller} report={{ setOutcome, act: run }} onChanged={readUser} />
          <RoleAndPolicyGrants
            held={user}
            known={grantable}
            act={act}
            calls={{
              roles: {
                grant: when(usersRoutes.grantUserRole, (role) =>
                  idp.grantUserRole({ path: { id, roleName: role.id } }),
                ),
                revoke: when(usersRoutes.revokeUserRole, (role) =>
                  idp.revokeUserRole({ path: { id, roleName: role.id } }),
                ),
              },
              managedRoles: {
                grant: when(usersRoutes.grantUserManagedRole, (role) =>
                  idp.grantUserManagedRole({ path: { id, roleId: role.id } }),
                ),
                revoke: when(usersRoutes.revokeUserManagedRole, (role) =>
                  idp.revokeUserManagedRole({ path: { id, roleId: role.id } }),
                ),
              },
              policies: {
                grant: when(usersRoutes.grantUserPolicy, (policy) =>
                  idp.grantUserPolicy({ path: { id, policyId: policy.id } }),
                ),
                revoke: when(usersRoutes.revokeUserPolicy, (policy) =>
                  idp.revokeUserPolicy({ path: { id, policyId: policy.id } }),
                ),
              },
            }}
          />
          <Grants
            words={GROUP_WORDS}
            held={user.userGroups ?? []}
            known={grantable.groups}
            onGrant={when(usersRoutes.addUserToGroup, (group) =>
              act(`Added to ${group.name}.`, () =>
                idp.addUserToGroup({ path: { id, userGroupId: group.id } }),
              ),
            )}
            onRevoke={when(usersRoutes.removeUserFromGroup, (group) =>
              act(`Removed from ${group.name}.`, () =>
                idp.removeUserFromGroup({ path: { id, userGroupId: group.id } }),
              ),
            )}
          />
          <AdditionalProperties userId={id} caller={caller} report={{ setOutcome, act: run }} />
          <SignInMethods userId={id} caller={caller} report={{ setOutcome, act: run }} />
        </>
      )}
    </section>
  );
};
