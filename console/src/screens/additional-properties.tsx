import { useEffect, useState } from 'preact/hooks';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import {
  removeAdditionalPropertiesRequest,
  setAdditionalPropertiesRequest,
} from '../../../shared/schemas/users.js';
import { idp, messageOf } from '../api.js';
import { submitChecked, type UserSectionProps } from '../outcome.js';
import { type Caller, mayCall } from './screens.js';

/**
 * A user's additional properties: set one (text or number) or remove one, each form checked with
 * the API's own schema. The API answers no user's values (the spec's User has none), so the
 * section offers the names in use in the organization and says each change; the audit log keeps
 * the values set.
 */
export const AdditionalProperties = ({ userId, caller, report }: UserSectionProps) => {
  const [names, setNames] = useState<string[]>([]);
  const readNames = async () =>
    setNames(
      ((await idp.listAdditionalUserProperties({})) as { additionalProperties: string[] })
        .additionalProperties,
    );
  useEffect(
    () =>
      void readNames().catch((error) =>
        report.setOutcome({ problem: `The property names could not be read: ${messageOf(error)}` }),
      ),
    [userId],
  );

  if (!mayCall(usersRoutes.grantAdditionalProperties, caller)) return null;

  const set = submitChecked(
    report,
    setAdditionalPropertiesRequest,
    (form) => {
      const value = String(form.get('value') ?? '');
      return {
        additionalProperties: {
          [String(form.get('name') ?? '')]: form.get('kind') === 'number' ? Number(value) : value,
        },
      };
    },
    (body) => ({
      done: `${Object.keys(body.additionalProperties).join(', ')} was set.`,
      call: () => idp.grantAdditionalProperties({ path: { id: userId }, body }),
    }),
    readNames,
  );
  // The schema's refusal of NaN would only say "Invalid input".
  const setUnlessNotANumber = (event: Event) => {
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = String(form.get('value') ?? '').trim();
    if (form.get('kind') === 'number' && (value === '' || !Number.isFinite(Number(value)))) {
      event.preventDefault();
      report.setOutcome({ problem: `${form.get('name')}: "${form.get('value')}" is not a number.` });
      return;
    }
    set(event);
  };
  const remove = submitChecked(
    report,
    removeAdditionalPropertiesRequest,
    (form) => ({ propertiesToRemove: [String(form.get('name') ?? '')] }),
    (body) => ({
      done: `${body.propertiesToRemove.join(', ')} was removed.`,
      call: () => idp.revokeAdditionalProperties({ path: { id: userId }, body }),
    }),
    readNames,
  );

  return (
    <>
      <h2>Additional properties</h2>
      <p class="note">
        Names in use in the organization: {names.length === 0 ? 'none' : names.join(', ')}. Values are not
        read back; the audit log shows each one set.
      </p>
      <datalist id="property-names">
        {names.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <form class="inline-form" onSubmit={setUnlessNotANumber} aria-label="Set a property">
        <label for="property-name">Property to set</label>
        <input id="property-name" name="name" list="property-names" required maxLength={128} />
        <label for="property-value">Value</label>
        <input id="property-value" name="value" maxLength={4096} />
        <label for="property-kind">As</label>
        <select id="property-kind" name="kind">
          <option value="text">Text</option>
          <option value="number">Number</option>
        </select>
        <button type="submit">Set property</button>
      </form>
      {mayCall(usersRoutes.revokeAdditionalProperties, caller) && (
        <form class="inline-form" onSubmit={remove} aria-label="Remove a property">
          <label for="removed-property">Property to remove</label>
          <input id="removed-property" name="name" list="property-names" required maxLength={128} />
          <button type="submit">Remove property</button>
        </form>
      )}
    </>
  );
};
