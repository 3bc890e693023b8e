import { useEffect, useState } from 'preact/hooks';
import { permissionsRoutes } from '../../../shared/api/routes/permissions.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { newRoleRequest } from '../../../shared/schemas/roles.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, submitChecked, useOutcome } from '../outcome.js';
import { PAGE_SIZE, Pager, usePages } from '../paging.js';
import { mayCall } from './screens.js';

/**
 * Roles: each with its permissions and the ones those bring along (dependencies), which is the
 * default role, archiving one; creating one from the permission catalogue (checked with the
 * API's schema). Managed roles, read-only.
 */

interface Role {
  id: string;
  name: string;
  permissions: string[];
  dependentPermissions: string[];
}

interface ManagedRole {
  id: string;
  permissions: string[];
}

interface Permission {
  id: string;
  moduleDisplayName: string;
  accessTypeDisplayName: string;
}

export const RolesScreen = ({ permissions: held }: { permissions: readonly string[] }) => {
  const paged = usePages<Role>();
  const [catalogue, setCatalogue] = useState<Permission[]>([]);
  const [managedRoles, setManagedRoles] = useState<ManagedRole[]>([]);
  const [defaultRole, setDefaultRole] = useState<string>();
  const { outcome, setOutcome, act } = useOutcome();
  const may = (route: { permissions: readonly string[] }) => mayCall(route, held);

  const readDefault = async () =>
    setDefaultRole(((await idp.getDefaultRole({})) as { roleId?: string }).roleId);
  const load = () => Promise.all([paged.reload(), readDefault()]);
  useEffect(() => {
    void paged.restart(() => idp.pages('listRoles', { query: { pageSize: PAGE_SIZE } }));
    Promise.all([
      readDefault(),
      idp.listManagedRoles({}).then((listed) => setManagedRoles(listed as unknown as ManagedRole[])),
      may(permissionsRoutes.listPermissions) &&
        idp.listPermissions({}).then((listed) => setCatalogue(listed as unknown as Permission[])),
    ]).catch((error) => setOutcome({ problem: messageOf(error) }));
  }, []);

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
      <OutcomeMessage outcome={{ problem: paged.problem }} />
      <table>
        <caption>
          Page {paged.pageNumber + 1}
          {paged.items.length === 0 ? ': no roles' : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Permissions</th>
            <th scope="col">Brought along</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {paged.items.map((role) => (
            <tr key={role.id}>
              <td>
                {may(rolesRoutes.getRole) ? (
                  <a href={`#/roles/${encodeURIComponent(role.id)}`}>{role.name}</a>
                ) : (
                  role.name
                )}
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
      <Pager paged={paged} />
      <h2>Managed roles</h2>
      <p class="note">Defined for every organization by the operators: they can be granted, not changed.</p>
      <table>
        <caption>
          {managedRoles.length === 0 ? 'No managed roles' : `${managedRoles.length} managed roles`}
        </caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Permissions</th>
          </tr>
        </thead>
        <tbody>
          {managedRoles.map((role) => (
            <tr key={role.id}>
              <td>
                {role.id}
                {role.id === defaultRole ? ' (default)' : ''}
              </td>
              <td>{role.permissions.join(', ')}</td>
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
