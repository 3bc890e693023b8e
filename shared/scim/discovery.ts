import { ScimError } from './errors.js';
import { MAX_SCIM_COUNT } from './list-paging.js';
import { SCIM_SCHEMAS } from './schema-ids.js';

/**
 * The discovery documents (RFC 7643 sections 5 to 7, RFC 7644 section 4): what this server
 * supports, the two resource types, and the attributes it keeps of each. `base` is the SCIM base
 * URL (`<origin>/scim/v2`).
 */

/**
 * RFC 7644 section 4: a `filter` on a discovery endpoint SHOULD be 403, so that no client takes the
 * conditions it named as met by what is answered.
 */
export const refuseDiscoveryFilter = (query: { filter?: string | undefined }): void => {
  if (query.filter !== undefined)
    throw new ScimError(403, undefined, 'The discovery endpoints answer everything; a filter is not taken');
};

export const serviceProviderConfig = (base: string) => ({
  schemas: [SCIM_SCHEMAS.serviceProviderConfig],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_SCIM_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'OAuth Bearer Token',
      description:
        "The organization's SCIM bearer secret, or an API client's access token holding SCIM.PROVISION",
      specUri: 'https://www.rfc-editor.org/info/rfc6750',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

/**
 * One attribute's definition (RFC 7643 section 7): the description says what the service does with
 * it, as a directory's administrator needs to know when mapping attributes.
 */
const attribute = (
  name: string,
  type: 'string' | 'boolean' | 'complex' | 'reference',
  description: string,
  options: Record<string, unknown> = {},
) => ({
  name,
  type,
  multiValued: false,
  description,
  required: false,
  ...(type === 'string' ? { caseExact: false } : {}),
  mutability: 'readWrite',
  returned: 'default',
  ...(type === 'string' ? { uniqueness: 'none' } : {}),
  ...options,
});

const SCHEMAS = [
  {
    id: SCIM_SCHEMAS.user,
    name: 'User',
    description: 'User Account',
    attributes: [
      attribute(
        'userName',
        'string',
        "The person's email address: they sign in with it and the join email goes to it. Unique in the organization, whatever the case.",
        { required: true, uniqueness: 'server' },
      ),
      attribute('externalId', 'string', "The directory's own id for the person, kept as sent.", {
        caseExact: true,
      }),
      attribute('name', 'complex', "The person's name; the service keeps one display name made from it.", {
        subAttributes: [
          attribute('formatted', 'string', 'The whole name: taken as the display name when sent.'),
          attribute(
            'givenName',
            'string',
            'The given name: with familyName, the display name when formatted is not sent.',
          ),
          attribute('familyName', 'string', 'The family name.'),
        ],
      }),
      attribute(
        'displayName',
        'string',
        'The display name, when no name is sent; answered as the name the service keeps.',
      ),
      attribute(
        'active',
        'boolean',
        'false deactivates the person (they cannot sign in); true reactivates them.',
      ),
      attribute(
        'emails',
        'complex',
        'One work email, always userName: emails sent are not kept (change userName instead).',
        {
          multiValued: true,
          mutability: 'readOnly',
          subAttributes: [
            attribute('value', 'string', 'The email address: userName.', { mutability: 'readOnly' }),
            attribute('type', 'string', 'Always work.', {
              mutability: 'readOnly',
              canonicalValues: ['work'],
            }),
            attribute('primary', 'boolean', 'Always true.', { mutability: 'readOnly' }),
          ],
        },
      ),
      attribute('groups', 'complex', 'The groups the person is a member of: changed through the Groups.', {
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [
          attribute('value', 'string', "The group's id.", { mutability: 'readOnly', caseExact: true }),
          attribute('$ref', 'reference', "The group's URL.", {
            mutability: 'readOnly',
            referenceTypes: ['Group'],
          }),
        ],
      }),
    ],
  },
  {
    id: SCIM_SCHEMAS.group,
    name: 'Group',
    description: 'Group',
    attributes: [
      attribute(
        'displayName',
        'string',
        "The user group's name. Unique in the organization, whatever the case.",
        { required: true, uniqueness: 'server' },
      ),
      attribute('externalId', 'string', "The directory's own id for the group, kept as sent.", {
        caseExact: true,
      }),
      attribute('members', 'complex', 'The users in the group: added and removed, not changed in place.', {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string', "A member's User id.", { mutability: 'immutable', caseExact: true }),
          attribute('$ref', 'reference', "The member's URL.", {
            mutability: 'immutable',
            referenceTypes: ['User'],
          }),
          attribute('type', 'string', 'Always User: a group holds users only.', {
            mutability: 'immutable',
            canonicalValues: ['User'],
          }),
        ],
      }),
    ],
  },
] as const;

export const schemas = (base: string) =>
  SCHEMAS.map((schema) => ({
    schemas: [SCIM_SCHEMAS.schema],
    ...schema,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${schema.id}` },
  }));

export const resourceTypes = (base: string) =>
  (
    [
      { id: 'User', endpoint: '/Users', description: 'User Account', schema: SCIM_SCHEMAS.user },
      { id: 'Group', endpoint: '/Groups', description: 'Group', schema: SCIM_SCHEMAS.group },
    ] as const
  ).map((type) => ({
    schemas: [SCIM_SCHEMAS.resourceType],
    ...type,
    name: type.id,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${type.id}` },
  }));
