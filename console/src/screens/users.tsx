import { useEffect, useState } from 'preact/hooks';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { newUserRequest } from '../../../shared/schemas/users.js';
import { idp } from '../api.js';
import { OutcomeMessage, submitChecked, useOutcome } from '../outcome.js';
import { PAGE_SIZE, PagedTable, usePages } from '../paging.js';
import { type Caller, mayCall } from './screens.js';

/**
 * Users: a listing or a search (email or name prefix), page by page, and, for a person holding
 * USER.CREATE, the form that creates a user (the API sends the invitation). The form checks what
 * it sends with the API's own schema before sending it.
 */

interface ListedUser {
  id: string;
  email: string;
  name: string;
}

interface Search {
  by: 'emailPrefix' | 'namePrefix';
  text: string;
  /** The listing shows one status at a time (as the API lists them); a search too. */
  status: 'ACTIVE' | 'INACTIVE';
}

const listingOf = ({ by, text, status }: Search) =>
  text.trim()
    ? idp.pages('searchUsers', { query: { [by]: text.trim(), status, limit: PAGE_SIZE } })
    : idp.pages('listUsers', {
        query: { pageSize: PAGE_SIZE, fetchInactive: status === 'INACTIVE' ? 'true' : 'false' },
      });

const CreateUser = ({ onCreated }: { onCreated: () => void }) => {
  const { outcome, setOutcome, act } = useOutcome();
  const submit = submitChecked(
    { setOutcome, act },
    newUserRequest,
    (form) => Object.fromEntries(form),
    (user) => ({
      done: `${user.email} was created and invited.`,
      call: () => idp.createUser({ body: user }),
    }),
    onCreated,
  );
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="create-user">
      <h2 id="create-user">Create a user</h2>
      <p class="note">They get an email inviting them to choose a password.</p>
      <OutcomeMessage outcome={outcome} />
      <label for="new-email">Email</label>
      <input id="new-email" name="email" type="email" required maxLength={254} />
      <label for="new-name">Name</label>
      <input id="new-name" name="name" required maxLength={200} />
      <label for="new-type">User type</label>
      <select id="new-type" name="userType">
        <option value="STANDARD">Standard</option>
        <option value="RESTRICTED">Restricted</option>
      </select>
      <button type="submit">Create user</button>
    </form>
  );
};

export const UsersScreen = ({ caller }: { caller: Caller }) => {
  const [search, setSearch] = useState<Search>({ by: 'emailPrefix', text: '', status: 'ACTIVE' });
  const paged = usePages<ListedUser>();
  const restart = (next = search) => void paged.restart(() => listingOf(next));
  useEffect(() => restart(), []);

  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      <form
        class="search"
        aria-label="Search users"
        onSubmit={(event) => {
          event.preventDefault();
          restart();
        }}
      >
        <div class="field">
          <label for="search-by">Search by</label>
          <select
            id="search-by"
            value={search.by}
            onChange={(event) =>
              setSearch({ ...search, by: (event.currentTarget as HTMLSelectElement).value as 'emailPrefix' })
            }
          >
            <option value="emailPrefix">Email starting with</option>
            <option value="namePrefix">Name starting with</option>
          </select>
        </div>
        <div class="field">
          <label for="search-status">Status</label>
          <select
            id="search-status"
            value={search.status}
            onChange={(event) =>
              setSearch({ ...search, status: (event.currentTarget as HTMLSelectElement).value as 'ACTIVE' })
            }
          >
            <option value="ACTIVE">Active</option>
            <option value="INACTIVE">Inactive</option>
          </select>
        </div>
        <div class="field">
          <label for="search-text">Search text</label>
          <input
            id="search-text"
            type="search"
            value={search.text}
            onInput={(event) =>
              setSearch({ ...search, text: (event.currentTarget as HTMLInputElement).value })
            }
          />
        </div>
        <button type="submit">Search</button>
      </form>
      <PagedTable
        paged={paged}
        noun="users"
        columns={['Email', 'Name']}
        row={(user) => (
          <tr key={user.id}>
            <td>
              {mayCall(usersRoutes.getUser, caller) ? (
                <a href={`#/users/${encodeURIComponent(user.id)}`}>{user.email}</a>
              ) : (
                user.email
              )}
            </td>
            <td>{user.name}</td>
          </tr>
        )}
      />
      {mayCall(usersRoutes.createUser, caller) && <CreateUser onCreated={() => restart()} />}
    </section>
  );
};
