import type { Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { routeGroup } from '../../shared/api/route-definition.js';
import type { Principal } from '../../shared/auth/principal.js';
import { ApiError } from '../../shared/http/errors.js';
import { authorize } from '../../shared/http/middleware/authorize.js';
import { stateOfContext } from '../../shared/http/request-state.js';

const { createGroup: standardOnly } = routeGroup('users', { userTypes: ['STANDARD'] })({
  createGroup: {
    route: 'POST /idp/userGroups',
    summary: 'test route',
    description: 'A route of this test only.',
    permissions: ['USER_GROUP.ADD', 'USER_GROUP.READ'],
    request: {},
    response: { status: 201, description: 'created' },
  },
});

const requestFor = (principal: Partial<Principal>): Request => {
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
  return { event: {}, context, response: undefined, error: undefined, internal: {} } as unknown as Request;
};

const outcome = (principal: Partial<Principal>) => {
  try {
    authorize(standardOnly).before?.(requestFor(principal));
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
});
