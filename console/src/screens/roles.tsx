import { useEffect, useState } from 'preact/hooks';
import { permissionsRoutes } from '../../../shared/api/routes/permissions.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import type { Role } from '../../../shared/schemas/roles.js';
import { newRoleRequest } from '../../../shared/schemas/roles.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, submitChecked, useConfirmation, useOutcome } from '../outcome.js';
import { PAGE_SIZE, PagedTable, usePages } from '../paging.js';
import { ManagedRoles } from './managed-roles.js';
import { type Choice, Choices, catalogueChoices } from './permission-choices.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * Roles: each with its permissions and the ones those bring along (dependencies), which is the
 * default role, archiving one; creating one from the permission catalogue (checked with the
 * API's schema); the default may also be a managed role, or none. Managed roles, read-only.
 */

export const RolesScreen = ({ caller }: { caller: Caller }) => {
  const paged = usePages<Role>();
  const [catalogue, setCatalogue] = useState<Choice[]>([]);
  const [defaultRole, setDefaultRole] = useState<string>();

  const { outcome, setOutcome, act } = useOutcome();
  const may = mayCallWith(caller);

  const makeDefault = (roleId: string) => idp.setDefaultRole({ body: { roleId } });
  const readDefault = async () =>
    setDefaultRole(((await idp.getDefaultRole({})) as { roleId?: string }).roleId);
  const load = () => Promise.all([paged.reload(), readDefault()]);
  useEffect(() => {
    void paged.restart(() => idp.pages('listRoles', { query: { pageSize: PAGE_SIZE } }));
    Promise.all([
      readDefault(),
      may(permissionsRoutes.listPermissions) && catalogueChoices().then(setCatalogue),
    ]).catch((error) => setOutcome({ problem: messageOf(error) }));
  }, []);

  const archival = useConfirmation<Role>({
    verb: 'Archive',
    consequence: (role) =>
      `It can no longer be granted or changed, and whoever holds it loses what it grants.${
        role.id === defaultRole ? ' It is the default role: new users will get no role.' : ''
      }`,
    confirm: (role) =>
      act(`${role.name} was archived.`, () => idp.archiveRole({ path: { id: role.id } }), load),
  });

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
      <PagedTable
        paged={paged}
        noun="roles"
        columns={['Name', 'Permissions', 'Brought along', 'Actions']}
        row={(role) => (
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
                      () => makeDefault(role.id),
                      load,
                    )
                  }
                >
                  Make {role.name} the default
                </button>
              )}
              {may(rolesRoutes.archiveRole) && (
                <button type="button" class="secondary inline" onClick={() => archival.ask(role)}>
                  Archive {role.name}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      {archival.dialog}
      <ManagedRoles
        defaultRole={defaultRole}
        onMakeDefault={
          may(rolesRoutes.setDefaultRole)
            ? (id) =>
                void act(`${id} is the default role: new users get it.`, () => makeDefault(id), readDefault)
            : undefined
        }
      />
      {may(rolesRoutes.clearDefaultRole) && defaultRole && (
        <p>
          <button
            type="button"
            class="secondary"
            onClick={() => void act('New users get no role.', () => idp.clearDefaultRole({}), readDefault)}
          >
            Clear the default role
          </button>
        </p>
      )}
      {may(rolesRoutes.createRole) && catalogue.length > 0 && (
        <form class="panel" onSubmit={create} aria-labelledby="new-role-title">
          <h2 id="new-role-title">Create a role</h2>
          <label for="role-name">Name</label>
          <input id="role-name" name="name" required maxLength={200} />
          <Choices legend="Permissions" name="permission" choices={catalogue} />
          <button type="submit">Create role</button>
        </form>
      )}
    </section>
  );
};
