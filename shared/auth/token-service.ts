import { randomUUID } from 'node:crypto';
import type { UserType } from '../api/route-definition.js';
import { config } from '../config.js';
import type { EffectiveAccess } from '../domain/effective-permissions.js';
import { signJws } from './compact-jwt.js';
import { currentSigningKey } from './signing-keys.js';
import { activeUserAccess } from './user-tokens.js';

/** Scopes the service knows (spec section 5); others are ignored, not refused. */
export const SUPPORTED_SCOPES = [
  'openid',
  'profile',
  'systemRoles',
  'permissions',
  'organization',
  'email',
  'name',
  'nickname',
] as const;

export const grantedScope = (requested: string | undefined): string => {
  if (!requested?.trim()) return SUPPORTED_SCOPES.join(' ');
  const asked = new Set(requested.split(/\s+/));
  return SUPPORTED_SCOPES.filter((scope) => asked.has(scope)).join(' ');
};

export interface TokenSubject extends EffectiveAccess {
  id: string;
  type: 'client' | 'user';
  organizationId: string;
  userType: UserType;
}

/**
 * Signs an access token with the claims of DECISIONS.md. A user's token names the application it
 * was issued to (`client_id`, RFC 9068) and lives `lifetimeSeconds` (shorter than a client's).
 */
export const signAccessToken = async (
  subject: TokenSubject,
  scope: string,
  now = Date.now(),
  options: {
    lifetimeSeconds?: number;
    clientId?: string;
    name?: string;
    /** Epoch ms of the person's authentication (RFC 9068 `auth_time`): steps up read it. */
    authTime?: number;
  } = {},
): Promise<{ accessToken: string; expiresIn: number }> => {
  const { publicOrigin: issuer, audience } = config();
  const lifetimeSeconds = options.lifetimeSeconds ?? config().tokenLifetimeSeconds;
  const signingKey = await currentSigningKey();
  const issuedAt = Math.floor(now / 1000);
  const accessToken = signJws(
    signingKey,
    { typ: 'at+jwt' },
    {
      org: subject.organizationId,
      principal_type: subject.type,
      user_type: subject.userType,
      permissions: subject.permissions,
      policies: subject.policies,
      plugin_permissions: subject.pluginPermissions,
      scope,
      ...(options.clientId ? { client_id: options.clientId } : {}),
      // A person's name when the sign-in granted `profile`: audit records name who acted.
      ...(options.name ? { name: options.name } : {}),
      ...(options.authTime !== undefined ? { auth_time: Math.floor(options.authTime / 1000) } : {}),
      iss: issuer,
      aud: audience,
      sub: subject.id,
      iat: issuedAt,
      exp: issuedAt + lifetimeSeconds,
      jti: randomUUID(),
    },
  );
  return { accessToken, expiresIn: lifetimeSeconds };
};

/**
 * An access token for a user without a sign-in (no application, no ID token), as if the person
 * authenticated at `authTime` (epoch ms; by default now): what tests call.
 */
export const issueUserToken = async (
  orgId: string,
  userId: string,
  requestedScope?: string,
  authTime = Date.now(),
) => {
  const subject = (await activeUserAccess(orgId, userId))?.subject;
  if (!subject) throw new Error('Only an ACTIVE user of the organization can receive a token');
  return signAccessToken(subject, grantedScope(requestedScope), Date.now(), { authTime });
};
