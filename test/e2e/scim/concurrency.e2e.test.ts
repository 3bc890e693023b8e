import { describe, expect, it } from 'vitest';
import {
  connectDirectory,
  GROUP_SCHEMA,
  PATCH_OP,
  provisionUser,
  type ScimDirectory,
  USER_SCHEMA,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';

/**
 * Directories send changes side by side (Okta and Entra push each attribute and membership as it
 * changes): no request may undo another's, and every answered change stays.
 */
const service = useService();
const mine = useFixture(() => service.freshOrganization());

const suffix = Math.random().toString(36).slice(2, 10);
let made = 0;
const newUser = (directory: ScimDirectory, label: string) => provisionUser(directory, label);
const newGroup = async (directory: ScimDirectory, members: string[] = []) => {
  made += 1;
  const created = await directory.call('POST', '/Groups', {
    schemas: [GROUP_SCHEMA],
    displayName: `Concurrent ${made} ${suffix}`,
    members: members.map((value) => ({ value })),
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};
const patch = (directory: ScimDirectory, path: string, ...operations: unknown[]) =>
  directory.call('PATCH', path, { schemas: [PATCH_OP], Operations: operations });
const memberIds = async (directory: ScimDirectory, group: string) =>
  ((await directory.call('GET', `/Groups/${group}`)).body.members as { value: string }[] | undefined)
    ?.map((member) => member.value)
    .sort() ?? [];

describe('SCIM changes side by side', () => {
  it('keeps every member that PATCHes adding at once add, and removes only what each removes', async () => {
    const directory = await connectDirectory(service, mine);
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser(directory, 'member')));
    const group = await newGroup(directory);
    const added = await Promise.all(
      users.map((id) =>
        patch(directory, `/Groups/${group}`, { op: 'add', path: 'members', value: [{ value: id }] }),
      ),
    );
    expect(added.map((answer) => answer.status)).toEqual(users.map(() => 204));
    expect(await memberIds(directory, group)).toEqual([...users].sort());

    // Three removals and one addition at once: each does its own part and nothing else.
    const [first, second, third, ...kept] = users as [string, string, string, ...string[]];
    const late = await newUser(directory, 'late');
    const mixed = await Promise.all([
      ...[first, second, third].map((id) =>
        patch(directory, `/Groups/${group}`, { op: 'remove', path: `members[value eq "${id}"]` }),
      ),
      patch(directory, `/Groups/${group}`, { op: 'add', path: 'members', value: [{ value: late }] }),
    ]);
    expect(mixed.map((answer) => answer.status)).toEqual([204, 204, 204, 204]);
    expect(await memberIds(directory, group)).toEqual([...kept, late].sort());
  });

  it('keeps both changes of two PATCHes of one user at once', async () => {
    const directory = await connectDirectory(service, mine);
    for (let round = 0; round < 4; round++) {
      const id = await newUser(directory, 'patched');
      const answers = await Promise.all([
        patch(directory, `/Users/${id}`, {
          op: 'replace',
          path: 'externalId',
          value: `ext-${round}-${suffix}`,
        }),
        patch(directory, `/Users/${id}`, { op: 'replace', path: 'displayName', value: `Renamed ${round}` }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const read = (await directory.call('GET', `/Users/${id}`)).body;
      expect({ externalId: read.externalId, displayName: read.displayName }).toEqual({
        externalId: `ext-${round}-${suffix}`,
        displayName: `Renamed ${round}`,
      });
    }
  });

  it('keeps a deactivation that a PUT without active meets', async () => {
    const directory = await connectDirectory(service, mine);
    for (let round = 0; round < 4; round++) {
      const id = await newUser(directory, 'deactivated');
      const { body: read } = await directory.call('GET', `/Users/${id}`);
      const answers = await Promise.all([
        patch(directory, `/Users/${id}`, { op: 'replace', path: 'active', value: false }),
        // No `active`: the user's own stays (docs/scim.md), whichever it is when the PUT is written.
        directory.call('PUT', `/Users/${id}`, {
          schemas: [USER_SCHEMA],
          userName: read.userName,
          displayName: `Put ${round}`,
        }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const after = (await directory.call('GET', `/Users/${id}`)).body;
      expect({ active: after.active, displayName: after.displayName }).toEqual({
        active: false,
        displayName: `Put ${round}`,
      });
    }
  });
});
