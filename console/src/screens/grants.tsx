import { policiesRoutes } from '../../../shared/api/routes/policies.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { userGroupsRoutes } from '../../../shared/api/routes/user-groups.js';
import { MAX_PAGE_SIZE } from '../../../shared/schemas/common.js';
import { idp } from '../api.js';
import { type Caller, mayCall, type RouteNeeds } from './screens.js';

/**
 * What a user or a user group holds of one kind (roles, managed roles, policies, groups): each
 * named, with a button taking it away when the person may, and a form granting one more.
 */

/** Anything the console names by id: a role, a managed role (its id is its name), a policy, a group. */
export interface Named {
  id: string;
  name: string;
}

/** What can be granted, each kind read only when the person may list it. */
export interface Grantable {
  roles: Named[];
  managedRoles: Named[];
  policies: Named[];
  groups: Named[];
}

export const NOTHING_GRANTABLE: Grantable = { roles: [], managedRoles: [], policies: [], groups: [] };

/**
 * Every page of a listing, 1000 a page (the most a page holds): one request for all but the
 * largest organizations, whose every role and group can still be granted and is named.
 */
const everyOne = async <T,>(pages: AsyncIterable<unknown>, itemsOf: (page: unknown) => T[]): Promise<T[]> => {
  const all: T[] = [];
  for await (const page of pages) all.push(...itemsOf(page));
  return all;
};
const WHOLE_PAGES = { query: { pageSize: MAX_PAGE_SIZE } };

/** Every role of the organization that is not archived, oldest first. */
export const everyRole = () => everyOne(idp.pages('listRoles', WHOLE_PAGES), (page) => page as Named[]);

const settledOr = <T,>(result: PromiseSettledResult<T>, fallback: T) =>
  result.status === 'fulfilled' ? result.value : fallback;

/**
 * Shows every kind the person may list, then rejects with the first listing that failed: one
 * refused listing (a 403, a timeout) takes none of the other choices away.
 */
export const grantableFor = async (
  may: (route: RouteNeeds) => boolean,
  { groups: withGroups }: { groups: boolean },
  show: (grantable: Grantable) => void,
): Promise<void> => {
  const settled = await Promise.allSettled([
    may(rolesRoutes.listRoles) ? everyRole() : [],
    may(rolesRoutes.listManagedRoles) ? idp.listManagedRoles({}) : [],
    may(policiesRoutes.listPolicies) ? idp.listPolicies({}) : [],
    withGroups && may(userGroupsRoutes.listUserGroups)
      ? everyOne(
          idp.pages('listUserGroups', WHOLE_PAGES),
          (page) => (page as { userGroups: Named[] }).userGroups,
        )
      : [],
  ]);
  show({
    roles: settledOr(settled[0], []) as Named[],
    // A managed role's id is its name (`read-only`).
    managedRoles: (settledOr(settled[1], []) as { id: string }[]).map(({ id }) => ({ id, name: id })),
    policies: settledOr(settled[2], []) as Named[],
    groups: settledOr(settled[3], []) as Named[],
  });
  const refused = settled.find((result) => result.status === 'rejected');
  if (refused) throw refused.reason;
};

/** A grant's handler, only when the person's permissions let them call its route. */
export const handlerIf =
  (caller: Caller) =>
  <T,>(route: RouteNeeds, handler: (entry: Named) => T) =>
    mayCall(route, caller) ? handler : undefined;

/** The words of one kind of grant, e.g. "Grant a role", "Grant role", "Revoke Editors". */
export interface GrantWords {
  title: string;
  none: string;
  choose: string;
  grant: string;
  revoke: (name: string) => string;
}

export const roleWords = (noun: string): GrantWords => ({
  title: `${noun[0]?.toUpperCase()}${noun.slice(1)}s`,
  none: `No ${noun}.`,
  choose: `Grant a ${noun}`,
  grant: `Grant ${noun}`,
  revoke: (name) => `Revoke ${noun} ${name}`,
});

export const POLICY_WORDS: GrantWords = { ...roleWords('policy'), title: 'Policies' };

export const GROUP_WORDS: GrantWords = {
  title: 'Groups',
  none: 'In no group.',
  choose: 'Add to a group',
  grant: 'Add to group',
  revoke: (name) => `Remove from ${name}`,
};

const idOf = (words: GrantWords) => `grant-${words.title.toLowerCase().replaceAll(' ', '-')}`;

export const Grants = ({
  words,
  held,
  known,
  onGrant,
  onRevoke,
}: {
  words: GrantWords;
  held: readonly string[];
  /** What may be granted; also names what is held (an id it lacks is shown as the id). */
  known: readonly Named[];
  /** Absent when the person may not grant (or take away) this kind. */
  onGrant?: (granted: Named) => void;
  onRevoke?: (revoked: Named) => void;
}) => {
  const named = (id: string) => known.find((entry) => entry.id === id) ?? { id, name: id };
  const grantable = known.filter((entry) => !held.includes(entry.id));
  return (
    <>
      <h2>{words.title}</h2>
      <ul class="plain" aria-label={words.title}>
        {held.length === 0 && <li>{words.none}</li>}
        {held.map(named).map((entry) => (
          <li key={entry.id}>
            {entry.name}{' '}
            {onRevoke && (
              <button type="button" class="secondary inline" onClick={() => onRevoke(entry)}>
                {words.revoke(entry.name)}
              </button>
            )}
          </li>
        ))}
      </ul>
      {onGrant && grantable.length > 0 && (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            const id = new FormData(event.currentTarget as HTMLFormElement).get('granted') as string;
            onGrant(named(id));
          }}
        >
          <label for={idOf(words)}>{words.choose}</label>
          <select id={idOf(words)} name="granted">
            {grantable.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.name}
              </option>
            ))}
          </select>
          <button type="submit">{words.grant}</button>
        </form>
      )}
    </>
  );
};

/** One kind's calls, each present only when the person may call its route (see handlerIf). */
export interface GrantCalls {
  grant?: (entry: Named) => Promise<unknown>;
  revoke?: (entry: Named) => Promise<unknown>;
}

type RoleOrPolicyKind = 'roles' | 'managedRoles' | 'policies';
const ROLE_AND_POLICY_KINDS: readonly (readonly [RoleOrPolicyKind, GrantWords])[] = [
  ['roles', roleWords('role')],
  ['managedRoles', roleWords('managed role')],
  ['policies', POLICY_WORDS],
];

/** The roles, managed roles and policies a user or a group holds, each kind a `Grants`. */
export const RoleAndPolicyGrants = ({
  held,
  known,
  calls,
  act,
  holder = '',
}: {
  held: Partial<Record<RoleOrPolicyKind, readonly string[]>>;
  known: Grantable;
  calls: Record<RoleOrPolicyKind, GrantCalls>;
  /** Runs a call and says `done` (the screen's outcome). */
  act: (done: string, call: () => Promise<unknown>) => unknown;
  /** Who holds them, as the status names it: "the group" ("granted to the group"). */
  holder?: string;
}) => (
  <>
    {ROLE_AND_POLICY_KINDS.map(([kind, words]) => {
      const { grant, revoke } = calls[kind];
      return (
        <Grants
          key={kind}
          words={words}
          held={held[kind] ?? []}
          known={known[kind]}
          onGrant={
            grant &&
            ((entry) => act(`${entry.name} was granted${holder && ` to ${holder}`}.`, () => grant(entry)))
          }
          onRevoke={
            revoke &&
            ((entry) => act(`${entry.name} was revoked${holder && ` from ${holder}`}.`, () => revoke(entry)))
          }
        />
      );
    })}
  </>
);
