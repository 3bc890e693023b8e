import type { UserType } from '../api/route-definition.js';
import { once } from '../cache/once.js';
import * as z from '../zod.js';

/** The caller, as the verified access token describes it. */
export interface Principal {
  id: string;
  type: 'client' | 'user';
  organizationId: string;
  userType: UserType;
  permissions: ReadonlySet<string>;
  policies: readonly string[];
  pluginPermissions: Readonly<Record<string, readonly string[]>>;
  /** Epoch ms (whole seconds) of a person's authentication, when the token says (`auth_time`). */
  authTime?: number;
  /** Epoch ms (whole seconds) the token was issued (`iat`). */
  issuedAt?: number;
  /** A person's token: the application it was issued to (RFC 9068 `client_id`), when it names one. */
  clientId?: string;
}

/**
 * The claims this service puts into (and expects in) its access tokens; see DECISIONS.md. Built on
 * first use: functions that serve no bearer token (sign-in, the token endpoint) never build it.
 */
export const accessTokenClaims = once(() =>
  z.object({
    iss: z.string(),
    sub: z.string().check(z.minLength(1)),
    aud: z.union([z.string(), z.array(z.string())]),
    iat: z.number(),
    exp: z.number(),
    jti: z.string().check(z.minLength(1)),
    org: z.string().check(z.minLength(1)),
    principal_type: z.enum(['client', 'user']),
    user_type: z.enum(['STANDARD', 'RESTRICTED']),
    permissions: z.array(z.string()),
    policies: z.array(z.string()),
    plugin_permissions: z.record(z.string(), z.array(z.string())),
    scope: z.optional(z.string()),
    auth_time: z.optional(z.number()),
    client_id: z.optional(z.string()),
  }),
);
export type AccessTokenClaims = z.infer<ReturnType<typeof accessTokenClaims>>;

export const principalFromClaims = (claims: AccessTokenClaims): Principal => ({
  id: claims.sub,
  type: claims.principal_type,
  organizationId: claims.org,
  userType: claims.user_type,
  permissions: new Set(claims.permissions),
  policies: claims.policies,
  pluginPermissions: claims.plugin_permissions,
  ...(claims.auth_time !== undefined ? { authTime: claims.auth_time * 1000 } : {}),
  issuedAt: claims.iat * 1000,
  ...(claims.principal_type === 'user' && claims.client_id !== undefined
    ? { clientId: claims.client_id }
    : {}),
});
