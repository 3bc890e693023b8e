import { describe, expect, it } from 'vitest';
import { beforeCommand } from '../../support/interleave.js';
import {
  connectDirectory,
  GROUP_SCHEMA,
  PATCH_OP,
  type ScimDirectory,
  USER_SCHEMA,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';

/**
 * A Group PATCH meeting another request's change while it runs: each request's change holds
 * (docs/scim.md, "Changes side by side"), and a PATCH refused leaves the group as it was.
 */
const service = useService();
const mine = useFixture(() => service.freshOrganization());
const suffix = Math.random().toString(36).slice(2, 10);
let made = 0;

const newUser = async (directory: ScimDirectory) => {
  made += 1;
  const created = await directory.call('POST', '/Users', {
    schemas: [USER_SCHEMA],
    userName: `member-${made}-${suffix}@group-patch.example`,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};
const newGroup = async (directory: ScimDirectory) => {
  made += 1;
  const created = await directory.call('POST', '/Groups', {
    schemas: [GROUP_SCHEMA],
    displayName: `Old name ${made} ${suffix}`,
    externalId: `old-ext-${made}`,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};
const patch = (directory: ScimDirectory, group: string, ...operations: unknown[]) =>
  directory.call('PATCH', `/Groups/${group}`, { schemas: [PATCH_OP], Operations: operations });
const rename = (directory: ScimDirectory, group: string, to: string) =>
  patch(
    directory,
    group,
    { op: 'replace', path: 'displayName', value: to },
    { op: 'replace', path: 'externalId', value: `${to}-ext` },
  );
const addMember = (directory: ScimDirectory, group: string, member: string) =>
  patch(directory, group, { op: 'add', path: 'members', value: [{ value: member }] });
/** The BatchGetItem that checks the members a PATCH adds: after its read, before its writes. */
const isMemberCheck = (input: Record<string, unknown>) => 'RequestItems' in input;

describe('a members-only Group PATCH beside a rename', () => {
  it('keeps the name and external id another request set while it ran', async () => {
    const directory = await connectDirectory(service, mine);
    // Positive control: one after the other, both hold.
    const control = await newGroup(directory);
    expect((await rename(directory, control, `Renamed A ${suffix}`)).status).toBe(204);
    expect((await addMember(directory, control, await newUser(directory))).status).toBe(204);
    const controlled = await directory.call('GET', `/Groups/${control}`);
    expect(controlled.body).toMatchObject({
      displayName: `Renamed A ${suffix}`,
      externalId: `Renamed A ${suffix}-ext`,
    });
    expect(controlled.body.members).toHaveLength(1);

    // The same two requests, the rename committing after the member PATCH read the group.
    const group = await newGroup(directory);
    const member = await newUser(directory);
    let renamed: Awaited<ReturnType<typeof rename>> | undefined;
    const hook = beforeCommand(isMemberCheck, async () => {
      renamed = await rename(directory, group, `Renamed B ${suffix}`);
    });
    const added = await addMember(directory, group, member);
    hook.stop();
    expect(hook.ran).toBe(true);
    expect([renamed?.status, added.status]).toEqual([204, 204]);
    const after = await directory.call('GET', `/Groups/${group}`);
    expect(after.body.members?.map((m: { value: string }) => m.value)).toEqual([member]);
    expect(after.body).toMatchObject({
      displayName: `Renamed B ${suffix}`,
      externalId: `Renamed B ${suffix}-ext`,
    });
  });
});
