import { useEffect } from 'preact/hooks';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { idp, messageOf } from '../api.js';
import type { Reporter } from '../outcome.js';
import { PAGE_SIZE, PagedTable, usePages } from '../paging.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * A user group's members, page by page (the user search by group, in no particular order): removing one, and adding a user found by their email
 * (the user search, then the same call as the user's page).
 */

interface Member {
  id: string;
  email: string;
  name: string;
}

/** The user whose email is `email` (compared case-insensitively), if any. */
const userWithEmail = async (email: string) =>
  ((await idp.searchUsers({ query: { email, limit: 1 } })) as unknown as Member[])[0];

export const GroupMembers = ({
  groupId,
  caller,
  report: { setOutcome, act },
}: {
  groupId: string;
  caller: Caller;
  report: Reporter;
}) => {
  const paged = usePages<Member>();
  const may = mayCallWith(caller);
  useEffect(() => {
    if (may(usersRoutes.searchUsers))
      void paged.restart(() =>
        idp.pages('searchUsers', { query: { userGroupId: groupId, limit: PAGE_SIZE } }),
      );
  }, [groupId]);

  if (!may(usersRoutes.searchUsers)) return null;

  const add = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const email = String(new FormData(form).get('email') ?? '').trim();
    let user: Member | undefined;
    try {
      user = await userWithEmail(email);
    } catch (error) {
      setOutcome({ problem: messageOf(error) });
      return;
    }
    if (!user) {
      setOutcome({ problem: `No user has the email ${email}.` });
      return;
    }
    await act(
      `${user.email} joined the group.`,
      () => idp.addUserToGroup({ path: { id: user.id, userGroupId: groupId } }),
      () => {
        form.reset();
        return paged.reload();
      },
    );
  };

  return (
    <>
      <h2 id="members-title">Members</h2>
      <PagedTable
        paged={paged}
        noun="members"
        columns={['Email', 'Name', 'Actions']}
        label="Members"
        row={(member) => (
          <tr key={member.id}>
            <td>
              {may(usersRoutes.getUser) ? (
                <a href={`#/users/${encodeURIComponent(member.id)}`}>{member.email}</a>
              ) : (
                member.email
              )}
            </td>
            <td>{member.name}</td>
            <td>
              {may(usersRoutes.removeUserFromGroup) && (
                <button
                  type="button"
                  class="secondary inline"
                  onClick={() =>
                    void act(
                      `${member.email} left the group.`,
                      () => idp.removeUserFromGroup({ path: { id: member.id, userGroupId: groupId } }),
                      paged.reload,
                    )
                  }
                >
                  Remove {member.email}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      {may(usersRoutes.addUserToGroup) && (
        <form class="inline-form" onSubmit={(event) => void add(event)} aria-label="Add a member">
          <label for="member-email">Email of the user to add</label>
          <input id="member-email" name="email" type="email" required maxLength={254} />
          <button type="submit">Add member</button>
        </form>
      )}
    </>
  );
};
