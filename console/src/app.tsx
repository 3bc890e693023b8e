import { useEffect, useState } from 'preact/hooks';
import { organizationId, type Session, signOut, startSignIn } from './auth.js';
import { allowed, SCREENS } from './screens/screens.js';
import { UsersScreen } from './screens/users.js';

/** The hash names the screen (`#/users`), so a reload or a link lands on it. */
const screenOfHash = () => location.hash.replace(/^#\/?/, '').split('/')[0] || '';

export const App = ({ session }: { session: Session | undefined }) => {
  const [path, setPath] = useState(screenOfHash());
  useEffect(() => {
    const follow = () => setPath(screenOfHash());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  if (!session)
    return (
      <main class="signed-out">
        <h1>IDP console</h1>
        <p>Organization {organizationId}</p>
        <button type="button" onClick={() => void startSignIn(false)}>
          Sign in
        </button>
      </main>
    );

  const held = session.claims.permissions ?? [];
  const visible = SCREENS.filter((screen) => allowed(screen, held));
  const current = SCREENS.find((screen) => screen.path === path) ?? visible[0];
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
      <main>
        {!current ? (
          <p role="alert" class="error">
            Your permissions show no screen of this console.
          </p>
        ) : !allowed(current, held) ? (
          <p role="alert" class="error">
            You may not open {current.title}: it needs {current.permissions.join(' or ')}.
          </p>
        ) : current.path === 'users' ? (
          <UsersScreen permissions={held} />
        ) : null}
      </main>
    </>
  );
};
