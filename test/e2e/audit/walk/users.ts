import { idFromLocation, uniqueEmail } from '../../../support/service.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

/** A user of the organization, created through the API. */
export const withUser = async (service: TestService, org: ClientCaller) => ({
  userId: await service.createUser({ as: org }),
});

/** The users group's writes (spec 4.1). */
export const USERS_CALLS: WalkCalls = {
  createUser: walkCall({
    path: () => '/idp/users',
    body: () => ({ email: uniqueEmail('walk'), name: 'Walk Person', userType: 'STANDARD' }),
    target: (_made, answer) => idFromLocation(answer),
  }),
  updateUser: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}`,
    body: () => ({ name: 'Walk Renamed' }),
    target: ({ userId }) => userId,
  }),
  setUserStatus: walkCall({
    prepare: withUser,
    path: ({ userId }) => `/idp/users/${userId}/setUserStatus`,
    body: () => ({ userStatus: 'INACTIVE' }),
    target: ({ userId }) => userId,
  }),
};
