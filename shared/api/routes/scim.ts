import { identifier } from '../../schemas/common.js';
import { scimGroupBody } from '../../scim/group-resource.js';
import { SCIM_SCHEMAS } from '../../scim/schema-ids.js';
import { scimUserBody } from '../../scim/user-resource.js';
import * as z from '../../zod.js';
import { routeGroup } from '../route-definition.js';

/** A SCIM resource or message as answered: open, as RFC 7643 resources are. */
const scimDocument = z.looseObject({ schemas: z.array(z.string()) });

const wholeNumber = z.coerce.number().check(z.int());
/** RFC 7644 section 3.4.2: unknown parameters (Entra ID's `aadOptscim062020`) are ignored. */
const listQuery = z.looseObject({
  filter: z.optional(z.string().check(z.maxLength(1000))),
  startIndex: z.optional(wholeNumber),
  count: z.optional(wholeNumber),
  attributes: z.optional(z.string().check(z.maxLength(1000))),
  excludedAttributes: z.optional(z.string().check(z.maxLength(1000))),
});
const readQuery = z.looseObject({
  attributes: z.optional(z.string().check(z.maxLength(1000))),
  excludedAttributes: z.optional(z.string().check(z.maxLength(1000))),
});
/** RFC 7644 section 4: discovery is not filtered; `filter` is named so that it can be refused (403). */
const discoveryQuery = z.looseObject({
  ...readQuery.shape,
  filter: z.optional(z.string().check(z.maxLength(1000))),
});
const attributeNames = z.optional(z.array(z.string().check(z.maxLength(200))).check(z.maxLength(100)));
/** RFC 7644 section 3.4.3: a listing's query sent as a POST body, attribute lists as arrays. */
const searchBody = z.looseObject({
  schemas: z.array(z.string().check(z.maxLength(200))).check(
    z.maxLength(10),
    z.refine(
      (schemas) => schemas.includes(SCIM_SCHEMAS.searchRequest),
      `Must include ${SCIM_SCHEMAS.searchRequest}`,
    ),
  ),
  filter: z.optional(z.string().check(z.maxLength(1000))),
  startIndex: z.optional(z.number().check(z.int())),
  count: z.optional(z.number().check(z.int())),
  attributes: attributeNames,
  excludedAttributes: attributeNames,
});
const patchBody = z.looseObject({
  schemas: z.array(z.string().check(z.maxLength(200))).check(z.maxLength(10)),
  Operations: z.array(z.unknown()).check(z.minLength(1), z.maxLength(100)),
});
const resourcePath = z.strictObject({ id: identifier });
const schemaPath = z.strictObject({ id: z.string().check(z.maxLength(200), z.regex(/^[A-Za-z0-9:._-]+$/)) });

const scim = <const T>(entry: T) => ({ kind: 'scim' as const, extension: true as const, ...entry });
const ok = (description: string) => ({ status: 200 as const, description, body: scimDocument });
const created = (description: string) => ({
  status: 201 as const,
  description,
  body: scimDocument,
  location: true,
});
const noContent = (description: string) => ({ status: 204 as const, description });
/**
 * An endpoint RFC 7644 names that this server does not offer: always 501 in SCIM's error shape
 * (RFC 7644 section 3.11 asks so of `/Me`), rather than a 404 a directory could take for a typo.
 */
const notImplemented = <const K extends `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /scim/v2/${string}`>(
  route: K,
  summary: string,
) =>
  scim({
    route,
    summary,
    description: 'Always 501 Not Implemented (see `/ServiceProviderConfig`).',
    audit: [],
    response: { status: 501 as const, description: 'Not implemented' },
  });

