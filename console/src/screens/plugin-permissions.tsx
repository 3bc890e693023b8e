import { useEffect, useState } from 'preact/hooks';
import { pluginPermissionsRequest } from '../../../shared/schemas/roles.js';
import { idp, messageOf } from '../api.js';
import { type Reporter, submitChecked } from '../outcome.js';

/**
 * A role's permissions of one plugin: the plugin's definitions, the ones the role holds checked;
 * saving replaces them (the API's schema checks the list first).
 */

interface Definition {
  id: string;
  module: string;
  actionName: string;
  description: string;
}

export const PluginPermissions = ({
  roleId,
  pluginId,
  editable,
  report,
}: {
  roleId: string;
  pluginId: string;
  editable: boolean;
  report: Reporter;
}) => {
  const [definitions, setDefinitions] = useState<Definition[]>([]);
  const [dependencies, setDependencies] = useState<Map<string, string[]>>(new Map());
  const [holds, setHolds] = useState<string[]>();
  const path = { id: roleId, pluginId };

  const readHeld = async () =>
    setHolds(
      ((await idp.getRolePluginPermissions({ path })) as { pluginPermissions: string[] }).pluginPermissions,
    );
  useEffect(() => {
    Promise.all([
      idp.getPlugin({ path: { id: pluginId } }).then((answer) => {
        const plugin = answer as unknown as {
          permissionDefinitions: Definition[];
          dependentPermissions: { permissionId: string; dependentPermissionIds: string[] }[];
        };
        setDefinitions(plugin.permissionDefinitions);
        setDependencies(
          new Map(
            plugin.dependentPermissions.map((pair) => [pair.permissionId, pair.dependentPermissionIds]),
          ),
        );
      }),
      readHeld(),
    ]).catch((error) => report.setOutcome({ problem: messageOf(error) }));
  }, [roleId, pluginId]);

  /** What a definition brings along (the plugin's own dependencies), named as the boxes are. */
  const broughtAlong = (id: string) => {
    const named = (dependencies.get(id) ?? []).map((other) => {
      const definition = definitions.find((candidate) => candidate.id === other);
      return definition ? `${definition.module}.${definition.actionName}` : other;
    });
    return named.length > 0 ? `, brings along ${named.join(', ')}` : '';
  };

  const save = submitChecked(
    report,
    pluginPermissionsRequest,
    (form) => {
      const chosen = new Set(form.getAll('definition'));
      return definitions
        .filter((definition) => chosen.has(definition.id))
        .map(({ module, actionName }) => ({ module, actionName }));
    },
    (body) => ({
      done: `The permissions of plugin ${pluginId} were saved.`,
      call: () => idp.setRolePluginPermissions({ path, body }),
    }),
    readHeld,
  );

  return (
    <form class="panel" onSubmit={save} aria-labelledby={`plugin-${pluginId}`} key={holds?.join()}>
      <h3 id={`plugin-${pluginId}`}>Plugin {pluginId}</h3>
      {holds && (
        <fieldset class="permissions" disabled={!editable}>
          <legend>Permissions of plugin {pluginId}</legend>
          {definitions.map((definition) => (
            <label key={definition.id} class="choice">
              <input
                type="checkbox"
                name="definition"
                value={definition.id}
                defaultChecked={holds.includes(definition.id)}
              />{' '}
              {definition.module}.{definition.actionName}: {definition.description}
              {broughtAlong(definition.id)}
            </label>
          ))}
        </fieldset>
      )}
      {editable && <button type="submit">Save permissions of {pluginId}</button>}
    </form>
  );
};
