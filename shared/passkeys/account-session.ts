import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { signInRecentEnoughToAddCredential } from '../domain/credential-recency.js';
import { newRecoveryCodesRefusal } from '../domain/recovery-codes.js';
import { readCookie } from '../pages/cookies.js';
import { secureCookies, sessionCsrfToken } from '../pages/forms.js';
import { getOrganization } from '../store/organization-repository.js';
import { providerForEmail, signInOptions } from '../store/sign-in-providers.js';
import { liveSession } from '../store/sign-in-state.js';
import { getUser } from '../store/user-repository.js';
import { accountAddRefusal } from './rules.js';

/**
 * Who the account page acts for: the browser's live session, its ACTIVE person and organization,
 * the CSRF token bound to the session, whether it may add a passkey (a recent sign-in, and an
 * email no SSO provider serves), and whether it may make new recovery codes.
 * `alongside` reads more of the session's person in the same round trip as the person (answered
 * as `extra`, and dropped when the session acts for nobody).
 */
export const accountOf = async <Extra = undefined>(
  event: APIGatewayProxyEventV2,
  alongside?: (organizationId: string, userId: string) => Promise<Extra>,
  now = Date.now(),
) => {
  const cookie = readCookie(event.cookies, 'session', secureCookies());
  const session = await liveSession(cookie, now);
  if (!cookie || !session) return undefined;
  const [user, organization, providers, extra] = await Promise.all([
    getUser(session.organizationId, session.userId, true),
    getOrganization(session.organizationId),
    signInOptions(session.organizationId),
    alongside?.(session.organizationId, session.userId),
  ]);
  if (user?.status !== 'ACTIVE' || (user.credentialsChangedAt ?? 0) > session.authTime) return undefined;
  const routedTo = providerForEmail(providers, user.email)?.displayName;
  return {
    extra,
    user,
    organizationName: organization?.name ?? session.organizationId,
    csrf: sessionCsrfToken(cookie),
    /** The ceremony binding of this session's registrations. */
    binding: `account:${cookie}`,
    addRefusal: accountAddRefusal(session, organization?.mfaEnabled === true, now, routedTo),
    /** When the session's person signed in (epoch ms). */
    authTime: session.authTime,
    /** Removing a passkey, like adding one, needs a sign-in of the last 15 minutes. */
    recentSignIn: signInRecentEnoughToAddCredential(session.authTime, now),
    /** Why new recovery codes may not be made now, if they may not. */
    codesRefusal: newRecoveryCodesRefusal(session, user.totpSecret !== undefined, now),
  };
};

export type Account = NonNullable<Awaited<ReturnType<typeof accountOf<unknown>>>>;
