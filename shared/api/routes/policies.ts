import { z } from 'zod';
import { policy, policyRequest } from '../../schemas/roles.js';
import { noContent, routeGroup } from '../route-definition.js';

/** Policies (spec 4.4). */
export const policiesRoutes = routeGroup('policies')({
  listPolicies: {
    method: 'GET',
    path: '/idp/policies',
    summary: 'Policies that are not archived, oldest first',
    permissions: ['DETAILED_PERMISSION.READ'],
    response: { status: 200, description: 'Policies', body: z.array(policy) },
  },
  createPolicy: {
    method: 'POST',
    path: '/idp/policies',
    summary: 'Create a policy (name unique among policies that are not archived, case-insensitively)',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    request: { body: policyRequest },
    response: noContent('Created'),
  },
  getPolicy: {
    method: 'GET',
    path: '/idp/policies/{id}',
    summary: 'One policy',
    permissions: ['DETAILED_PERMISSION.READ'],
    response: { status: 200, description: 'The policy', body: policy },
  },
  renamePolicy: {
    method: 'PUT',
    path: '/idp/policies/{id}',
    summary: 'Rename a policy',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    request: { body: policyRequest },
    response: noContent('Renamed'),
  },
  archivePolicy: {
    method: 'DELETE',
    path: '/idp/policies/{id}',
    summary: 'Archive the policy: no longer listed, readable or grantable, and it counts for nothing',
    permissions: ['DETAILED_PERMISSION.WRITE'],
    response: noContent('Archived'),
  },
});
