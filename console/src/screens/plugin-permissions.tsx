import { useEffect, useState } from 'preact/hooks';
import { pluginPermissionsRequest } from '../../../shared/schemas/roles.js';
import { idp, messageOf } from '../api.js';
import { type Reporter, submitChecked } from '../outcome.js';
import { Choices, pluginChoices } from './permission-choices.js';

/**
 * A role's permissions of one plugin: the plugin's definitions, the ones the role holds checked;
 * saving replaces them (the API's schema checks the list first).
 */

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
  const [plugin, setPlugin] = useState<Awaited<ReturnType<typeof pluginChoices>>>();
  const [holds, setHolds] = useState<string[]>();
  const path = { id: roleId, pluginId };

  const readHeld = async () =>
    setHolds(
      ((await idp.getRolePluginPermissions({ path })) as { pluginPermissions: string[] }).pluginPermissions,
    );
  useEffect(() => {
    Promise.all([pluginChoices(pluginId).then(setPlugin), readHeld()]).catch((error) =>
      report.setOutcome({ problem: messageOf(error) }),
    );
  }, [roleId, pluginId]);

  const save = submitChecked(
    report,
    pluginPermissionsRequest,
    (form) => {
      const chosen = new Set(form.getAll('definition'));
      return (plugin?.definitions ?? [])
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
      {holds && plugin && (
        <Choices
          legend={`Permissions of plugin ${pluginId}`}
          name="definition"
          choices={plugin.choices}
          checked={holds}
          disabled={!editable}
        />
      )}
      {editable && <button type="submit">Save permissions of {pluginId}</button>}
    </form>
  );
};
