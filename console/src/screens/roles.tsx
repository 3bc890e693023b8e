import { useEffect, useState } from 'preact/hooks';
import { permissionsRoutes } from '../../../shared/api/routes/permissions.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { newRoleRequest } from '../../../shared/schemas/roles.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, submitChecked, useOutcome } from '../outcome.js';
import { mayCall } from './screens.js';

/**
 * Roles: each with its permissions and the ones those bring along (dependencies), which is the
 * default role, archiving one; creating one from the permission catalogue (checked with the
 * API's schema).
 */

interface Role {
  id: string;
  name: string;
  permissions: string[];
  dependentPermissions: string[];
}

interface Permission {
  id: string;
  moduleDisplayName: string;
  accessTypeDisplayName: string;
}

export const RolesScreen = ({ permissions: held }: { permissions: readonly string[] }) => {
  const [roles, setRoles] = useState<Role[]>([]);
  const [catalogue, setCatalogue] = useState<Permission[]>([]);
  const [defaultRole, setDefaultRole] = useState<string>();
  const { outcome, setOutcome, act } = useOutcome();
  const may = (route: { permissions: readonly string[] }) => mayCall(route, held);

  const load = async () => {
    try {
      const [listed, standard] = await Promise.all([
        idp.listRoles({ query: { pageSize: 100 } }),
        idp.getDefaultRole({}),
      ]);
      setRoles(listed as unknown as Role[]);
      setDefaultRole((standard as { roleId?: string }).roleId);
      if (may(permissionsRoutes.listPermissions))
        setCatalogue((await idp.listPermissions({})) as unknown as Permission[]);
    } catch (error) {
      setOutcome({ problem: messageOf(error) });
    }
  };
  useEffect(() => void load(), []);

  const create = submitChecked(
    { setOutcome, act },
    newRoleRequest,
    (form) => ({ name: form.get('name'), permissions: form.getAll('permission') }),
    (role) => ({ done: `${role.name} was created.`, call: () => idp.createRole({ body: role }) }),
    load,
  );

  return (
    <section aria-labelledby="roles-title">
      <h1 id="roles-title">Roles</h1>
      <OutcomeMessage outcome={outcome} />
      <table>
        <caption>{roles.length === 0 ? 'No roles' : `${roles.length} roles`}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Permissions</th>
            <th scope="col">Brought along</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {roles.map((role) => (
            <tr key={role.id}>
              <td>
                {role.name}
                {role.id === defaultRole ? ' (default)' : ''}
              </td>
              <td>{role.permissions.join(', ')}</td>
              <td>{role.dependentPermissions.join(', ')}</td>
              <td>
                {may(rolesRoutes.setDefaultRole) && role.id !== defaultRole && (
                  <button
                    type="button"
                    class="secondary inline"
                    onClick={() =>
                      void act(
                        `${role.name} is the default role: new users get it.`,
                        () => idp.setDefaultRole({ body: { roleId: role.id } }),
                        load,
                      )
                    }
                  >
                    Make {role.name} the default
                  </button>
                )}
                {may(rolesRoutes.archiveRole) && (
                  <button
                    type="button"
                    class="secondary inline"
                    onClick={() =>
                      void act(
                        `${role.name} was archived.`,
                        () => idp.archiveRole({ path: { id: role.id } }),
                        load,
                      )
                    }
                  >
                    Archive {role.name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {may(rolesRoutes.createRole) && catalogue.length > 0 && (
        <form class="panel" onSubmit={create} aria-labelledby="new-role-title">
          <h2 id="new-role-title">Create a role</h2>
          <label for="role-name">Name</label>
          <input id="role-name" name="name" required maxLength={100} />
          <fieldset class="permissions">
            <legend>Permissions</legend>
            {catalogue.map((permission) => (
              <label key={permission.id} class="choice">
                <input type="checkbox" name="permission" value={permission.id} /> {permission.id} (
                {permission.moduleDisplayName}: {permission.accessTypeDisplayName})
              </label>
            ))}
          </fieldset>
          <button type="submit">Create role</button>
        </form>
      )}
    </section>
  );
};
