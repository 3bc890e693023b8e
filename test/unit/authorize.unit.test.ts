import type { Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type RouteDefinition, routeGroup } from '../../shared/api/route-definition.js';
import type { Principal } from '../../shared/auth/principal.js';
import { ApiError } from '../../shared/http/errors.js';
import { authorize } from '../../shared/http/middleware/authorize.js';
import { stateOfContext } from '../../shared/http/request-state.js';

const {
  createGroup: standardOnly,
  changeOwnPassword: selfOnly,
  updateUser: selfOrPermitted,
} = routeGroup('users', { userTypes: ['STANDARD'] })({
  createGroup: {
    route: 'POST /idp/userGroups',
    summary: 'test route',
    description: 'A route of this test only.',
    permissions: ['USER_GROUP.ADD', 'USER_GROUP.READ'],
    request: {},
    response: { status: 201, description: 'created' },
  },
  changeOwnPassword: {
    route: 'PUT /idp/users/{id}/password',
    summary: 'test route',
    description: 'A route of this test only.',
    permissions: [],
    subject: 'self',
    request: {},
    response: { status: 204, description: 'changed' },
  },
  updateUser: {
    route: 'PUT /idp/users/{id}',
    summary: 'test route',
    description: 'A route of this test only.',
    permissions: ['USER.UPDATE'],
    subject: 'self-or-permissions',
    request: {},
    response: { status: 200, description: 'updated' },
  },
});

const requestFor = (principal: Partial<Principal>, pathParameters?: Record<string, string>): Request => {
  const context = {} as Context;
  stateOfContext(context).principal = {
    id: 'p',
    type: 'client',
    organizationId: 'o',
    userType: 'STANDARD',
    permissions: new Set(),
    policies: [],
    pluginPermissions: {},
    ...principal,
  };
  const event = pathParameters ? { pathParameters } : {};
  return { event, context, response: undefined, error: undefined, internal: {} } as unknown as Request;
};

const outcome = (
  principal: Partial<Principal> | undefined,
  route: RouteDefinition = standardOnly,
  pathParameters?: Record<string, string>,
) => {
  try {
    const request = requestFor(principal ?? {}, pathParameters);
    if (!principal) delete stateOfContext(request.context).principal;
    authorize(route).before?.(request);
    return 'allowed';
  } catch (error) {
    return error instanceof ApiError ? `${error.status} ${error.message}` : 'unexpected';
  }
};

describe('permission and user-type check', () => {
  const both = new Set(['USER_GROUP.ADD', 'USER_GROUP.READ']);

  it('allows a principal with every permission and an allowed user type', () => {
    expect(outcome({ permissions: both })).toBe('allowed');
  });

  it('refuses when any one permission is missing, naming it', () => {
    expect(outcome({ permissions: new Set(['USER_GROUP.ADD']) })).toBe(
      '403 Missing permission: USER_GROUP.READ',
    );
  });

  it('refuses a user type the route does not allow', () => {
    expect(outcome({ permissions: both, userType: 'RESTRICTED' })).toMatch(/^403 User type RESTRICTED/);
  });

  it('names every missing permission', () => {
    expect(outcome({ permissions: new Set() })).toBe(
      '403 Missing permission: USER_GROUP.ADD, USER_GROUP.READ',
    );
  });

  it('refuses a request without a principal as unauthenticated', () => {
    expect(outcome(undefined)).toMatch(/^401 /);
  });
});

describe('operations a user may do on itself', () => {
  const user = { type: 'user' as const, id: 'u1', permissions: new Set<string>() };

  it('lets a user act on itself only, whatever its permissions', () => {
    expect(outcome(user, selfOnly, { id: 'u1' })).toBe('allowed');
    expect(outcome({ ...user, permissions: new Set(['USER.UPDATE']) }, selfOnly, { id: 'u2' })).toBe(
      '403 Only the user itself may do this',
    );
    // A client whose id happens to be the user's is not that user.
    expect(outcome({ ...user, type: 'client' }, selfOnly, { id: 'u1' })).toBe(
      '403 Only the user itself may do this',
    );
    expect(outcome(user, selfOnly)).toBe('403 Only the user itself may do this');
  });

  it('lets a user act on itself, and anyone with the permissions on anyone', () => {
    expect(outcome(user, selfOrPermitted, { id: 'u1' })).toBe('allowed');
    expect(outcome(user, selfOrPermitted, { id: 'u2' })).toBe('403 Missing permission: USER.UPDATE');
    expect(outcome({ ...user, type: 'client' }, selfOrPermitted, { id: 'u1' })).toBe(
      '403 Missing permission: USER.UPDATE',
    );
    const permitted = { ...user, permissions: new Set(['USER.UPDATE']) };
    expect(outcome(permitted, selfOrPermitted, { id: 'u2' })).toBe('allowed');
  });

  it('asks the permissions of an operation on another subject, even of the user itself', () => {
    expect(outcome(user, standardOnly, { id: 'u1' })).toBe(
      '403 Missing permission: USER_GROUP.ADD, USER_GROUP.READ',
    );
  });
});
