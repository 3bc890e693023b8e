import { useEffect, useState } from 'preact/hooks';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { updateUserRequest } from '../../../shared/schemas/users.js';
import { idp, messageOf } from '../api.js';
import { type Reporter, submitChecked } from '../outcome.js';
import { type Caller, mayCallWith } from './screens.js';

/**
 * A user's profile (name and email, edited with the API's schema), status and user type, and the
 * account's actions: deactivate or activate, change the type, resend the invitation, reset MFA.
 */

type Status = 'ACTIVE' | 'INACTIVE';
type UserType = 'STANDARD' | 'RESTRICTED';
interface Standing {
  status: Status;
  userType: UserType;
}

/**
 * The spec's User carries neither status nor type, so each is read by an exact-email search
 * filtered by it (both at once). Searches see a change within about a second, so after its own
 * change the page shows what it set instead of searching again.
 */
const standingOf = async (email: string): Promise<Standing> => {
  const [inactive, restricted] = await Promise.all([
    idp.searchUsers({ query: { email, status: 'INACTIVE', limit: 1 } }),
    idp.searchUsers({ query: { email, userType: 'RESTRICTED', limit: 1 } }),
  ]);
  return {
    status: (inactive as unknown[]).length > 0 ? 'INACTIVE' : 'ACTIVE',
    userType: (restricted as unknown[]).length > 0 ? 'RESTRICTED' : 'STANDARD',
  };
};

export const UserProfile = ({
  user,
  caller,
  report,
  onChanged,
}: {
  user: { id: string; email: string; name: string };
  caller: Caller;
  report: Reporter;
  /** Reads the user again after a change of their profile. */
  onChanged: () => Promise<unknown>;
}) => {
  const [standing, setStanding] = useState<Standing>();
  const may = mayCallWith(caller);
  const { id } = user;
  useEffect(() => {
    if (may(usersRoutes.searchUsers))
      void standingOf(user.email).then(setStanding, (error) =>
        report.setOutcome({ problem: `The status and type could not be read: ${messageOf(error)}` }),
      );
  }, [id]);

  const change = (done: string, call: () => Promise<unknown>, now: Partial<Standing>) =>
    void report.act(done, call, () => setStanding((before) => before && { ...before, ...now }));

  const edit = submitChecked(
    report,
    updateUserRequest,
    (form) => ({ name: form.get('name'), email: form.get('email') }),
    (body) => ({ done: 'The profile was saved.', call: () => idp.updateUser({ path: { id }, body }) }),
    onChanged,
  );
  const nextStatus: Status = standing?.status === 'INACTIVE' ? 'ACTIVE' : 'INACTIVE';
  const otherType: UserType = standing?.userType === 'RESTRICTED' ? 'STANDARD' : 'RESTRICTED';

  return (
    <>
      <dl class="standing">
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Status</dt>
        <dd>{standing ? (standing.status === 'ACTIVE' ? 'Active' : 'Inactive: cannot sign in') : '…'}</dd>
        <dt>User type</dt>
        <dd>{standing ? (standing.userType === 'STANDARD' ? 'Standard' : 'Restricted') : '…'}</dd>
      </dl>
      {may(usersRoutes.updateUser) && (
        <form
          class="panel"
          onSubmit={edit}
          aria-labelledby="profile-title"
          key={`${user.name}|${user.email}`}
        >
          <h2 id="profile-title">Profile</h2>
          <label for="profile-name">Name</label>
          <input id="profile-name" name="name" required maxLength={200} defaultValue={user.name} />
          <label for="profile-email">Email</label>
          <input
            id="profile-email"
            name="email"
            type="email"
            required
            maxLength={254}
            defaultValue={user.email}
          />
          <button type="submit">Save profile</button>
        </form>
      )}
      <h2>Account</h2>
      <div class="actions">
        {standing && may(usersRoutes.setUserStatus) && (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              change(
                nextStatus === 'INACTIVE'
                  ? `${user.email} was deactivated: they can no longer sign in.`
                  : `${user.email} was activated.`,
                () => idp.setUserStatus({ path: { id }, body: { userStatus: nextStatus } }),
                { status: nextStatus },
              )
            }
          >
            {nextStatus === 'INACTIVE' ? 'Deactivate' : 'Activate'}
          </button>
        )}
        {standing && may(usersRoutes.setUserType) && (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              change(
                `${user.email} is now ${otherType === 'STANDARD' ? 'a standard' : 'a restricted'} user.`,
                () => idp.setUserType({ path: { id, type: otherType } }),
                { userType: otherType },
              )
            }
          >
            Make {otherType === 'STANDARD' ? 'standard' : 'restricted'}
          </button>
        )}
        {may(usersRoutes.resendJoinEmail) && (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              void report.act('The invitation was sent again.', () => idp.resendJoinEmail({ path: { id } }))
            }
          >
            Resend invitation
          </button>
        )}
        {may(usersRoutes.resetUserMfa) && (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              void report.act(
                'Two-step verification was reset: they enrol again at their next sign-in.',
                () => idp.resetUserMfa({ path: { id } }),
              )
            }
          >
            Reset MFA
          </button>
        )}
        {may(usersRoutes.endUserSessions) && (
          <button
            type="button"
            class="secondary"
            onClick={() =>
              void report.act(
                `${user.email} was signed out everywhere: each application asks them to sign in again.`,
                () => idp.endUserSessions({ path: { id } }),
              )
            }
          >
            Sign out everywhere
          </button>
        )}
      </div>
    </>
  );
};
