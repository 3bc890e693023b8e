import { useEffect, useState } from 'preact/hooks';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { userGroupsRoutes } from '../../../shared/api/routes/user-groups.js';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, useOutcome } from '../outcome.js';
import { mayCall } from './screens.js';

/**
 * One user: profile, roles (grant, revoke), status, invitation and MFA. Each action shows only
 * when the person's token holds its route's permissions, and says what it did or what the API
 * answered.
 */

interface Shown {
  id: string;
  email: string;
  name: string;
  roles: string[];
  userGroups: string[] | null;
}

/** A role or a user group: what the page names by id. */
interface Named {
  id: string;
  name: string;
}
type Role = Named;

export const UserPage = ({ id, permissions }: { id: string; permissions: readonly string[] }) => {
  const [user, setUser] = useState<Shown>();
  const [roles, setRoles] = useState<Role[]>([]);
  const [groups, setGroups] = useState<Named[]>([]);
  const { outcome, setOutcome, act: run } = useOutcome();
  const may = (route: { permissions: readonly string[] }) => mayCall(route, permissions);

  const load = async () => {
    try {
      setUser((await idp.getUser({ path: { id } })) as unknown as Shown);
      if (may(rolesRoutes.listRoles))
        setRoles((await idp.listRoles({ query: { pageSize: 100 } })) as unknown as Role[]);
      if (may(userGroupsRoutes.listUserGroups))
        setGroups(
          ((await idp.listUserGroups({ query: { pageSize: 100 } })) as unknown as { userGroups: Named[] })
            .userGroups,
        );
    } catch (error) {
      setOutcome({ problem: messageOf(error) });
    }
  };
  useEffect(() => void load(), [id]);

  /** Runs an action, says so, and shows the user as they are now. */
  const act = (done: string, action: () => Promise<unknown>) => run(done, action, load);

  const roleName = (roleId: string) => roles.find((role) => role.id === roleId)?.name ?? roleId;
  const grantable = roles.filter((role) => !user?.roles.includes(role.id));
  const groupName = (groupId: string) => groups.find((group) => group.id === groupId)?.name ?? groupId;
  const joinable = groups.filter((group) => !user?.userGroups?.includes(group.id));

  return (
    <section aria-labelledby="user-title">
      <p>
        <a href="#/users">← Users</a>
      </p>
      <h1 id="user-title">{user ? user.name : 'User'}</h1>
      <OutcomeMessage outcome={outcome} />
      {user && (
        <>
          <p>{user.email}</p>
          <h2>Roles</h2>
          <ul class="plain">
            {user.roles.length === 0 && <li>No role.</li>}
            {user.roles.map((roleId) => (
              <li key={roleId}>
                {roleName(roleId)}{' '}
                {may(usersRoutes.revokeUserRole) && (
                  <button
                    type="button"
                    class="secondary inline"
                    onClick={() =>
                      void act(`${roleName(roleId)} was revoked.`, () =>
                        idp.revokeUserRole({ path: { id, roleName: roleName(roleId) } }),
                      )
                    }
                  >
                    Revoke {roleName(roleId)}
                  </button>
                )}
              </li>
            ))}
          </ul>
          {may(usersRoutes.grantUserRole) && grantable.length > 0 && (
            <form
              class="inline-form"
              onSubmit={(event) => {
                event.preventDefault();
                const name = new FormData(event.currentTarget as HTMLFormElement).get('role') as string;
                void act(`${name} was granted.`, () => idp.grantUserRole({ path: { id, roleName: name } }));
              }}
            >
              <label for="grant-role">Grant a role</label>
              <select id="grant-role" name="role">
                {grantable.map((role) => (
                  <option key={role.id} value={role.name}>
                    {role.name}
                  </option>
                ))}
              </select>
              <button type="submit">Grant role</button>
            </form>
          )}
          <h2>Groups</h2>
          <ul class="plain">
            {(user.userGroups ?? []).length === 0 && <li>In no group.</li>}
            {(user.userGroups ?? []).map((groupId) => (
              <li key={groupId}>
                {groupName(groupId)}{' '}
                {may(usersRoutes.removeUserFromGroup) && (
                  <button
                    type="button"
                    class="secondary inline"
                    onClick={() =>
                      void act(`Removed from ${groupName(groupId)}.`, () =>
                        idp.removeUserFromGroup({ path: { id, userGroupId: groupId } }),
                      )
                    }
                  >
                    Remove from {groupName(groupId)}
                  </button>
                )}
              </li>
            ))}
          </ul>
          {may(usersRoutes.addUserToGroup) && joinable.length > 0 && (
            <form
              class="inline-form"
              onSubmit={(event) => {
                event.preventDefault();
                const groupId = new FormData(event.currentTarget as HTMLFormElement).get('group') as string;
                void act(`Added to ${groupName(groupId)}.`, () =>
                  idp.addUserToGroup({ path: { id, userGroupId: groupId } }),
                );
              }}
            >
              <label for="add-group">Add to a group</label>
              <select id="add-group" name="group">
                {joinable.map((group) => (
                  <option key={group.id} value={group.id}>
                    {group.name}
                  </option>
                ))}
              </select>
              <button type="submit">Add to group</button>
            </form>
          )}
          <h2>Account</h2>
          <div class="actions">
            {may(usersRoutes.setUserStatus) && (
              <>
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    void act(`${user.email} was deactivated: they can no longer sign in.`, () =>
                      idp.setUserStatus({ path: { id }, body: { userStatus: 'INACTIVE' } }),
                    )
                  }
                >
                  Deactivate
                </button>
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    void act(`${user.email} was activated.`, () =>
                      idp.setUserStatus({ path: { id }, body: { userStatus: 'ACTIVE' } }),
                    )
                  }
                >
                  Activate
                </button>
              </>
            )}
            {may(usersRoutes.resendJoinEmail) && (
              <button
                type="button"
                class="secondary"
                onClick={() =>
                  void act('The invitation was sent again.', () => idp.resendJoinEmail({ path: { id } }))
                }
              >
                Resend invitation
              </button>
            )}
            {may(usersRoutes.resetUserMfa) && (
              <button
                type="button"
                class="secondary"
                onClick={() =>
                  void act('Two-step verification was reset: they enrol again at their next sign-in.', () =>
                    idp.resetUserMfa({ path: { id } }),
                  )
                }
              >
                Reset MFA
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
};
