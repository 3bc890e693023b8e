import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueClientToken } from '../../shared/auth/client-credentials.js';
import { issueUserToken } from '../../shared/auth/token-service.js';
import { MAX_GRANTS_PER_HOLDER } from '../../shared/domain/limits.js';
import { permissionDependencies, seedSystemData } from '../../shared/store/catalogue-repository.js';
import { grantTarget } from '../../shared/store/grant-targets.js';
import { createPolicy } from '../../shared/store/policy-repository.js';
import { createRole } from '../../shared/store/role-repository.js';
import { addUserToGroup, grantToUser } from '../../shared/store/user-grants.js';
import { createUserGroup } from '../../shared/store/user-group-repository.js';
import { createUser } from '../../shared/store/user-repository.js';
import { measureRoundTrips, roundTrips } from '../support/round-trips.js';
import { createTestClient, createTestOrganization, useDatabase } from '../support/service.js';

useDatabase();

beforeAll(async () => {
  await seedSystemData();
  await permissionDependencies(); // warm, as a running function instance is
});

describe('round trips per token', () => {
  // 120 roles and policies: more than one BatchGetItem takes (100), read in parallel.
  it(`a user with ${MAX_GRANTS_PER_HOLDER} roles and 20 policies of its own and 3 groups: 3 round trips`, async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUser({
      organizationId: org,
      email: 'a@example.com',
      name: 'A',
      userType: 'STANDARD',
      createdBy: 't',
    });
    const roles = await Promise.all(
      Array.from({ length: MAX_GRANTS_PER_HOLDER }, (_, index) =>
        createRole({
          organizationId: org,
          name: `r${index}`,
          permissions: index === 7 ? ['USER.UPDATE'] : [],
          createdBy: 't',
        }),
      ),
    );
    for (const role of roles) {
      await grantToUser(org, user.id, grantTarget(org, 'roles', role.id));
    }
    for (let index = 0; index < 20; index++) {
      const policy = await createPolicy({ organizationId: org, name: `p${index}`, createdBy: 't' });
      await grantToUser(org, user.id, grantTarget(org, 'policies', policy.id));
    }
    for (let index = 0; index < 3; index++) {
      const group = await createUserGroup({ organizationId: org, name: `g${index}`, createdBy: 't' });
      await addUserToGroup(org, user.id, group.id);
    }
    const { result, recorded } = await measureRoundTrips('user token', () => issueUserToken(org, user.id));
    expect(decodeJwt(result.accessToken).permissions).toEqual(['USER.DETAILS', 'USER.LIST', 'USER.UPDATE']);
    expect(roundTrips(recorded)).toBe(3);
  });

  it('an API client: 2 round trips', async () => {
    const org = (await createTestOrganization()).id;
    const client = await createTestClient(org, ['ROLES.LIST']);
    const { recorded } = await measureRoundTrips('client token', () =>
      issueClientToken(client.clientId, client.clientSecret),
    );
    // The client, then its roles and policies with the organization's access versions beside them.
    expect(recorded.map((call) => call.command).sort()).toEqual([
      'BatchGetCommand',
      'BatchGetCommand',
      'GetCommand',
    ]);
    expect(roundTrips(recorded)).toBe(2);
  });
});
