import type { EndpointGroup } from './route-definition.js';

/**
 * One line about each endpoint group: the OpenAPI document tags every operation with its group,
 * which generators for other languages turn into one API class per group. A new group does not
 * compile until it has its line.
 */
export const ENDPOINT_GROUP_DESCRIPTIONS: Record<EndpointGroup, string> = {
  oauth: 'OAuth 2.0 and OpenID Connect endpoints: tokens, UserInfo, revocation, discovery and signing keys.',
  openapi: 'This OpenAPI document.',
  permissions:
    'The permission catalogue, the dependencies between permissions, and the plugins assigned to the organization.',
  organizations:
    "The caller's organization, the published agreements and consent to them, and the names of users and API clients by id.",
  users:
    "Users of the organization: creation, profile, status and type, their roles, managed roles, policies and groups, additional properties and MFA reset, and the caller's own UI permissions.",
  'user-pictures': "Users' pictures: the upload and the image.",
  'user-passwords': "A user's change of its own password.",
  'user-groups': 'User groups and the roles, managed roles and policies their members hold through them.',
  roles:
    'Roles with their permissions and plugin permissions, the global managed roles, and the default role new users receive.',
  policies: 'Policies, which users, user groups and RESTRICTED API clients hold.',
  clients:
    'API clients and applications people sign in to: registration, listing, secret rotation and deletion.',
  sso: 'The single sign-on providers serving the organization, and their client secrets.',
  signin: 'The hosted sign-in pages: authorization, password, second step, consent and logout.',
  accounts:
    'The hosted account pages: invitation and password reset links, "forgot your password?", TOTP enrolment.',
  console: 'The admin console: its page and files (a single-page application calling the management API).',
  passkeys:
    'Passkeys on the hosted pages: signing in with one, adding one after a password sign-in, and the account page that lists, renames and removes them.',
  federation: "Sign-in through an SSO provider's upstream OpenID Connect issuer.",
  cors: "Browsers' CORS preflights, for every path.",
  audit: "The organization's audit log: every change, sign-in and refusal, with who, where and what changed.",
  'scim-tokens':
    'The bearer secrets SCIM directories (Okta, Microsoft Entra ID) provision users and groups with: creation, listing, revocation.',
  scim: 'SCIM 2.0 provisioning (RFC 7643, 7644) of users and groups by a directory such as Okta or Microsoft Entra ID.',
};