/** SCIM 2.0 provisioning (RFC 7644), per organization: the organization is the token's. */
export const scimRoutes = routeGroup('scim')({
  getScimServiceProviderConfig: scim({
    route: 'GET /scim/v2/ServiceProviderConfig',
    summary: 'What this SCIM server supports',
    description: 'PATCH and filters (eq, and) are supported; bulk, sort, ETags and password changes are not.',
    request: { query: discoveryQuery },
    response: ok('The service provider configuration'),
  }),
  listScimResourceTypes: scim({
    route: 'GET /scim/v2/ResourceTypes',
    summary: 'The SCIM resource types: User and Group',
    description: 'A ListResponse of the two resource types.',
    request: { query: discoveryQuery },
    response: ok('The resource types'),
  }),
  getScimResourceType: scim({
    route: 'GET /scim/v2/ResourceTypes/{id}',
    summary: 'One SCIM resource type',
    description: '`User` or `Group`; anything else is 404.',
    request: { path: schemaPath, query: discoveryQuery },
    response: ok('The resource type'),
  }),
  listScimSchemas: scim({
    route: 'GET /scim/v2/Schemas',
    summary: 'The SCIM schemas: the attributes kept of a User and a Group',
    description: 'A ListResponse of the core User and Group schemas, with the attributes this server keeps.',
    request: { query: discoveryQuery },
    response: ok('The schemas'),
  }),
  getScimSchema: scim({
    route: 'GET /scim/v2/Schemas/{id}',
    summary: 'One SCIM schema, by its URN',
    description: 'The schema whose id is the URN given; anything else is 404.',
    request: { path: schemaPath, query: discoveryQuery },
    response: ok('The schema'),
  }),
  listScimUsers: scim({
    route: 'GET /scim/v2/Users',
    summary: 'SCIM Users: all, or those a filter finds',
    description:
      'Filters: `userName eq`, `externalId eq`, `emails[type eq "work"].value eq`, `emails.value eq`, `id eq`, and `and` of these; any other is 400 `invalidFilter`. Paged by `startIndex` (1-based) and `count` (100 by default, at most 200) with `totalResults`.',
    request: { query: listQuery },
    response: ok('A ListResponse of Users'),
  }),
  searchScimUsers: scim({
    route: 'POST /scim/v2/Users/.search',
    audit: [],
    summary: 'SCIM Users: a listing asked for with a POST',
    description:
      'RFC 7644 section 3.4.3: the parameters of `GET /scim/v2/Users` in a SearchRequest body (attribute lists as arrays), answered the same way; nothing changes.',
    request: { body: searchBody },
    response: ok('A ListResponse of Users'),
  }),
  createScimUser: scim({
    route: 'POST /scim/v2/Users',
    audit: ['user.created', 'user.updated', 'user.status.changed'],
    summary: 'Provision a user',
    description:
      '`userName` is the email (unique in the organization: 409 `uniqueness`); the join email is sent as for any new user. A userName held by a user the directory deleted brings that user back.',
    request: { body: scimUserBody },
    response: created('The User created; Location names it'),
  }),
  getScimUser: scim({
    route: 'GET /scim/v2/Users/{id}',
    summary: 'One SCIM User',
    description: "404 for an unknown id, another organization's user, or one the directory deleted.",
    request: { path: resourcePath, query: readQuery },
    response: ok('The User'),
  }),
  replaceScimUser: scim({
    route: 'PUT /scim/v2/Users/{id}',
    audit: ['user.updated', 'user.status.changed'],
    summary: 'Replace a SCIM User',
    description:
      'The User as given: attributes the service keeps and the body leaves out are cleared; `active` left out keeps the status.',
    request: { path: resourcePath, body: scimUserBody },
    response: ok('The User'),
  }),
  patchScimUser: scim({
    route: 'PATCH /scim/v2/Users/{id}',
    audit: ['user.updated', 'user.status.changed'],
    summary: 'Change a SCIM User with add, replace and remove operations',
    description:
      'RFC 7644 section 3.5.2, and the forms Microsoft Entra ID sends (capitalised `op`, `"False"`); all operations or none.',
    request: { path: resourcePath, body: patchBody },
    response: ok('The User'),
  }),
  deleteScimUser: scim({
    route: 'DELETE /scim/v2/Users/{id}',
    audit: ['user.status.changed', 'user.group.removed'],
    summary: 'Deprovision a user',
    description:
      'The user leaves every group and is deactivated (the service deletes users only so), gone from SCIM: a later GET is 404, and no Group lists them.',
    request: { path: resourcePath },
    response: noContent('Deprovisioned'),
  }),
  listScimGroups: scim({
    route: 'GET /scim/v2/Groups',
    summary: 'SCIM Groups: all, or those a filter finds',
    description:
      'Filters: `displayName eq`, `externalId eq`, `id eq`, and `and` of these; any other is 400 `invalidFilter`. `excludedAttributes=members` leaves members out.',
    request: { query: listQuery },
    response: ok('A ListResponse of Groups'),
  }),
  searchScimGroups: scim({
    route: 'POST /scim/v2/Groups/.search',
    audit: [],
    summary: 'SCIM Groups: a listing asked for with a POST',
    description:
      'RFC 7644 section 3.4.3: the parameters of `GET /scim/v2/Groups` in a SearchRequest body (attribute lists as arrays), answered the same way; nothing changes.',
    request: { body: searchBody },
    response: ok('A ListResponse of Groups'),
  }),
  createScimGroup: scim({
    route: 'POST /scim/v2/Groups',
    audit: ['group.created', 'group.updated', 'user.group.added'],
    summary: 'Provision a user group',
    description:
      '`displayName` is the name (unique in the organization: 409 `uniqueness`); members must be users the directory sees.',
    request: { body: scimGroupBody },
    response: created('The Group created; Location names it'),
  }),
  getScimGroup: scim({
    route: 'GET /scim/v2/Groups/{id}',
    summary: 'One SCIM Group',
    description: "404 for an unknown id or another organization's group.",
    request: { path: resourcePath, query: readQuery },
    response: ok('The Group'),
  }),
  replaceScimGroup: scim({
    route: 'PUT /scim/v2/Groups/{id}',
    audit: ['group.updated', 'user.group.added', 'user.group.removed'],
    summary: 'Replace a SCIM Group',
    description: 'Name, external id and members as given (members left out: none).',
    request: { path: resourcePath, body: scimGroupBody },
    response: ok('The Group'),
  }),
  patchScimGroup: scim({
    route: 'PATCH /scim/v2/Groups/{id}',
    audit: ['group.updated', 'user.group.added', 'user.group.removed'],
    summary: 'Rename a SCIM Group or change its members',
    description:
      'RFC 7644 section 3.5.2, and the forms Entra ID and Okta send (members removed by a value list). Answers 204.',
    request: { path: resourcePath, body: patchBody },
    response: noContent('Changed'),
  }),
  deleteScimGroup: scim({
    route: 'DELETE /scim/v2/Groups/{id}',
    audit: ['group.deleted'],
    summary: 'Delete a user group',
    description: 'Its members leave it; the group is gone.',
    request: { path: resourcePath },
    response: noContent('Deleted'),
  }),
  // A directory's token stands for no user, so there is no `/Me`; bulk is not supported.
  getScimMe: notImplemented('GET /scim/v2/Me', 'The authenticated subject: not offered'),
  createScimMe: notImplemented('POST /scim/v2/Me', 'The authenticated subject: not offered'),
  replaceScimMe: notImplemented('PUT /scim/v2/Me', 'The authenticated subject: not offered'),
  patchScimMe: notImplemented('PATCH /scim/v2/Me', 'The authenticated subject: not offered'),
  deleteScimMe: notImplemented('DELETE /scim/v2/Me', 'The authenticated subject: not offered'),
  scimBulk: notImplemented('POST /scim/v2/Bulk', 'Bulk operations: not offered'),
});
