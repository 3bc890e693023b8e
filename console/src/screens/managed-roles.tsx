import { useEffect } from 'preact/hooks';
import { idp } from '../api.js';
import { inPages, PagedTable, usePages } from '../paging.js';

/**
 * The managed roles: defined for every organization by the operators, granted like roles but
 * never changed through the API, so read-only here; one may be the organization's default role.
 */

interface ManagedRole {
  id: string;
  permissions: string[];
}

export const ManagedRoles = ({
  defaultRole,
  onMakeDefault,
}: {
  defaultRole: string | undefined;
  /** Absent when the person may not set the default role. */
  onMakeDefault?: (id: string) => void;
}) => {
  const paged = usePages<ManagedRole>();
  useEffect(
    () => void paged.restart(() => inPages(() => idp.listManagedRoles({}) as Promise<ManagedRole[]>)),
    [],
  );
  return (
    <>
      <h2>Managed roles</h2>
      <p class="note">Defined for every organization by the operators: they can be granted, not changed.</p>
      <PagedTable
        paged={paged}
        noun="managed roles"
        label="Managed roles"
        columns={onMakeDefault ? ['Id', 'Permissions', 'Default'] : ['Id', 'Permissions']}
        row={(role) => (
          <tr key={role.id}>
            <td>
              {role.id}
              {role.id === defaultRole ? ' (default)' : ''}
            </td>
            <td>{role.permissions.join(', ')}</td>
            {onMakeDefault && (
              <td>
                {role.id !== defaultRole && (
                  <button type="button" class="secondary inline" onClick={() => onMakeDefault(role.id)}>
                    Make {role.id} the default
                  </button>
                )}
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
};
