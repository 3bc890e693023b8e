import { MAX_SCIM_COUNT } from './list-paging.js';
import { SCIM_SCHEMAS } from './schema-ids.js';

/**
 * The discovery documents (RFC 7643 sections 5 to 7, RFC 7644 section 4): what this server
 * supports, the two resource types, and the attributes it keeps of each. `base` is the SCIM base
 * URL (`<origin>/scim/v2`).
 */

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

const attribute = (
  name: string,
  type: 'string' | 'boolean' | 'complex' | 'reference',
  options: Record<string, unknown> = {},
) => ({
  name,
  type,
  multiValued: false,
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
      attribute('userName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId', 'string', { caseExact: true }),
      attribute('name', 'complex', {
        subAttributes: [
          attribute('formatted', 'string'),
          attribute('givenName', 'string'),
          attribute('familyName', 'string'),
        ],
      }),
      attribute('displayName', 'string'),
      attribute('active', 'boolean'),
      attribute('emails', 'complex', {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string'),
          attribute('type', 'string', { canonicalValues: ['work'] }),
          attribute('primary', 'boolean'),
        ],
      }),
      attribute('groups', 'complex', {
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [
          attribute('value', 'string', { mutability: 'readOnly' }),
          attribute('$ref', 'reference', { mutability: 'readOnly', referenceTypes: ['Group'] }),
        ],
      }),
    ],
  },
  {
    id: SCIM_SCHEMAS.group,
    name: 'Group',
    description: 'Group',
    attributes: [
      attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
      attribute('externalId', 'string', { caseExact: true }),
      attribute('members', 'complex', {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string', { mutability: 'immutable' }),
          attribute('$ref', 'reference', { mutability: 'immutable', referenceTypes: ['User'] }),
          attribute('type', 'string', { mutability: 'immutable', canonicalValues: ['User'] }),
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
