import { ALL_USER_TYPES, type RouteDefinition, type RouteKind } from './route-definition.js';

/** Routes outside the management API: the bearer authorizer does not guard them. */
const UNGUARDED: Record<Exclude<RouteKind, 'management'>, string> = {
  public: 'Anyone may call it, without a token.',
  oauth:
    "It takes no management token: it authenticates its callers itself (OAuth 2.0 client authentication, or a person's access token).",
  page: "A person's browser opens it, without a token.",
  preflight: 'A browser sends it, without credentials.',
  scim: "A directory calls it with the organization's SCIM bearer secret (`POST /idp/scimTokens`), or an OAuth client-credentials token holding `SCIM.PROVISION`; requests count toward the organization's rate limit.",
};

const inWords = (items: readonly string[]): string =>
  items.length === 1 ? (items[0] as string) : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

const quoted = (items: readonly string[]): string[] => items.map((item) => `\`${item}\``);

/**
 * Who may call an operation, in words for its OpenAPI description, from the fields the authorize
 * middleware enforces (so the words cannot drift from the check).
 */
export const callersOf = (route: RouteDefinition): string => {
  if (route.kind !== 'management') return UNGUARDED[route.kind];
  const permissions = quoted(route.permissions);
  const who =
    route.subject === 'self'
      ? 'Only the user named by `id` may call it; anyone else, an API client too, gets 403.'
      : route.subject === 'self-or-permissions'
        ? `The user named by \`id\` may call it; anyone else needs ${inWords(permissions)}.`
        : permissions.length > 0
          ? `The caller needs ${inWords(permissions)}.`
          : 'Any authenticated caller of the organization may call it.';
  const refused = ALL_USER_TYPES.filter((type) => !route.userTypes.includes(type));
  return refused.length > 0 ? `${who} Callers of user type ${inWords(refused)} get 403.` : who;
};
