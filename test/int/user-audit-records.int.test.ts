import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditAction } from '../../shared/audit/actions.js';
import type { AuditActor } from '../../shared/audit/record.js';
import { withAuditScope } from '../../shared/audit/scope.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { type GrantField, grantTarget } from '../../shared/store/grant-targets.js';
import { keys } from '../../shared/store/keys.js';
import {
  addUserToGroup,
  changeAdditionalProperties,
  grantToUser,
  removeUserFromGroup,
  revokeFromUser,
} from '../../shared/store/user-grants.js';
import {
  createUser,
  queueJoinEmail,
  resetMfa,
  setUserType,
  updateUserAttributes,
} from '../../shared/store/user-repository.js';
import { auditRecordsOf, storedAuditText } from '../support/audit-items.js';
import {
  createTestOrganization,
  getItem,
  putTestPolicy,
  putTestRole,
  putTestUserGroup,
  uniqueEmail,
  useDatabase,
} from '../support/service.js';

/**
 * The records of the users group's changes (issue 26) beyond what the route walk checks: what
 * they name and show, and that a call changing nothing records nothing.
 */
useDatabase();

const ADMIN: AuditActor = { type: 'user', id: 'admin-1' };
const org = { id: '' };
beforeAll(async () => {
  await seedSystemData();
  org.id = (await createTestOrganization({ mfaEnabled: true })).id;
});

const asAdmin = <T>(work: () => Promise<T>) => withAuditScope({ actor: ADMIN }, work);

const newUser = async () => {
  const email = uniqueEmail('audited');
  const { user } = await createUser({
    organizationId: org.id,
    email,
    name: 'Audited',
    userType: 'STANDARD',
    createdBy: ADMIN.id,
  });
  return user;
};

/** Successive instants: records of one test sort by them even within one millisecond. */
let clock = Date.now();
const tick = () => ++clock;

/** The user's records other than its creation, oldest first. */
const recordsOf = async (userId: string) =>
  (await auditRecordsOf(org.id, { targetId: userId }))
    .filter((record) => record.action !== 'user.created')
    .reverse();
describe.each<[GrantField, string, () => Promise<string>, AuditAction, AuditAction]>([
  ['roles', 'role', async () => (await putTestRole(org.id)).id, 'user.role.granted', 'user.role.revoked'],
  ['policies', 'policy', () => putTestPolicy(org.id), 'user.policy.granted', 'user.policy.revoked'],
  [
    'managedRoles',
    'managedRole',
    async () => 'read-only',
    'user.managedRole.granted',
    'user.managedRole.revoked',
  ],
])('%s', (field, type, make, granted, revoked) => {
  it('records a grant and a revocation naming the user, then what was granted; repeats record nothing', async () => {
    const user = await newUser();
    const id = await make();
    const target = grantTarget(org.id, field, id);
    await asAdmin(async () => {
      await grantToUser(org.id, user.id, target, tick());
      await grantToUser(org.id, user.id, target, tick());
      await revokeFromUser(org.id, user.id, field, id, tick());
      await revokeFromUser(org.id, user.id, field, id, tick());
    });
    const records = await recordsOf(user.id);
    expect(records.map((record) => [record.action, record.targets, record.actor.id])).toEqual([
      [
        granted,
        [
          { type: 'user', id: user.id },
          { type, id },
        ],
        ADMIN.id,
      ],
      [
        revoked,
        [
          { type: 'user', id: user.id },
          { type, id },
        ],
        ADMIN.id,
      ],
    ]);
    // Found by what was granted too (its copy indexes it).
    expect((await auditRecordsOf(org.id, { targetId: id })).map((record) => record.id)).toEqual(
      expect.arrayContaining(records.map((record) => record.id)),
    );
  });
});

