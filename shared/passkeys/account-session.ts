import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { readCookie } from '../pages/cookies.js';
import { secureCookies, sessionCsrfToken } from '../pages/forms.js';
import { getOrganization } from '../store/organization-repository.js';
import { liveSession } from '../store/sign-in-state.js';
import { getUser } from '../store/user-repository.js';
import { accountAddRefusal } from './rules.js';

/**
 * Who the account page acts for: the browser's live session, its ACTIVE person and organization,
 * the CSRF token bound to the session, and whether it may add a passkey (a recent sign-in).
 */
export const accountOf = async (event: APIGatewayProxyEventV2, now = Date.now()) => {
  const cookie = readCookie(event.cookies, 'session', secureCookies());
  const session = await liveSession(cookie, now);
  if (!cookie || !session) return undefined;
  const [user, organization] = await Promise.all([
    getUser(session.organizationId, session.userId, true),
    getOrganization(session.organizationId),
  ]);
  if (user?.status !== 'ACTIVE' || (user.credentialsChangedAt ?? 0) > session.authTime) return undefined;
  return {
    user,
    organizationName: organization?.name ?? session.organizationId,
    csrf: sessionCsrfToken(cookie),
    /** The ceremony binding of this session's registrations. */
    binding: `account:${cookie}`,
    addRefusal: accountAddRefusal(session, organization?.mfaEnabled === true, now),
  };
};

export type Account = NonNullable<Awaited<ReturnType<typeof accountOf>>>;
