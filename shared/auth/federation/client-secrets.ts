import type { SsoProvider } from '../../store/sso-provider-repository.js';
import { secretStore, ssoSecretName } from '../secret-store.js';

/**
 * SSO client secrets, cached briefly per provider version: every change of the provider
 * (`POST /idp/sso-providers/{clientId}` included) raises its version, so the next sign-in reads
 * the new secret at once, in every instance.
 */
const CACHE_MILLIS = 5 * 60_000;
const cache = new Map<string, { value: string | undefined; until: number }>();

export const ssoClientSecretOf = async (
  provider: Pick<SsoProvider, 'clientId' | 'createdAt' | 'version' | 'secretVersion'>,
  now = Date.now(),
): Promise<string | undefined> => {
  // With createdAt: a provider deleted and created again starts at version 1 once more.
  const key = `${provider.clientId}#${provider.createdAt}#${provider.version}`;
  const cached = cache.get(key);
  if (cached && cached.until > now) return cached.value;
  const value = await (await secretStore()).get(ssoSecretName(provider.clientId, provider.secretVersion));
  // Older versions of this provider are of no use any more.
  for (const stale of cache.keys()) if (stale.startsWith(`${provider.clientId}#`)) cache.delete(stale);
  cache.set(key, { value, until: now + CACHE_MILLIS });
  return value;
};