describe('user group membership', () => {
  it('records joining and leaving naming the user, then the group; repeats record nothing', async () => {
    const user = await newUser();
    const groupId = await putTestUserGroup(org.id);
    await asAdmin(async () => {
      await addUserToGroup(org.id, user.id, groupId, tick());
      await addUserToGroup(org.id, user.id, groupId, tick());
      await removeUserFromGroup(org.id, user.id, groupId, tick());
      await removeUserFromGroup(org.id, user.id, groupId, tick());
    });
    const targets = [
      { type: 'user', id: user.id },
      { type: 'group', id: groupId },
    ];
    expect((await recordsOf(user.id)).map((record) => [record.action, record.targets])).toEqual([
      ['user.group.added', targets],
      ['user.group.removed', targets],
    ]);
    expect(await getItem(keys.groupMember(org.id, groupId, user.id))).toBeUndefined();
  });
});

describe('additional properties', () => {
  it('records the names and values that changed, and nothing for a change to the same values', async () => {
    const user = await newUser();
    await asAdmin(async () => {
      await changeAdditionalProperties(
        org.id,
        user.id,
        {
          set: { department: 'Ops', floor: 3, version: 'v2' },
        },
        tick(),
      );
      await changeAdditionalProperties(org.id, user.id, { set: { department: 'Ops' } }, tick());
      await changeAdditionalProperties(org.id, user.id, { set: { department: 'Sales', floor: 3 } }, tick());
      await changeAdditionalProperties(org.id, user.id, { remove: ['floor', 'unheld'] }, tick());
      await changeAdditionalProperties(org.id, user.id, { remove: ['unheld'] }, tick());
    });
    expect((await recordsOf(user.id)).map((record) => [record.action, record.changes])).toEqual([
      [
        'user.properties.granted',
        {
          'additionalProperties.department': { from: null, to: 'Ops' },
          'additionalProperties.floor': { from: null, to: 3 },
          // Named like the item's bookkeeping, still a property.
          'additionalProperties.version': { from: null, to: 'v2' },
        },
      ],
      ['user.properties.granted', { 'additionalProperties.department': { from: 'Ops', to: 'Sales' } }],
      ['user.properties.revoked', { 'additionalProperties.floor': { from: 3, to: null } }],
    ]);
  });
});

describe('user type', () => {
  it('records the change from and to; setting the same type records nothing', async () => {
    const user = await newUser();
    await asAdmin(async () => {
      await setUserType(org.id, user.id, 'RESTRICTED', tick());
      await setUserType(org.id, user.id, 'RESTRICTED', tick());
    });
    expect(await recordsOf(user.id)).toMatchObject([
      {
        action: 'user.type.changed',
        targets: [{ type: 'user', id: user.id, name: user.email }],
        changes: { userType: { from: 'STANDARD', to: 'RESTRICTED' } },
      },
    ]);
  });
});

describe('MFA reset', () => {
  it('records what it cleared only as "changed"; a user not enrolled records nothing', async () => {
    const user = await newUser();
    const secret = 'JBSWY3DPEHPK3PXPAUDITED';
    await updateUserAttributes(org.id, user.id, { totpSecret: secret, totpLastStep: 1234 });
    await asAdmin(async () => {
      await resetMfa(org.id, user.id, tick());
      await resetMfa(org.id, user.id, tick());
    });
    const records = await recordsOf(user.id);
    expect(records).toMatchObject([
      {
        action: 'mfa.reset',
        targets: [{ type: 'user', id: user.id }],
        changes: { totpSecret: 'changed', totpLastStep: 'changed' },
      },
    ]);
    expect(await storedAuditText(org.id, records)).not.toContain(secret);
    expect((await getItem(keys.user(org.id, user.id)))?.totpSecret).toBeUndefined();
  });
});

describe('join email', () => {
  it('records each invitation sent, without its link or the link digest', async () => {
    const user = await newUser();
    const [first, second] = await asAdmin(async () => [
      await queueJoinEmail(org.id, user.id, undefined, tick()),
      await queueJoinEmail(org.id, user.id, undefined, tick()),
    ]);
    const records = await recordsOf(user.id);
    expect(records.map((record) => [record.action, record.changes])).toEqual([
      ['invitation.sent', { invitationDigest: 'changed' }],
      ['invitation.sent', { invitationDigest: 'changed' }],
    ]);
    const digest = (await getItem(keys.user(org.id, user.id)))?.invitationDigest as string;
    const text = await storedAuditText(org.id, records);
    for (const secret of [first?.invitationToken, second?.invitationToken, digest])
      expect(text).not.toContain(secret);
  });
});
