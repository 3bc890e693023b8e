import { useEffect, useState } from 'preact/hooks';
import { userGroupsRoutes } from '../../../shared/api/routes/user-groups.js';
import { updateUserGroupRequest } from '../../../shared/schemas/user-groups.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, submitChecked, useOutcome } from '../outcome.js';
import { type Grantable, grantableFor, handlerIf, NOTHING_GRANTABLE, RoleAndPolicyGrants } from './grants.js';
import { GroupMembers } from './group-members.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * One user group: its name, number, description and status (edited with the API's schema); the
 * roles, managed roles and policies its members hold through it; its members.
 */

interface Group {
  id: string;
  name: string;
  number?: string;
  description?: string;
  status?: 'ACTIVE' | 'INACTIVE';
  roles?: string[];
  managedRoles?: string[];
  policies?: string[];
}

export const GroupPage = ({ id, caller }: { id: string; caller: Caller }) => {
  const [group, setGroup] = useState<Group>();
  const [assignable, setAssignable] = useState<Grantable>(NOTHING_GRANTABLE);
  const { outcome, setOutcome, act } = useOutcome();
  const may = mayCallWith(caller);

  const show = (answer: unknown) => setGroup((answer as { userGroup: Group }).userGroup);
  useEffect(() => {
    Promise.all([
      idp.getUserGroup({ path: { id } }).then(show),
      grantableFor(may, { groups: false }, setAssignable),
    ]).catch((error) => setOutcome({ problem: messageOf(error) }));
  }, [id]);

  /** Assigning and unassigning answer the group as it is now. */
  const change = (done: string, call: () => Promise<unknown>) => void act(done, call, show);
  const when = handlerIf(caller);

  const edit = submitChecked(
    { setOutcome, act },
    updateUserGroupRequest,
    (form) => {
      const fields = Object.fromEntries(form) as Record<string, string>;
      // An empty number is one not given (PATCH leaves it; the API keeps a number once set); an
      // emptied description is sent empty, which clears it.
      return Object.fromEntries(
        Object.entries(fields).filter(
          ([field, value]) => value.trim() !== '' || (field === 'description' && group?.description),
        ),
      );
    },
    (body) => ({
      done: `${body.name ?? group?.name} was saved.`,
      call: () => idp.updateUserGroup({ path: { id }, body }).then(show),
    }),
  );

  return (
    <section aria-labelledby="group-title">
      <p>
        <a href="#/groups">← User groups</a>
      </p>
      <h1 id="group-title">{group ? group.name : 'User group'}</h1>
      <OutcomeMessage outcome={outcome} />
      {group && (
        <>
          {may(userGroupsRoutes.updateUserGroup) && (
            // Keyed by the group's state so that the form shows what was saved.
            <form
              class="panel"
              onSubmit={edit}
              aria-labelledby="edit-group-title"
              key={[group.name, group.number, group.description, group.status].join('|')}
            >
              <h2 id="edit-group-title">Details</h2>
              <label for="edit-group-name">Name</label>
              <input id="edit-group-name" name="name" required maxLength={200} defaultValue={group.name} />
              <label for="edit-group-number">Number</label>
              <input id="edit-group-number" name="number" maxLength={64} defaultValue={group.number} />
              <label for="edit-group-description">Description</label>
              <textarea
                id="edit-group-description"
                name="description"
                rows={2}
                maxLength={2000}
                defaultValue={group.description}
              />
              <label for="edit-group-status">Status</label>
              <select id="edit-group-status" name="status">
                <option value="ACTIVE">Active: its members hold what it grants</option>
                <option value="INACTIVE" selected={group.status === 'INACTIVE'}>
                  Inactive: it grants nothing
                </option>
              </select>
              <button type="submit">Save group</button>
            </form>
          )}
          <RoleAndPolicyGrants
            held={group}
            known={assignable}
            act={change}
            holder="the group"
            calls={{
              roles: {
                grant: when(userGroupsRoutes.assignUserGroupRole, (role) =>
                  idp.assignUserGroupRole({ path: { id }, body: { roleId: role.id } }),
                ),
                revoke: when(userGroupsRoutes.unassignUserGroupRole, (role) =>
                  idp.unassignUserGroupRole({ path: { id }, body: { roleId: role.id } }),
                ),
              },
              managedRoles: {
                grant: when(userGroupsRoutes.assignUserGroupManagedRole, (role) =>
                  idp.assignUserGroupManagedRole({ path: { id }, body: { managedRoleId: role.id } }),
                ),
                revoke: when(userGroupsRoutes.unassignUserGroupManagedRole, (role) =>
                  idp.unassignUserGroupManagedRole({ path: { id }, body: { managedRoleId: role.id } }),
                ),
              },
              policies: {
                grant: when(userGroupsRoutes.assignUserGroupPolicy, (policy) =>
                  idp.assignUserGroupPolicy({ path: { id }, body: { policyId: policy.id } }),
                ),
                revoke: when(userGroupsRoutes.unassignUserGroupPolicy, (policy) =>
                  idp.unassignUserGroupPolicy({ path: { id }, body: { policyId: policy.id } }),
                ),
              },
            }}
          />
          <GroupMembers groupId={id} caller={caller} report={{ setOutcome, act }} />
        </>
      )}
    </section>
  );
};
