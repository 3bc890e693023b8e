import { useEffect, useRef, useState } from 'preact/hooks';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { newUserRequest } from '../../../shared/schemas/users.js';
import { idp, messageOf } from '../api.js';
import { OutcomeMessage, submitChecked, useOutcome } from '../outcome.js';
import { mayCall } from './screens.js';

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

type Pages = AsyncIterator<ListedUser[]>;
const PAGE_SIZE = 20;

const pagesOf = (search: { by: 'emailPrefix' | 'namePrefix'; text: string }): Pages => {
  const text = search.text.trim();
  const pages = text
    ? idp.pages('searchUsers', { query: { [search.by]: text, limit: PAGE_SIZE } })
    : idp.pages('listUsers', { query: { pageSize: PAGE_SIZE } });
  return (pages as AsyncIterable<ListedUser[]>)[Symbol.asyncIterator]();
};

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

export const UsersScreen = ({ permissions }: { permissions: readonly string[] }) => {
  const [search, setSearch] = useState<{ by: 'emailPrefix' | 'namePrefix'; text: string }>({
    by: 'emailPrefix',
    text: '',
  });
  const [page, setPage] = useState<ListedUser[]>([]);
  const [pageNumber, setPageNumber] = useState(0);
  const [more, setMore] = useState(false);
  const [problem, setProblem] = useState<string>();
  const pages = useRef<Pages | undefined>(undefined);
  const seen = useRef<ListedUser[][]>([]);

  /** Reads page `index` (the iterator only goes forward: pages read are kept for going back). */
  const show = async (index: number) => {
    try {
      while (seen.current.length <= index) {
        const next = await pages.current?.next();
        if (!next || next.done) break;
        seen.current.push(next.value);
      }
      // One more page read ahead tells whether "Next" leads anywhere.
      if (seen.current.length === index + 1) {
        const ahead = await pages.current?.next();
        if (ahead && !ahead.done && ahead.value.length) seen.current.push(ahead.value);
      }
      setPage(seen.current[index] ?? []);
      setPageNumber(index);
      setMore(seen.current.length > index + 1);
      setProblem(undefined);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };

  const restart = (next = search) => {
    pages.current = pagesOf(next);
    seen.current = [];
    void show(0);
  };
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
        <label for="search-text">Search text</label>
        <input
          id="search-text"
          type="search"
          value={search.text}
          onInput={(event) => setSearch({ ...search, text: (event.currentTarget as HTMLInputElement).value })}
        />
        <button type="submit">Search</button>
      </form>
      <OutcomeMessage outcome={{ problem }} />
      <table>
        <caption>
          Page {pageNumber + 1}
          {page.length === 0 ? ': no users' : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
          </tr>
        </thead>
        <tbody>
          {page.map((user) => (
            <tr key={user.id}>
              <td>
                {mayCall(usersRoutes.getUser, permissions) ? (
                  <a href={`#/users/${encodeURIComponent(user.id)}`}>{user.email}</a>
                ) : (
                  user.email
                )}
              </td>
              <td>{user.name}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          class="secondary"
          disabled={pageNumber === 0}
          onClick={() => void show(pageNumber - 1)}
        >
          Previous page
        </button>
        <button type="button" class="secondary" disabled={!more} onClick={() => void show(pageNumber + 1)}>
          Next page
        </button>
      </nav>
      {mayCall(usersRoutes.createUser, permissions) && <CreateUser onCreated={() => restart()} />}
    </section>
  );
};
