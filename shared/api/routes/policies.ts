import { MAX_POLICIES_PER_ORGANIZATION } from '../../domain/limits.js';
import { policy, policyRequest } from '../../schemas/roles.js';
import * as z from '../../zod.js';
import { noContent, ok, routeGroup } from '../route-definition.js';

/** Policies (spec 4.4). */
export const policiesRoutes = routeGroup('policies')({
  listPolicies: {
    route: 'GET /idp/policies',
    summary: 'Policies that are not archived, oldest first',
    description:
      'Every policy of the organization that is not archived, oldest first; not paged (the spec does not page it), at most 1,000.',
    permissions: ['DETAILED_PERMISSION.READ'],
    response: ok('Policies', z.array(policy).check(z.maxLength(MAX_POLICIES_PER_ORGANIZATION))),
  },
  createPolicy: {
    route: 'POST /idp/policies',
    summary: 'Create a policy (name unique among policies that are not archived, case-insensitively)',
    description:
      'The name is trimmed, 1 to 200 characters, and unique among policies that are not archived, compared case-insensitively (409); an organization holds at most 1,000 such policies (409). Answers 204 with `Location`.',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    audit: ['policy.created'],
    request: { body: policyRequest },
    response: { ...noContent('Created; Location names it'), location: true },
  },
  getPolicy: {
    route: 'GET /idp/policies/{id}',
    summary: 'One policy',
    description: 'Reads one policy; an archived policy, or one of another organization, is 404.',
    permissions: ['DETAILED_PERMISSION.READ'],
    response: ok('The policy', policy),
  },
  renamePolicy: {
    route: 'PUT /idp/policies/{id}',
    summary: 'Rename a policy',
    description:
      "The new name must be unique among policies that are not archived, case-insensitively (409); a case variant of the policy's own name is allowed. An archived policy is 404.",
    permissions: ['DETAILED_PERMISSION.WRITE'],
    audit: ['policy.updated'],
    request: { body: policyRequest },
    response: noContent('Renamed'),
  },
  archivePolicy: {
    route: 'DELETE /idp/policies/{id}',
    summary: 'Archive the policy: no longer listed, readable or grantable, and it counts for nothing',
    description:
      'The policy stays stored, marked: it is 404 to read, rename or archive again, unlisted and not grantable, it counts for nothing in tokens issued afterwards, and its name is free again.',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    audit: ['policy.archived'],
    response: noContent('Archived'),
  },
});
