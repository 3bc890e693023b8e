/**
 * How much one thing may hold. Each bound keeps an item, a token or an answer of the API bounded,
 * and the OpenAPI document states it (`maxItems`), so callers can size what they keep.
 */

/** Roles, managed roles or policies one user, user group or API client holds; groups one user joins. */
export const MAX_GRANTS_PER_HOLDER = 100;

/** Permission ids of one role or managed role: the catalogue's, which stays below this. */
export const MAX_PERMISSIONS_PER_ROLE = 200;

/** Permission definitions of one plugin (the operator's definitions file). */
export const MAX_PLUGIN_PERMISSION_DEFINITIONS = 200;

/**
 * Plugin permissions one role holds, across all its plugins: a role's answer lists them in one
 * list, and its item (at most 400 KB) holds them.
 */
export const MAX_PLUGIN_GRANTS_PER_ROLE = 200;

/** Plugins assigned to one organization. */
export const MAX_PLUGINS_PER_ORGANIZATION = 100;

/**
 * Plugin permissions a role's answer may list: a role written before
 * {@link MAX_PLUGIN_GRANTS_PER_ROLE} may hold more (at most every definition of every plugin of
 * its organization) and is answered in full; it may shrink, not grow, until it is within the limit.
 */
export const MAX_PLUGIN_GRANTS_ANSWERED = MAX_PLUGINS_PER_ORGANIZATION * MAX_PLUGIN_PERMISSION_DEFINITIONS;

/** Distinct additional property names in use across one organization's users. */
export const MAX_ADDITIONAL_PROPERTY_NAMES = 1000;

/** Live (not archived) policies of one organization: `GET /idp/policies` answers them all at once. */
export const MAX_POLICIES_PER_ORGANIZATION = 1000;

/** Managed roles, built-in and operator-defined: `GET /idp/managedRoles` answers them all at once. */
export const MAX_MANAGED_ROLES = 100;

/** SSO providers bound to one organization. */
export const MAX_SSO_PROVIDERS_PER_ORGANIZATION = 50;

/** Live SCIM bearer secrets of one organization (one per directory, with room to rotate). */
export const MAX_SCIM_TOKENS_PER_ORGANIZATION = 20;

/** Bounds of what an error answer says (shared/http/error-mapping.ts cuts longer texts). */
export const ERROR_TEXT_LENGTH = 1000;
export const MAX_ERROR_DETAILS = 100;

/** The longest password taken (schemas read it here, free of the password policy's I/O-free but Node-only code). */
export const MAX_PASSWORD_LENGTH = 1024;
