import { decodeJwt, type JWTPayload } from 'jose';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { issueClientToken } from '../../shared/auth/client-credentials.js';
import { issueUserToken } from '../../shared/auth/token-service.js';
import { reloadConfig } from '../../shared/config.js';

/**
 * The token endpoint's caches as deployed (vitest.config.ts turns them off for the other tests),
 * and a clock the test moves: only `Date` is faked, DynamoDB calls keep their real timers.
 */
export const useTokenCaches = () => {
  beforeAll(() => {
    process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '5';
    process.env.IDP_TOKEN_ACCESS_CACHE_SECONDS = '30';
    reloadConfig();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterAll(() => {
    process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '0';
    process.env.IDP_TOKEN_ACCESS_CACHE_SECONDS = '0';
    reloadConfig();
    vi.useRealTimers();
  });
};

export interface TokenClaims extends JWTPayload {
  permissions: string[];
  policies: string[];
  plugin_permissions: Record<string, string[]>;
}

/** The claims of a token the client credentials grant issues now. */
export const clientClaims = async (clientId: string, clientSecret: string): Promise<TokenClaims> =>
  decodeJwt((await issueClientToken(clientId, clientSecret)).accessToken) as TokenClaims;

/** The claims of a person's access token issued now (what the authorization code grant signs). */
export const userClaims = async (orgId: string, userId: string): Promise<TokenClaims> =>
  decodeJwt((await issueUserToken(orgId, userId)).accessToken) as TokenClaims;

/**
 * A removal reaches tokens within a second: a token carries the permission (positive control, a
 * second after a first token, so that it comes from cached values stamped with the access versions
 * they were read under), then the change, and a token issued a second later does not carry it.
 */
export const expectGoneASecondAfter = async (
  token: () => Promise<TokenClaims>,
  carries: (claims: TokenClaims) => boolean,
  change: () => Promise<unknown>,
) => {
  expect(carries(await token())).toBe(true);
  vi.advanceTimersByTime(1_000);
  expect(carries(await token())).toBe(true);
  await change();
  vi.advanceTimersByTime(1_000);
  expect(carries(await token())).toBe(false);
};
