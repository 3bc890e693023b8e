import { config } from '../../shared/config.js';
import { consoleAddress, enableConsole } from '../../shared/console/console-application.js';
import { s256 } from '../../shared/domain/authorization.js';
import { accountLink, sendJoinEmail } from '../../shared/email/account-emails.js';
import { createApiClient, getApiClient } from '../../shared/store/api-client-repository.js';
import { grantTarget } from '../../shared/store/grant-targets.js';
import { grantToUser } from '../../shared/store/user-grants.js';
import { createUser, findUserByEmail, queueJoinEmail } from '../../shared/store/user-repository.js';

/**
 * What `npm start` adds so that a person can sign in within a minute: a public application with
 * loopback redirect URIs (nothing needs to listen there: the browser's address bar shows the
 * code) and a person holding the administrator role. Until that person has chosen a password,
 * every start sends a new invitation (voiding the previous link) and prints its link.
 */
export const TRY_APPLICATION_ID = 'try-sign-in';
export const TRY_EMAIL = 'admin@example.com';
export const TRY_REDIRECT = 'http://127.0.0.1:8976/callback';
const TRY_SIGNED_OUT = 'http://127.0.0.1:8976/signed-out';

export interface SignInTrial {
  applicationId: string;
  email: string;
  /** Absent once the person has a password. */
  invitationLink?: string;
  /** The organization's admin console (docs/console.md). */
  consoleUrl: string;
}

const ensureApplication = async (organizationId: string) => {
  const existing = await getApiClient(TRY_APPLICATION_ID);
  if (existing && existing.organizationId !== organizationId) return undefined;
  if (!existing) {
    await createApiClient({
      id: TRY_APPLICATION_ID,
      organizationId,
      name: 'Try sign-in',
      clientType: 'STANDARD',
      roles: [],
      policies: [],
      createdBy: 'bootstrap',
      flowType: 'authorization_code',
      tokenEndpointAuthMethod: 'none',
      redirectUris: [TRY_REDIRECT],
      postLogoutRedirectUris: [TRY_SIGNED_OUT],
    });
  }
  return TRY_APPLICATION_ID;
};

/** The person, with the administrator role; answers a fresh invitation link while they have no password. */
const ensurePerson = async (organizationId: string, adminRoleId: string) => {
  const existing = await findUserByEmail(organizationId, TRY_EMAIL);
  const { user, joinEmail } = existing
    ? {
        user: existing,
        joinEmail: existing.passwordHash
          ? undefined
          : await queueJoinEmail(organizationId, existing.id, config().signIn.invitationSeconds),
      }
    : await createUser(
        {
          organizationId,
          email: TRY_EMAIL,
          name: 'Local Admin',
          userType: 'STANDARD',
          createdBy: 'bootstrap',
        },
        config().signIn.invitationSeconds,
      );
  // Again at every start: the administrator role is recreated when someone archived it.
  await grantToUser(organizationId, user.id, grantTarget(organizationId, 'roles', adminRoleId));
  if (!joinEmail) return undefined;
  await sendJoinEmail(joinEmail);
  return accountLink('invitation', joinEmail.invitationToken);
};

export const prepareSignInTrial = async (
  organizationId: string,
  adminRoleId: string,
): Promise<SignInTrial | undefined> => {
  const [applicationId, invitationLink] = await Promise.all([
    ensureApplication(organizationId),
    ensurePerson(organizationId, adminRoleId),
    enableConsole(organizationId, 'bootstrap'),
  ]);
  if (!applicationId) return undefined;
  return {
    applicationId,
    email: TRY_EMAIL,
    consoleUrl: consoleAddress(organizationId),
    ...(invitationLink ? { invitationLink } : {}),
  };
};

// A fixed PKCE pair (RFC 7636 appendix B), so that the printed URL and exchange work as pasted.
const TRY_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const TRY_CHALLENGE = s256(TRY_VERIFIER);

/** The lines `npm start` prints to walk a person through sign-in (README, "Try sign-in"). */
export const signInSteps = (baseUrl: string, trial: SignInTrial) => {
  const authorize = new URL('/oauth2/authorize', baseUrl);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: trial.applicationId,
    redirect_uri: TRY_REDIRECT,
    scope: 'openid email profile',
    code_challenge: TRY_CHALLENGE,
    code_challenge_method: 'S256',
    state: 'try',
  }).toString();
  const password = trial.invitationLink
    ? `Open the invitation of ${trial.email} and choose a password (a new link at every start until then):
     ${trial.invitationLink}`
    : `${trial.email} has a password (forgotten? "Forgot your password?" on the sign-in page; the link goes to the outbox file).`;
  return `
Sign a person in, in a browser (README, "Try sign-in"):

  1. ${password}
  2. Sign in to the local application "Try sign-in":
     ${authorize.href}
  3. The browser lands on ${TRY_REDIRECT}?code=...&state=try (nothing listens there); exchange the code:
     curl -s ${baseUrl}/oauth2/token -d grant_type=authorization_code -d client_id=${trial.applicationId} -d redirect_uri=${TRY_REDIRECT} -d code_verifier=${TRY_VERIFIER} -d code=PASTE_THE_CODE
  4. Passkeys: after the password, choose "Add a passkey" (or add one later at ${new URL('/signin/account', baseUrl).href});
     then open the link of step 2 again and choose "Sign in with a passkey": no password. The RP ID is
     ${new URL(baseUrl).hostname}, so use this address as written (not 127.0.0.1).
  5. The admin console, as ${trial.email}: ${trial.consoleUrl}
`;
};
