import { describe, expect, it } from 'vitest';
import { addUserToGroup } from '../../../shared/store/user-grants.js';
import { createUserGroup } from '../../../shared/store/user-group-repository.js';
import { beforeCommand, beforeTransaction, type SentItems } from '../../support/interleave.js';
import {
  connectDirectory,
  GROUP_SCHEMA,
  PATCH_OP,
  provisionUser,
  type ScimDirectory,
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

const newUser = (directory: ScimDirectory) => provisionUser(directory, 'member');
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

const named = async (directory: ScimDirectory, name: string) => {
  const created = await directory.call('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: name });
  expect(created.status).toBe(201);
  return created.body.id as string;
};
const renameAndAdd = (directory: ScimDirectory, group: string, name: string, members: string[]) =>
  patch(
    directory,
    group,
    { op: 'replace', path: 'displayName', value: name },
    { op: 'add', path: 'members', value: members.map((value) => ({ value })) },
  );
/** The user in `count` groups made through the store (no directory sees them). */
const inGroups = async (count: number, userId: string) => {
  for (let index = 0; index < count; index++) {
    const group = await createUserGroup({
      organizationId: mine.orgId,
      name: `Filler ${index} ${userId}`,
      createdBy: 'test',
    });
    await addUserToGroup(mine.orgId, userId, group.id);
  }
};
const isJoinTransaction = (items: SentItems) =>
  items.some((item) => String(item.Put?.Item?.sk ?? '').startsWith('GROUPMEMBER#'));

describe('a Group PATCH whose member reaches the group limit while it runs', () => {
  it('is refused 400 invalidValue and leaves the group as it was, as when the check finds it so', {
    timeout: 120_000,
  }, async () => {
    const directory = await connectDirectory(service, mine);
    // Positive control: a member in 100 groups already is refused before anything changes.
    const full = await newUser(directory);
    await inGroups(100, full);
    const control = await named(directory, `Control ${suffix}`);
    const other = await newUser(directory);
    const refused = await renameAndAdd(directory, control, `Control renamed ${suffix}`, [other, full]);
    expect([refused.status, refused.body.scimType]).toEqual([400, 'invalidValue']);
    expect((await directory.call('GET', `/Groups/${control}`)).body).toMatchObject({
      displayName: `Control ${suffix}`,
      members: [],
    });

    // The member has 99 groups when checked; another PATCH gives it its 100th before it joins.
    const almost = await newUser(directory);
    await inGroups(99, almost);
    const target = await named(directory, `Target ${suffix}`);
    const elsewhere = await named(directory, `Elsewhere ${suffix}`);
    const companion = await newUser(directory);
    let racing: Awaited<ReturnType<typeof renameAndAdd>> | undefined;
    const hook = beforeTransaction(isJoinTransaction, async () => {
      racing = await renameAndAdd(directory, elsewhere, `Elsewhere ${suffix}`, [almost]);
    });
    const answer = await renameAndAdd(directory, target, `Target renamed ${suffix}`, [almost, companion]);
    hook.stop();
    expect(hook.ran).toBe(true);
    expect(racing?.status).toBe(204);
    expect([answer.status, answer.body.scimType]).toEqual([400, 'invalidValue']);
    // Neither the rename nor the companion's join, which may have committed before the refusal.
    expect((await directory.call('GET', `/Groups/${target}`)).body).toMatchObject({
      displayName: `Target ${suffix}`,
      members: [],
    });
    expect((await directory.call('GET', `/Users/${companion}`)).body.groups ?? []).toEqual([]);
  });
});
