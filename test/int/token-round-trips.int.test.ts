import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueClientToken } from '../../shared/auth/client-credentials.js';
import { issueUserToken } from '../../shared/auth/user-tokens.js';
import { permissionDependencies, seedSystemData } from '../../shared/store/catalogue-repository.js';
import { grantTarget } from '../../shared/store/grant-targets.js';
import { createRole } from '../../shared/store/role-repository.js';
import { addUserToGroup, grantToUser } from '../../shared/store/user-grants.js';
import { createUserGroup } from '../../shared/store/user-group-repository.js';
import { createUser } from '../../shared/store/user-repository.js';
import { createTestClient, createTestOrganization, useDatabase } from '../support/service.js';

/**
 * How many DynamoDB round trips issuing a token costs, measured: every command is timed, and
 * commands that overlap count as one round trip (they run in parallel).
 */
interface Call {
  command: string;
  start: number;
  end: number;
}
let calls: Call[] | undefined;

for (const client of [DynamoDBClient, DynamoDBDocumentClient]) {
  const send = client.prototype.send;
  client.prototype.send = async function timedSend(
    this: unknown,
    command: { constructor: { name: string } },
    ...rest: unknown[]
  ) {
    const start = performance.now();
    try {
      return await (send as (...args: unknown[]) => Promise<unknown>).call(this, command, ...rest);
    } finally {
      calls?.push({ command: command.constructor.name, start, end: performance.now() });
    }
  } as typeof send;
}

/** Sequential round trips: a command that starts after every earlier one ended opens a new one. */
const roundTrips = (recorded: Call[]): number => {
  let rounds = 0;
  let latestEnd = Number.NEGATIVE_INFINITY;
  for (const call of [...recorded].sort((a, b) => a.start - b.start)) {
    if (call.start >= latestEnd) rounds++;
    latestEnd = Math.max(latestEnd, call.end);
  }
  return rounds;
};

const measure = async <T>(label: string, work: () => Promise<T>) => {
  calls = [];
  const result = await work();
  const recorded = calls;
  calls = undefined;
  console.log(
    `${label}: ${roundTrips(recorded)} round trips, ${recorded.length} commands (${recorded.map((call) => call.command).join(', ')})`,
  );
  return { result, recorded };
};

useDatabase();

beforeAll(async () => {
  await seedSystemData();
  await permissionDependencies(); // warm, as a running function instance is
});
afterEach(() => {
  calls = undefined;
});

describe('round trips per token', () => {
  it('a user with 120 roles of its own and 3 groups: 3 round trips', async () => {
    const org = (await createTestOrganization()).id;
    const user = await createUser({
      organizationId: org,
      email: 'a@example.com',
      name: 'A',
      userType: 'STANDARD',
      createdBy: 't',
    });
    const roles = await Promise.all(
      Array.from({ length: 120 }, (_, index) =>
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
    for (let index = 0; index < 3; index++) {
      const group = await createUserGroup({ organizationId: org, name: `g${index}`, createdBy: 't' });
      await addUserToGroup(org, user.id, group.id);
    }
    const { result, recorded } = await measure('user token', () => issueUserToken(org, user.id));
    expect(decodeJwt(result.accessToken).permissions).toEqual(['USER.DETAILS', 'USER.LIST', 'USER.UPDATE']);
    expect(roundTrips(recorded)).toBe(3);
  });

  it('an API client: 2 round trips', async () => {
    const org = (await createTestOrganization()).id;
    const client = await createTestClient(org, ['ROLES.LIST']);
    const { recorded } = await measure('client token', () =>
      issueClientToken(client.clientId, client.clientSecret),
    );
    expect(recorded.map((call) => call.command)).toEqual(['GetCommand', 'BatchGetCommand']);
    expect(roundTrips(recorded)).toBe(2);
  });
});
