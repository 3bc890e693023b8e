import { useEffect, useState } from 'preact/hooks';
import { permissionsRoutes } from '../../../shared/api/routes/permissions.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import type { Role } from '../../../shared/schemas/roles.js';
import { updateRoleRequest } from '../../../shared/schemas/roles.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, submitChecked, useOutcome } from '../outcome.js';
import { type Choice, Choices, catalogueChoices } from './permission-choices.js';
import { PluginPermissions } from './plugin-permissions.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * One role: its permissions chosen from the catalogue, each shown with what it brings along
 * (its dependencies, which tokens carry too), and its permissions of each plugin assigned to
 * the organization. Saving replaces the set, checked with the API's schema.
 */

export const RolePage = ({ id, caller }: { id: string; caller: Caller }) => {
  const [role, setRole] = useState<Role>();
  const [catalogue, setCatalogue] = useState<Choice[]>([]);
  const [plugins, setPlugins] = useState<string[]>([]);
  const { outcome, setOutcome, act } = useOutcome();
  const may = mayCallWith(caller);

  const readRole = async () => setRole((await idp.getRole({ path: { id } })) as unknown as Role);
  useEffect(() => {
    Promise.all([
      readRole(),
      may(permissionsRoutes.listPermissions) && catalogueChoices().then(setCatalogue),
      idp
        .listPlugins({})
        .then((listed) => setPlugins((listed as { id: string }[]).map((plugin) => plugin.id))),
    ]).catch((error) => setOutcome({ problem: messageOf(error) }));
  }, [id]);

  const save = submitChecked(
    { setOutcome, act },
    updateRoleRequest,
    (form) => ({ permissions: form.getAll('permission') }),
    (body) => ({
      done: `The permissions of ${role?.name} were saved.`,
      call: () => idp.updateRole({ path: { id }, body }),
    }),
    readRole,
  );
  const editable = may(rolesRoutes.updateRole) && catalogue.length > 0;

  return (
    <section aria-labelledby="role-title">
      <p>
        <a href="#/roles">← Roles</a>
      </p>
      <h1 id="role-title">{role ? role.name : 'Role'}</h1>
      <OutcomeMessage outcome={outcome} />
      {role && (
        <>
          <h2>Permissions</h2>
          <p>{role.permissions.length === 0 ? 'None.' : role.permissions.join(', ')}</p>
          <p class="note">
            Brought along by them:{' '}
            {role.dependentPermissions.length === 0 ? 'nothing' : role.dependentPermissions.join(', ')}.
          </p>
          {editable && (
            // Keyed by what the role holds, so that the boxes show what was saved.
            <form
              class="panel"
              onSubmit={save}
              aria-labelledby="edit-permissions-title"
              key={role.permissions.join()}
            >
              <h2 id="edit-permissions-title">Change the permissions</h2>
              <Choices
                legend={`Permissions of ${role.name}`}
                name="permission"
                choices={catalogue}
                checked={role.permissions}
              />
              <button type="submit">Save permissions</button>
            </form>
          )}
          <h2>Plugin permissions</h2>
          {plugins.length === 0 && <p>No plugin is assigned to this organization.</p>}
          {plugins.map((pluginId) => (
            <PluginPermissions
              key={pluginId}
              roleId={id}
              pluginId={pluginId}
              editable={may(rolesRoutes.setRolePluginPermissions)}
              report={{ setOutcome, act }}
            />
          ))}
        </>
      )}
    </section>
  );
};
