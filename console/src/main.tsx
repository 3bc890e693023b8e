import './console.css';
import { render } from 'preact';
import { idp } from './api.js';
import { App } from './app.js';
import { finishSignIn, type Session, startSignIn, whenSignedOutElsewhere, whenSignInEnds } from './auth.js';

/**
 * The console's entry: finish a sign-in coming back from the identity provider, or try one
 * without a page (a reload, while the identity provider's session lasts), then show the console.
 */
const root = document.getElementById('console') as HTMLElement;
whenSignedOutElsewhere(() => render(<App session={undefined} />, root));
whenSignInEnds((problem) => render(<App session={undefined} problem={problem} />, root));

const finished = await finishSignIn();
if (finished === undefined) {
  await startSignIn(true);
} else if (!('accessToken' in finished)) {
  render(<App session={undefined} {...finished} />, root);
} else {
  const session = finished as Session;
  // The console pages the person may open (the `UI` module), beside the token's API permissions;
  // should the call fail, the token's own `UI.*` permissions say the same as of this sign-in.
  const ui = await idp.getMyUiPermissions({}).then(
    (mine) => (mine as { uiPermissions: string[] }).uiPermissions,
    () =>
      (session.claims.permissions ?? [])
        .filter((permission) => permission.startsWith('UI.'))
        .map((permission) => permission.slice('UI.'.length)),
  );
  render(<App session={session} ui={ui} />, root);
}
