/**
 * Every action an audit record can name: dotted, past tense, grouped by what it acts on. The docs
 * (docs/audit.md) list the same set; a route names the actions it records in the route table.
 */
export const AUDIT_ACTIONS = [
  'user.created',
  'user.updated',
  'user.status.changed',
  'user.type.changed',
  'user.role.granted',
  'user.role.revoked',
  'user.policy.granted',
  'user.policy.revoked',
  'user.managedRole.granted',
  'user.managedRole.revoked',
  'user.group.added',
  'user.group.removed',
  'user.properties.granted',
  'user.properties.revoked',
  'user.picture.updated',
  'user.sessions.ended',
  'group.created',
  'group.updated',
  'group.deleted',
  'group.duplicated',
  'group.managedRole.granted',
  'group.managedRole.revoked',
  'group.policy.granted',
  'group.policy.revoked',
  'group.role.granted',
  'group.role.revoked',
  'role.created',
  'role.updated',
  'role.archived',
  'role.pluginPermissions.set',
  'policy.created',
  'policy.updated',
  'policy.archived',
  'client.created',
  'client.updated',
  'client.secret.rotated',
  'client.deleted',
  'sso.provider.created',
  'sso.provider.updated',
  'sso.provider.bound',
  'sso.provider.unbound',
  'sso.provider.deleted',
  'sso.provider.secret.updated',
  'passkey.registered',
  'passkey.removed',
  'passkey.renamed',
  'ssoLink.created',
  'ssoLink.removed',
  'scimToken.created',
  'scimToken.revoked',
  'organization.created',
  'organization.updated',
  'defaultRole.set',
  'defaultRole.cleared',
  'consent.accepted',
  'signin.succeeded',
  'signin.failed',
  'signin.locked',
  'signin.federated',
  'mfa.enrolled',
  'mfa.reset',
  'mfa.recoveryCodes.regenerated',
  'password.changed',
  'password.reset.requested',
  'password.reset',
  'invitation.sent',
  'invitation.accepted',
  'session.ended',
  'token.issued',
  'token.refused',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const KNOWN: ReadonlySet<string> = new Set(AUDIT_ACTIONS);

export const isAuditAction = (value: string): value is AuditAction => KNOWN.has(value);

/**
 * An action filter: an exact action, or a prefix ending in `.` (`user.`, `user.role.`). Answers
 * undefined for a filter that matches no action, so a typo is refused rather than answered empty.
 */
export const actionFilter = (filter: string): { exact: AuditAction } | { prefix: string } | undefined => {
  if (filter.endsWith('.'))
    return AUDIT_ACTIONS.some((action) => action.startsWith(filter)) ? { prefix: filter } : undefined;
  return isAuditAction(filter) ? { exact: filter } : undefined;
};

/** The first segment of an action with its dot (`user.`): what the namespace index is keyed by. */
export const namespaceOf = (action: string): string => `${action.slice(0, action.indexOf('.'))}.`;
