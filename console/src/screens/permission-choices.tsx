import { idp } from '../api.js';

/**
 * Permissions as boxes to check: the catalogue's for a role (each naming what it brings along),
 * a plugin's definitions for a role's plugin permissions.
 */

export interface Choice {
  value: string;
  label: string;
}

/** What a choice brings along (its dependencies), named as the boxes are. */
const alongWith = (dependencies: readonly string[] | undefined, nameOf: (id: string) => string) =>
  dependencies?.length ? `, brings along ${dependencies.map(nameOf).join(', ')}` : '';

const dependencyMap = (pairs: unknown) =>
  new Map(
    (pairs as { permissionId: string; dependentPermissionIds: string[] }[]).map((pair) => [
      pair.permissionId,
      pair.dependentPermissionIds,
    ]),
  );

/** The permission catalogue as choices (two reads at once; `PERMISSIONS.LIST`). */
export const catalogueChoices = async (): Promise<Choice[]> => {
  const [listed, dependent] = await Promise.all([idp.listPermissions({}), idp.listDependentPermissions({})]);
  const dependencies = dependencyMap(dependent);
  return (
    listed as unknown as { id: string; moduleDisplayName: string; accessTypeDisplayName: string }[]
  ).map((permission) => ({
    value: permission.id,
    label: `${permission.id} (${permission.moduleDisplayName}: ${permission.accessTypeDisplayName})${alongWith(
      dependencies.get(permission.id),
      (id) => id,
    )}`,
  }));
};

export interface PluginDefinition {
  id: string;
  module: string;
  actionName: string;
  description: string;
}

/** A plugin's permission definitions as choices, with the plugin's own dependencies. */
export const pluginChoices = async (pluginId: string) => {
  const plugin = (await idp.getPlugin({ path: { id: pluginId } })) as unknown as {
    permissionDefinitions: PluginDefinition[];
    dependentPermissions: unknown;
  };
  const dependencies = dependencyMap(plugin.dependentPermissions);
  const definitions = plugin.permissionDefinitions;
  const nameOf = (id: string) => {
    const definition = definitions.find((candidate) => candidate.id === id);
    return definition ? `${definition.module}.${definition.actionName}` : id;
  };
  return {
    definitions,
    choices: definitions.map((definition) => ({
      value: definition.id,
      label: `${nameOf(definition.id)}: ${definition.description}${alongWith(dependencies.get(definition.id), nameOf)}`,
    })),
  };
};

export const Choices = ({
  legend,
  name,
  choices,
  checked = [],
  disabled = false,
}: {
  legend: string;
  /** The form field each checked box sends. */
  name: string;
  choices: readonly Choice[];
  checked?: readonly string[];
  disabled?: boolean;
}) => (
  <fieldset class="permissions" disabled={disabled}>
    <legend>{legend}</legend>
    {choices.map((choice) => (
      <label key={choice.value} class="choice">
        <input
          type="checkbox"
          name={name}
          value={choice.value}
          defaultChecked={checked.includes(choice.value)}
        />{' '}
        {choice.label}
      </label>
    ))}
  </fieldset>
);
