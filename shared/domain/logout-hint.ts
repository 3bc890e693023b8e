/** Who an ID token hint of RP-Initiated Logout was issued to, and for which sign-in. */
export interface IdTokenHint {
  clientId: string;
  organizationId: string;
  userId: string;
  /** Epoch seconds of the sign-in (the ID token's `auth_time`). */
  authTime: number;
}

/**
 * Whether a hint was issued for this very session: the same person, signed in at the same second.
 * Only then does the application's request prove it came from this session's application, and the
 * person is signed out without being asked.
 */
export const hintMatchesSession = (
  hint: IdTokenHint | undefined,
  session: { organizationId: string; userId: string /** epoch ms */; authTime: number },
): boolean =>
  hint !== undefined &&
  hint.organizationId === session.organizationId &&
  hint.userId === session.userId &&
  hint.authTime === Math.floor(session.authTime / 1000);
