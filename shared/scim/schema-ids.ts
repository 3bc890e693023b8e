import { invalidSyntax } from './errors.js';

/** The URNs of RFC 7643 and 7644 this server speaks. */
export const SCIM_SCHEMAS = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  searchRequest: 'urn:ietf:params:scim:api:messages:2.0:SearchRequest',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export type ScimResourceType = 'User' | 'Group';

/**
 * RFC 7643 section 3: a resource's `schemas` is required and names the resource's core schema; a
 * body without it (or one naming another resource's, a Group sent to /Users) is refused.
 */
export const requireCoreSchema = (schemas: readonly string[] | undefined, type: ScimResourceType): void => {
  const core = type === 'User' ? SCIM_SCHEMAS.user : SCIM_SCHEMAS.group;
  if (!schemas?.includes(core)) throw invalidSyntax(`schemas must include ${core}`);
};
