import { useEffect, useRef, useState } from 'preact/hooks';
import { clientsRoutes } from '../../shared/api/routes/clients.js';
import { rolesRoutes } from '../../shared/api/routes/roles.js';
import { userGroupsRoutes } from '../../shared/api/routes/user-groups.js';
import { usersRoutes } from '../../shared/api/routes/users.js';
import { organizationId, type Session, signOut, startSignIn } from './auth.js';
import { AuditScreen } from './screens/audit.js';
import { ClientPage } from './screens/client-page.js';
import { ClientsScreen } from './screens/clients.js';
import { GroupPage } from './screens/group-page.js';
import { GroupsScreen } from './screens/groups.js';
import { MeScreen } from './screens/me.js';
import { PoliciesScreen } from './screens/policies.js';
import { RolePage } from './screens/role-page.js';
import { RolesScreen } from './screens/roles.js';
import { allowed, type Caller, mayCall, needsOf, SCREENS } from './screens/screens.js';
import { SsoScreen } from './screens/sso.js';
import { UserPage } from './screens/user-page.js';
import { UsersScreen } from './screens/users.js';

/** The hash names the screen and what in it (`#/users/<id>`), so a reload or a link lands there. */
const placeOfHash = () =>
  location.hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part; // Not percent-encoded as a link would be: names no screen or record.
      }
    });

export const App = ({
  session,
  ui = [],
  problem,
}: {
  session: Session | undefined;
  ui?: readonly string[];
  /** Why the person is signed out, when something went wrong. */
  problem?: string | undefined;
}) => {
  const [[path = '', detail] = [], setPlace] = useState(placeOfHash());
  useEffect(() => {
    const follow = () => setPlace(placeOfHash());
    // The hash may have changed between the first render and this effect (a link followed at
    // once): no event will say so.
    follow();
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  const caller: Caller = {
    permissions: session?.claims.permissions ?? [],
    userType: session?.claims.user_type,
  };
  const visible = SCREENS.filter((screen) => allowed(screen, caller, ui));
  const current = path ? SCREENS.find((screen) => screen.path === path) : visible[0];

  const main = useRef<HTMLElement>(null);
  const moved = useRef(false);
  useEffect(() => {
    // WCAG 2.4.2 and 2.4.3: the title names the screen, and the focus moves to its heading (not
    // on the first screen: the page has just loaded), so a screen reader says the screen changed.
    // The page has the organization's id, not its name.
    document.title = [session ? current?.title : 'Sign in', 'IDP console', organizationId]
      .filter(Boolean)
      .join(' – ');
    if (!moved.current) {
      moved.current = true;
      return;
    }
    const heading = main.current?.querySelector('h1');
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }, [path, detail, session]);

  if (!session)
    return (
      <main class="signed-out">
        <h1>IDP console</h1>
        <p>Organization {organizationId}</p>
        {problem ? (
          <p role="alert" class="error">
            {problem}
          </p>
        ) : null}
        <button type="button" onClick={() => void startSignIn(false)}>
          Sign in
        </button>
      </main>
    );

  return (
    <>
      <header>
        <strong>IDP console</strong>
        <nav aria-label="Screens">
          {visible.map((screen) => (
            <a
              key={screen.path}
              href={`#/${screen.path}`}
              aria-current={screen === current ? 'page' : undefined}
            >
              {screen.title}
            </a>
          ))}
        </nav>
        <span class="who">{session.claims.email ?? session.claims.sub}</span>
        <button type="button" class="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main ref={main}>
        {!current ? (
          <>
            <h1>{path ? 'No such screen' : 'IDP console'}</h1>
            <p role="alert" class="error">
              {path
                ? `This console has no screen "${path}".`
                : 'Your permissions show no screen of this console.'}
            </p>
          </>
        ) : !allowed(current, caller, ui) ? (
          <>
            <h1>{current.title}</h1>
            <p role="alert" class="error">
              You may not open {current.title}: it needs {needsOf(current)}.
            </p>
          </>
        ) : current.path === 'users' ? (
          detail && mayCall(usersRoutes.getUser, caller) ? (
            <UserPage key={detail} id={detail} caller={caller} />
          ) : (
            <UsersScreen caller={caller} />
          )
        ) : current.path === 'groups' ? (
          detail && mayCall(userGroupsRoutes.getUserGroup, caller) ? (
            <GroupPage key={detail} id={detail} caller={caller} />
          ) : (
            <GroupsScreen caller={caller} />
          )
        ) : current.path === 'roles' ? (
          detail && mayCall(rolesRoutes.getRole, caller) ? (
            <RolePage key={detail} id={detail} caller={caller} />
          ) : (
            <RolesScreen caller={caller} />
          )
        ) : current.path === 'policies' ? (
          <PoliciesScreen caller={caller} />
        ) : current.path === 'clients' ? (
          detail && mayCall(clientsRoutes.getApiClient, caller) ? (
            <ClientPage key={detail} id={detail} caller={caller} />
          ) : (
            <ClientsScreen caller={caller} />
          )
        ) : current.path === 'sso' ? (
          <SsoScreen />
        ) : current.path === 'audit' ? (
          <AuditScreen />
        ) : current.path === 'me' ? (
          <MeScreen session={session} ui={ui} />
        ) : null}
      </main>
    </>
  );
};
