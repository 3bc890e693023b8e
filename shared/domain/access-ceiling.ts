import { ALL_PERMISSION_IDS } from './permission-catalogue.js';

/**
 * No one gives what they do not hold (docs/behaviour.md, "Granting"). Keycloak and Okta refuse an
 * administrator who maps a role they lack; here every permission is a permission over this
 * service, so the rule is general: a change that would give someone permissions (a grant, a role's
 * new permissions, the default role, a client's roles, a group's roles or members) needs the
 * caller's token to hold every one of them, and so does taking over, or changing the sign-in of,
 * a user or client that holds more than the caller. Pure: the caller resolves what is given.
 */

/**
 * Reading the client list reads every client's secret (the spec's APIClientV2), and a client's
 * token may hold anything: whoever gives this permission gives every permission.
 */
export const READS_EVERY_CLIENT_SECRET = 'API_CLIENTS.READ';

/** The permissions among `given` that `held` lacks, sorted; empty when the change may be made. */
export const permissionsBeyond = (held: ReadonlySet<string>, given: Iterable<string>): string[] => {
  const wanted = new Set(given);
  if (wanted.has(READS_EVERY_CLIENT_SECRET))
    for (const permission of ALL_PERMISSION_IDS) wanted.add(permission);
  return [...wanted].filter((permission) => !held.has(permission)).sort();
};

/** How a refusal names what the caller lacks (the first few, then how many more). */
export const beyondCallerMessage = (
  what: string,
  beyond: readonly string[],
  kind: 'permissions' | 'policies' = 'permissions',
): string => {
  const named = beyond.slice(0, 5).join(', ');
  const more = beyond.length > 5 ? ` and ${beyond.length - 5} more` : '';
  return `${what} would give ${kind} the caller does not hold: ${named}${more}`;
};

/**
 * Policies bound a RESTRICTED caller (and grant nothing in this service's own API): it gives, or
 * takes over someone holding, only policies its own token carries. A STANDARD caller is bound by
 * none. The policy ids among `given` the caller lacks, sorted.
 */
export const policiesBeyond = (
  caller: { userType: 'STANDARD' | 'RESTRICTED'; policies: readonly string[] },
  given: Iterable<string>,
): string[] => (caller.userType === 'STANDARD' ? [] : permissionsBeyond(new Set(caller.policies), given));

/**
 * A RESTRICTED caller cannot make anyone STANDARD (RESTRICTED is the narrower type), and no one
 * changes their own type. Undefined when the change may be made, else why not.
 */
export const userTypeRefusal = (
  caller: { id: string; userType: 'STANDARD' | 'RESTRICTED' },
  targetId: string | undefined,
  wanted: 'STANDARD' | 'RESTRICTED',
): string | undefined => {
  if (targetId === caller.id) return 'No one changes their own user type';
  if (caller.userType === 'RESTRICTED' && wanted === 'STANDARD')
    return 'A RESTRICTED caller cannot make a STANDARD user or client';
  return undefined;
};

/**
 * A client's secret is its access: a RESTRICTED caller reads it only of a RESTRICTED client
 * holding no policy the caller lacks, as it could make only such a client. The list shows the
 * others' secret empty.
 */
export const clientSecretShownTo = (
  caller: { userType: 'STANDARD' | 'RESTRICTED'; policies: readonly string[] },
  client: { clientType: 'STANDARD' | 'RESTRICTED'; policies: readonly string[] },
): boolean =>
  takeoverTypeRefusal(caller.userType, client.clientType) === undefined &&
  policiesBeyond(caller, client.policies).length === 0;

/**
 * Taking over, or changing how another signs in (email, MFA, secret, where codes go): a RESTRICTED
 * caller acts on no STANDARD user or client, as it could make none. Undefined when it may.
 */
export const takeoverTypeRefusal = (
  callerType: 'STANDARD' | 'RESTRICTED',
  targetType: 'STANDARD' | 'RESTRICTED',
): string | undefined =>
  callerType === 'RESTRICTED' && targetType === 'STANDARD'
    ? 'A RESTRICTED caller cannot change a STANDARD user or client'
    : undefined;
