import type { Principal } from '../../auth/principal.js';
import { ExpiringCache } from '../../cache/expiring-cache.js';
import { config } from '../../config.js';
import { liveClientOrganization } from '../../store/api-client-repository.js';
import { getUserStatus } from '../../store/user-repository.js';
import { unauthorized } from '../errors.js';

/**
 * Tokens outlive what they describe: a user deactivated or a client deleted after the token was
 * issued is refused. Each instance remembers a principal's status for a short while, so the
 * check costs one read per principal and instance per interval; the interval (default 30 s)
 * bounds how long a deactivated principal can still act.
 */
const statuses = new ExpiringCache<string, boolean>();

const isActive = async (principal: Principal): Promise<boolean> =>
  principal.type === 'user'
    ? (await getUserStatus(principal.organizationId, principal.id)) === 'ACTIVE'
    : (await liveClientOrganization(principal.id)) === principal.organizationId;

export const refuseInactivePrincipal = async (principal: Principal): Promise<void> => {
  const active = await statuses.get(
    `${principal.type}#${principal.organizationId}#${principal.id}`,
    config().principalCacheSeconds * 1000,
    () => isActive(principal),
  );
  if (!active) throw unauthorized('The principal of this token is no longer active');
};
