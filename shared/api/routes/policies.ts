import * as z from 'zod';
import { MAX_POLICIES_PER_ORGANIZATION } from '../../domain/limits.js';
import { policy, policyRequest } from '../../schemas/roles.js';
import { noContent, ok, routeGroup } from '../route-definition.js';

/** Policies (spec 4.4). */
export const policiesRoutes = routeGroup('policies')({
  listPolicies: {
    route: 'GET /idp/policies',
    summary: 'Policies that are not archived, oldest first',
    permissions: ['DETAILED_PERMISSION.READ'],
    response: ok('Policies', z.array(policy).max(MAX_POLICIES_PER_ORGANIZATION)),
  },
  createPolicy: {
    route: 'POST /idp/policies',
    summary: 'Create a policy (name unique among policies that are not archived, case-insensitively)',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    request: { body: policyRequest },
    response: { ...noContent('Created; Location names it'), location: true },
  },
  getPolicy: {
    route: 'GET /idp/policies/{id}',
    summary: 'One policy',
    permissions: ['DETAILED_PERMISSION.READ'],
    response: ok('The policy', policy),
  },
  renamePolicy: {
    route: 'PUT /idp/policies/{id}',
    summary: 'Rename a policy',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    request: { body: policyRequest },
    response: noContent('Renamed'),
  },
  archivePolicy: {
    route: 'DELETE /idp/policies/{id}',
    summary: 'Archive the policy: no longer listed, readable or grantable, and it counts for nothing',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    response: noContent('Archived'),
  },
});
