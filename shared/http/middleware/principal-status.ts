import type { Principal } from '../../auth/principal.js';
import { ExpiringCache } from '../../cache/expiring-cache.js';
import { config } from '../../config.js';
import { liveClientOrganization } from '../../store/api-client-repository.js';
import { getUserStanding } from '../../store/user-repository.js';
import { unauthorized } from '../errors.js';

/**
 * Tokens outlive what they describe: a user deactivated or a client deleted after the token was
 * issued is refused, and so is a person's token issued through an application deleted since (as at
 * UserInfo and introspection: standing-person.ts) or before their password was reset or changed
 * (a reset ends every earlier sign-in, as at UserInfo and introspection: a thief's token too). Each
 * instance remembers a principal's standing for a short while, so the check costs one read per
 * principal and instance per interval; the interval (default 30 s) bounds how long a deactivated
 * principal, or a token from before a new password, can still act.
 */
interface Standing {
  active: boolean;
  /** Epoch ms: a person's tokens issued before it are void. */
  credentialsChangedAt?: number | undefined;
  /** A person's type now: a token of the other type is void (routes are kept to types). */
  userType?: Principal['userType'] | undefined;
}

const standings = new ExpiringCache<string, Standing>();

const standingOf = async (principal: Principal): Promise<Standing> => {
  if (principal.type === 'client')
    return { active: (await liveClientOrganization(principal.id)) === principal.organizationId };
  const { clientId } = principal;
  const [user, applicationOrganization] = await Promise.all([
    getUserStanding(principal.organizationId, principal.id),
    clientId === undefined ? principal.organizationId : liveClientOrganization(clientId),
  ]);
  return {
    active: user?.status === 'ACTIVE' && applicationOrganization === principal.organizationId,
    credentialsChangedAt: user?.credentialsChangedAt,
    userType: user?.userType,
  };
};

const keyOf = (principal: Principal) =>
  `${principal.type}#${principal.organizationId}#${principal.id}#${principal.clientId ?? ''}`;

/** Whether this instance remembers the principal's standing: checking it then costs no read. */
export const standingRemembered = (principal: Principal): boolean =>
  standings.holds(keyOf(principal), config().principalCacheSeconds * 1000);

export const refuseInactivePrincipal = async (principal: Principal): Promise<void> => {
  const standing = await standings.get(keyOf(principal), config().principalCacheSeconds * 1000, () =>
    standingOf(principal),
  );
  if (!standing.active)
    throw unauthorized(
      principal.clientId === undefined
        ? 'The principal of this token is no longer active'
        : 'The principal of this token, or the application it was issued to, is no longer active',
      true,
    );
  // A person made RESTRICTED keeps no STANDARD token (nor the reverse): the token's type decides
  // which routes it reaches (the spec's S and R).
  if (standing.userType !== undefined && standing.userType !== principal.userType)
    throw unauthorized("The user's type changed since this token was issued; sign in again", true);
  // `iat` is whole seconds: a token of the very second of a new password stands (standing-person.ts).
  if (principal.issuedAt !== undefined && principal.issuedAt + 999 < (standing.credentialsChangedAt ?? 0))
    throw unauthorized(
      "This token was issued before the person's earlier sign-ins were ended (a new password, a deactivation or a sign-out everywhere); sign in again",
      true,
    );
};
