import { useEffect } from 'preact/hooks';
import { userGroupsRoutes } from '../../../shared/api/routes/user-groups.js';
import { createUserGroupRequest } from '../../../shared/schemas/user-groups.js';
import { idp } from '../api.js';
import { OutcomeMessage, submitChecked, useConfirmation, useOutcome } from '../outcome.js';
import { PAGE_SIZE, PagedTable, usePages } from '../paging.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * User groups: the list, creating one (checked with the API's schema), duplicating one (with its
 * grants and members) and deleting one after a confirmation.
 */

interface Group {
  id: string;
  name: string;
  description?: string;
}

export const GroupsScreen = ({ caller }: { caller: Caller }) => {
  const paged = usePages<Group>((page) => (page as { userGroups: Group[] }).userGroups);

  const { outcome, setOutcome, act } = useOutcome();
  const may = mayCallWith(caller);
  const load = paged.reload;
  useEffect(
    () => void paged.restart(() => idp.pages('listUserGroups', { query: { pageSize: PAGE_SIZE } })),
    [],
  );

  const deletion = useConfirmation<Group>({
    consequence: () => 'Its members lose what it grants them.',
    confirm: (group) =>
      act(`${group.name} was deleted.`, () => idp.deleteUserGroup({ path: { id: group.id } }), load),
  });

  const create = submitChecked(
    { setOutcome, act },
    createUserGroupRequest,
    (form) => {
      const description = String(form.get('description') ?? '').trim();
      return { name: form.get('name'), ...(description ? { description } : {}) };
    },
    (group) => ({ done: `${group.name} was created.`, call: () => idp.createUserGroup({ body: group }) }),
    load,
  );

  return (
    <section aria-labelledby="groups-title">
      <h1 id="groups-title">User groups</h1>
      <OutcomeMessage outcome={outcome} />
      <PagedTable
        paged={paged}
        noun="user groups"
        columns={['Name', 'Description', 'Actions']}
        row={(group) => (
          <tr key={group.id}>
            <td>
              {may(userGroupsRoutes.getUserGroup) ? (
                <a href={`#/groups/${encodeURIComponent(group.id)}`}>{group.name}</a>
              ) : (
                group.name
              )}
            </td>
            <td>{group.description ?? ''}</td>
            <td>
              {may(userGroupsRoutes.duplicateUserGroup) && (
                <button
                  type="button"
                  class="secondary inline"
                  onClick={() =>
                    void act(
                      `${group.name} was duplicated.`,
                      () => idp.duplicateUserGroup({ path: { id: group.id } }),
                      load,
                    )
                  }
                >
                  Duplicate {group.name}
                </button>
              )}
              {may(userGroupsRoutes.deleteUserGroup) && (
                <button type="button" class="secondary inline" onClick={() => deletion.ask(group)}>
                  Delete {group.name}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      {deletion.dialog}
      {may(userGroupsRoutes.createUserGroup) && (
        <form class="panel" onSubmit={create} aria-labelledby="new-group-title">
          <h2 id="new-group-title">Create a user group</h2>
          <label for="group-name">Name</label>
          <input id="group-name" name="name" required maxLength={200} />
          <label for="group-description">Description</label>
          <input id="group-description" name="description" maxLength={2000} />
          <button type="submit">Create group</button>
        </form>
      )}
    </section>
  );
};
