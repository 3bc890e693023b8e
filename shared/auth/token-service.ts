import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { UserType } from '../api/route-definition.js';
import { config } from '../config.js';
import type { EffectiveAccess } from '../domain/effective-permissions.js';
import { currentSigningKey, SIGNING_ALGORITHM } from './signing-keys.js';

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

/** Signs an access token with the claims of DECISIONS.md. */
export const signAccessToken = async (
  subject: TokenSubject,
  scope: string,
  now = Date.now(),
): Promise<{ accessToken: string; expiresIn: number }> => {
  const { publicOrigin: issuer, audience, tokenLifetimeSeconds: lifetimeSeconds } = config();
  const { kid, key } = await currentSigningKey();
  const issuedAt = Math.floor(now / 1000);
  const accessToken = await new SignJWT({
    org: subject.organizationId,
    principal_type: subject.type,
    user_type: subject.userType,
    permissions: subject.permissions,
    policies: subject.policies,
    plugin_permissions: subject.pluginPermissions,
    scope,
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(subject.id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifetimeSeconds)
    .setJti(randomUUID())
    .sign(key);
  return { accessToken, expiresIn: lifetimeSeconds };
};
