import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScimError } from '../../shared/scim/errors.js';
import { applyScimPatch, type ScimJson } from '../../shared/scim/patch.js';
import { SCIM_SCHEMAS, type ScimResourceType } from '../../shared/scim/schema-ids.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

const PATCH_OP = SCIM_SCHEMAS.patchOp;
const ENTERPRISE = SCIM_SCHEMAS.enterpriseUser;
const USER_URN = SCIM_SCHEMAS.user;

/** Frozen all the way down: any change to it throws, so a test that passes proves it untouched. */
const deepFrozen = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    for (const nested of Object.values(value)) deepFrozen(nested);
    Object.freeze(value);
  }
  return value;
};

const user = (): ScimJson =>
  deepFrozen({
    schemas: [USER_URN],
    id: 'u1',
    externalId: 'ext-1',
    userName: 'bjensen@example.com',
    name: { formatted: 'Barbara Jensen', givenName: 'Barbara', familyName: 'Jensen' },
    displayName: 'Babs',
    active: true,
    emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
    groups: [{ value: 'g1', display: 'Sales' }],
    meta: {
      resourceType: 'User',
      created: '2024-01-01T00:00:00.000Z',
      lastModified: '2024-01-02T00:00:00.000Z',
      location: 'https://idp.example.com/scim/v2/Users/u1',
    },
  });

const group = (
  members: { value: string; display?: string; $ref?: string; type?: string }[] = defaultMembers(),
): ScimJson =>
  deepFrozen({
    schemas: [SCIM_SCHEMAS.group],
    id: 'g1',
    displayName: 'Sales',
    members,
    meta: { resourceType: 'Group', location: 'https://idp.example.com/scim/v2/Groups/g1' },
  });

const defaultMembers = () => [
  { value: 'u1', display: 'Barbara Jensen', $ref: 'https://idp.example.com/scim/v2/Users/u1' },
  { value: 'u2' },
];

const body = (Operations: unknown[]) => deepFrozen({ schemas: [PATCH_OP], Operations });

const patchUser = (operations: unknown[], resource: ScimJson = user()) =>
  applyScimPatch(resource, body(operations), 'User');
const patchGroup = (operations: unknown[], resource: ScimJson = group()) =>
  applyScimPatch(resource, body(operations), 'Group');

const refusalOf = (apply: () => unknown): ScimError => {
  try {
    apply();
  } catch (error) {
    if (error instanceof ScimError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

const memberIds = (patched: ScimJson) =>
  (patched.members as { value: string }[]).map((member) => member.value);

describe('applyScimPatch: the body', () => {
  it('applies a body of one operation (positive control)', () => {
    expect(patchUser([{ op: 'replace', path: 'displayName', value: 'B' }]).displayName).toBe('B');
  });

  it.each([
    ['not an object', null],
    ['an array', []],
    ['without schemas', { Operations: [{ op: 'replace', path: 'displayName', value: 'B' }] }],
    [
      'with another schema',
      { schemas: [USER_URN], Operations: [{ op: 'replace', path: 'displayName', value: 'B' }] },
    ],
    ['without Operations', { schemas: [PATCH_OP] }],
    ['with Operations not an array', { schemas: [PATCH_OP], Operations: { op: 'replace' } }],
    ['with no operations', { schemas: [PATCH_OP], Operations: [] }],
    ['with an operation not an object', { schemas: [PATCH_OP], Operations: ['replace'] }],
    [
      'with an unknown op',
      { schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'displayName', value: 'B' }] },
    ],
    [
      'with op not a string',
      { schemas: [PATCH_OP], Operations: [{ op: 1, path: 'displayName', value: 'B' }] },
    ],
    [
      'with a path not a string',
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 1, value: 'B' }] },
    ],
  ])('refuses a body %s with invalidSyntax', (_, refused) => {
    const refusal = refusalOf(() => applyScimPatch(user(), refused, 'User'));
    expect(refusal).toMatchObject({ status: 400, scimType: 'invalidSyntax' });
  });

  it('takes 100 operations and refuses 101', () => {
    const operations = Array.from({ length: 100 }, (_, index) => ({
      op: 'replace',
      path: 'displayName',
      value: `B${index}`,
    }));
    expect(patchUser(operations).displayName).toBe('B99');
    const refusal = refusalOf(() => patchUser([...operations, operations[0]]));
    expect(refusal).toMatchObject({
      scimType: 'invalidSyntax',
      message: expect.stringContaining('at most 100'),
    });
  });

  it('refuses an add or replace without a value with invalidValue', () => {
    expect(refusalOf(() => patchUser([{ op: 'add', path: 'displayName' }])).scimType).toBe('invalidValue');
    expect(refusalOf(() => patchUser([{ op: 'Replace', path: 'displayName' }])).scimType).toBe(
      'invalidValue',
    );
  });

  it('refuses a remove without a path with noTarget, in any casing (scim-patch throws a TypeError for "Remove")', () => {
    for (const op of ['remove', 'Remove', 'REMOVE']) {
      const refusal = refusalOf(() => patchUser([{ op }]));
      expect(refusal).toMatchObject({ status: 400, scimType: 'noTarget' });
    }
    expect(refusalOf(() => patchUser([{ op: 'remove', path: '' }])).scimType).toBe('noTarget');
    expect(refusalOf(() => patchUser([{ op: 'remove', path: null }])).scimType).toBe('noTarget');
  });

  it('takes an empty or null path as none', () => {
    expect(patchUser([{ op: 'replace', path: '', value: { displayName: 'B' } }]).displayName).toBe('B');
    expect(patchUser([{ op: 'replace', path: null, value: { displayName: 'C' } }]).displayName).toBe('C');
  });
});

describe('applyScimPatch: operations', () => {
  it('takes op in any casing', () => {
    for (const op of ['add', 'Add', 'ADD', 'replace', 'Replace', 'REPLACE', 'rEpLaCe']) {
      expect(patchUser([{ op, path: 'displayName', value: op }]).displayName).toBe(op);
    }
    expect(patchUser([{ op: 'REMOVE', path: 'displayName' }])).not.toHaveProperty('displayName');
  });

  it('replaces, adds and removes single-valued attributes, and creates missing ones', () => {
    const patched = patchUser([
      { op: 'replace', path: 'userName', value: 'barbara@example.com' },
      { op: 'add', path: 'nickName', value: 'Babs' },
      { op: 'replace', path: 'title', value: 'Tour Guide' },
      { op: 'remove', path: 'displayName' },
    ]);
    expect(patched).toMatchObject({ userName: 'barbara@example.com', nickName: 'Babs', title: 'Tour Guide' });
    expect(patched).not.toHaveProperty('displayName');
  });

  it('replaces sub-attributes, with or without the core schema URN, keeping the others', () => {
    const patched = patchUser([
      { op: 'replace', path: 'name.givenName', value: 'Barb' },
      { op: 'replace', path: `${USER_URN}:name.familyName`, value: 'J' },
    ]);
    expect(patched.name).toEqual({ formatted: 'Barbara Jensen', givenName: 'Barb', familyName: 'J' });
  });

  it('merges a complex attribute given by path with an object', () => {
    expect(patchUser([{ op: 'replace', path: 'name', value: { givenName: 'Barb' } }]).name).toEqual({
      formatted: 'Barbara Jensen',
      givenName: 'Barb',
      familyName: 'Jensen',
    });
  });

  it('reads attribute names and schema URNs in any case, answering the schema spelling', () => {
    const patched = patchUser([
      { op: 'replace', path: 'Name.GivenName', value: 'Barb' },
      { op: 'replace', path: 'DISPLAYNAME', value: 'B' },
      { op: 'replace', path: `${USER_URN.toUpperCase()}:USERNAME`, value: 'b@example.com' },
      { op: 'add', path: `${ENTERPRISE.toLowerCase()}:Department`, value: 'Tours' },
      { op: 'replace', value: { NickName: 'Babs', 'NAME.familyname': 'J' } },
      { op: 'replace', path: 'EMAILS[TYPE eq "work"].VALUE', value: 'barb@example.com' },
    ]);
    expect(patched).toMatchObject({
      name: { givenName: 'Barb', familyName: 'J' },
      displayName: 'B',
      userName: 'b@example.com',
      nickName: 'Babs',
      [ENTERPRISE]: { department: 'Tours' },
      emails: [{ value: 'barb@example.com', type: 'work', primary: true }],
    });
    expect(Object.keys(patched)).not.toContain('Name');
    expect(Object.keys(patched)).not.toContain('DISPLAYNAME');
  });

  it('adds, replaces and removes enterprise attributes under the extension', () => {
    const added = patchUser([
      { op: 'add', path: `${ENTERPRISE}:department`, value: 'Tours' },
      { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: '42' },
      { op: 'add', path: `${ENTERPRISE}:manager`, value: { value: 'u9' } },
    ]);
    expect(added[ENTERPRISE]).toEqual({
      department: 'Tours',
      employeeNumber: '42',
      manager: { value: 'u9' },
    });
    const removed = patchUser([{ op: 'Remove', path: `${ENTERPRISE}:department` }], deepFrozen(added));
    expect(removed[ENTERPRISE]).toEqual({ employeeNumber: '42', manager: { value: 'u9' } });
  });

  it('takes an extension URN as a path to its object of attributes', () => {
    const added = patchUser([
      { op: 'add', path: ENTERPRISE, value: { department: 'Tours', costCenter: 'c1' } },
    ]);
    expect(added[ENTERPRISE]).toEqual({ department: 'Tours', costCenter: 'c1' });
    const removed = patchUser([{ op: 'remove', path: ENTERPRISE }], deepFrozen(added));
    expect(removed[ENTERPRISE]).toEqual({});
    expect(patchUser([{ op: 'remove', path: ENTERPRISE }])).toEqual(user());
    expect(patchUser([{ op: 'replace', path: USER_URN, value: { displayName: 'B' } }]).displayName).toBe('B');
  });

  it('removes a value from a multi-valued attribute, and nothing when it is absent', () => {
    const twoEmails = deepFrozen({
      ...user(),
      emails: [
        { value: 'bjensen@example.com', type: 'work', primary: true },
        { value: 'babs@example.org', type: 'home' },
      ],
    });
    const patched = patchUser(
      [{ op: 'remove', path: 'emails', value: [{ value: 'babs@example.org', type: 'home' }] }],
      twoEmails,
    );
    expect(patched.emails).toEqual([{ value: 'bjensen@example.com', type: 'work', primary: true }]);
    expect(patchUser([{ op: 'remove', path: 'phoneNumbers', value: [{ value: '1' }] }])).toEqual(user());
  });

  it('removes a sub-attribute, and nothing when its parent is absent', () => {
    expect(patchUser([{ op: 'remove', path: 'name.formatted' }]).name).toEqual({
      givenName: 'Barbara',
      familyName: 'Jensen',
    });
    expect(patchUser([{ op: 'remove', path: `${ENTERPRISE}:department` }])).toEqual(user());
    expect(patchUser([{ op: 'remove', path: 'addresses.locality' }])).toEqual(user());
  });
});

describe('applyScimPatch: emails by filter', () => {
  const noEmails = () => deepFrozen({ ...user(), emails: undefined });
  const homeEmailOnly = () =>
    deepFrozen({ ...user(), emails: [{ value: 'home@example.org', type: 'home' }] });

  it('replaces or adds the value of the work email when there is one', () => {
    for (const op of ['replace', 'add']) {
      expect(
        patchUser([{ op, path: 'emails[type eq "work"].value', value: 'new@example.com' }]).emails,
      ).toEqual([{ value: 'new@example.com', type: 'work', primary: true }]);
    }
  });

  it('adds a work email when there is none, for add and for replace', () => {
    for (const op of ['replace', 'add', 'Replace']) {
      expect(
        patchUser([{ op, path: 'emails[type eq "work"].value', value: 'new@example.com' }], noEmails())
          .emails,
      ).toEqual([{ type: 'work', value: 'new@example.com' }]);
      expect(
        patchUser([{ op, path: 'emails[type eq "work"].value', value: 'new@example.com' }], homeEmailOnly())
          .emails,
      ).toEqual([
        { value: 'home@example.org', type: 'home' },
        { type: 'work', value: 'new@example.com' },
      ]);
    }
  });

  it('reads filter attribute names in any case', () => {
    expect(
      patchUser([{ op: 'replace', path: 'emails[Type eq "work"].value', value: 'n@example.com' }]).emails,
    ).toEqual([{ value: 'n@example.com', type: 'work', primary: true }]);
  });

  it('compares a type in a filter whatever its case (RFC 7643: caseExact false)', () => {
    for (const type of ['work', 'Work', 'WORK'])
      expect(
        patchUser([{ op: 'add', path: `emails[type eq "${type}"].value`, value: 'n@example.com' }]).emails,
        type,
      ).toEqual([{ value: 'n@example.com', type: 'work', primary: true }]);
  });

  it('finds filter values holding periods and brackets', () => {
    expect(
      patchUser([{ op: 'replace', path: 'emails[value eq "bjensen@example.com"].type', value: 'home' }])
        .emails,
    ).toEqual([{ value: 'bjensen@example.com', type: 'home', primary: true }]);
  });

  it('removes the emails a filter matches, and nothing when it matches none or there are none', () => {
    expect(patchUser([{ op: 'remove', path: 'emails[type eq "work"]' }])).not.toHaveProperty('emails');
    expect(patchUser([{ op: 'remove', path: 'emails[type eq "home"]' }])).toEqual(user());
    expect(patchUser([{ op: 'remove', path: 'emails[type eq "home"].value' }])).toEqual(user());
    expect(patchUser([{ op: 'remove', path: 'emails[type eq "work"]' }], noEmails())).toEqual(noEmails());
    expect(patchUser([{ op: 'remove', path: 'emails[type eq "work"].value' }], noEmails())).toEqual(
      noEmails(),
    );
    expect(patchUser([{ op: 'remove', path: 'emails[type eq "work"].primary' }]).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work' },
    ]);
  });

  it('refuses with noTarget a replace whose filter matches nothing and cannot be added', () => {
    for (const path of [
      'emails[type eq "home"]',
      'emails[value sw "zz"].type',
      'emails[type ne "work"].value',
    ]) {
      const refusal = refusalOf(() => patchUser([{ op: 'replace', path, value: { value: 'x' } }]));
      expect(refusal).toMatchObject({ status: 400, scimType: 'noTarget' });
    }
    expect(
      refusalOf(() =>
        patchUser([{ op: 'add', path: 'emails[type eq "home"]', value: { value: 'x' } }], noEmails()),
      ).scimType,
    ).toBe('noTarget');
  });
});

describe('applyScimPatch: active', () => {
  it.each([
    ['False', false],
    ['false', false],
    ['FALSE', false],
    ['True', true],
    ['true', true],
    [false, false],
    [true, true],
  ])('takes %j by path as %j', (value, expected) => {
    const inactive = deepFrozen({ ...user(), active: !expected });
    expect(patchUser([{ op: 'Replace', path: 'active', value }], inactive).active).toBe(expected);
    expect(patchUser([{ op: 'replace', path: `${USER_URN}:active`, value }], inactive).active).toBe(expected);
    expect(patchUser([{ op: 'replace', path: 'ACTIVE', value }], inactive).active).toBe(expected);
  });

  it('takes the strings inside a value without a path', () => {
    expect(patchUser([{ op: 'Replace', value: { active: 'False' } }]).active).toBe(false);
    expect(patchUser([{ op: 'replace', value: { Active: 'False' } }]).active).toBe(false);
    expect(patchUser([{ op: 'replace', value: { [USER_URN]: { active: 'False' } } }]).active).toBe(false);
    expect(patchUser([{ op: 'replace', value: { [`${USER_URN}:active`]: 'False' } }]).active).toBe(false);
  });

  it('refuses anything else with invalidValue', () => {
    for (const value of ['yes', '0', 0, null, {}]) {
      expect(refusalOf(() => patchUser([{ op: 'replace', path: 'active', value }])).scimType).toBe(
        'invalidValue',
      );
      expect(refusalOf(() => patchUser([{ op: 'replace', value: { active: value } }])).scimType).toBe(
        'invalidValue',
      );
    }
  });

  it('leaves a Group attribute named active as given', () => {
    expect(patchGroup([{ op: 'replace', path: 'active', value: 'False' }]).active).toBe('False');
  });
});

describe('applyScimPatch: values without a path', () => {
  it('sets dotted and URN-prefixed keys where they belong', () => {
    const patched = patchUser([
      {
        op: 'replace',
        value: { displayName: 'Bj', 'name.givenName': 'K', [`${ENTERPRISE}:employeeNumber`]: '7' },
      },
    ]);
    expect(patched).toMatchObject({
      displayName: 'Bj',
      name: { formatted: 'Barbara Jensen', givenName: 'K', familyName: 'Jensen' },
      [ENTERPRISE]: { employeeNumber: '7' },
    });
  });

  it('spreads an extension URN object into its attributes (scim-patch alone nests it under a broken key)', () => {
    const patched = patchUser([
      { op: 'replace', value: { [ENTERPRISE]: { costCenter: 'c1', manager: { value: 'u9' } } } },
    ]);
    expect(patched[ENTERPRISE]).toEqual({ costCenter: 'c1', manager: { value: 'u9' } });
    expect(patched).not.toHaveProperty(['urn:ietf:params:scim:schemas:extension:enterprise:2.0']);
  });

  it('spreads a core schema URN object into its attributes', () => {
    expect(patchUser([{ op: 'replace', value: { [USER_URN]: { displayName: 'B' } } }]).displayName).toBe('B');
  });

  it('changes only the sub-attributes a complex value gives (RFC 7644 3.5.2)', () => {
    expect(patchUser([{ op: 'replace', value: { name: { givenName: 'K' } } }]).name).toEqual({
      formatted: 'Barbara Jensen',
      givenName: 'K',
      familyName: 'Jensen',
    });
    expect(patchUser([{ op: 'add', value: { name: { middleName: 'M' } } }]).name).toMatchObject({
      givenName: 'Barbara',
      middleName: 'M',
    });
  });

  it('appends to a multi-valued attribute on add, and replaces it on replace', () => {
    const home = { value: 'home@example.org', type: 'home' };
    expect(patchUser([{ op: 'add', value: { emails: [home] } }]).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
      home,
    ]);
    expect(patchUser([{ op: 'replace', value: { emails: [home] } }]).emails).toEqual([home]);
  });

  it('refuses a value that is not an object with invalidValue', () => {
    for (const value of ['x', 1, true, null, [{ displayName: 'B' }]]) {
      for (const op of ['replace', 'add']) {
        const refusal = refusalOf(() => patchUser([{ op, value }]));
        expect(refusal).toMatchObject({ status: 400, scimType: 'invalidValue' });
      }
    }
    expect(refusalOf(() => patchUser([{ op: 'replace', value: { [ENTERPRISE]: 'x' } }])).scimType).toBe(
      'invalidValue',
    );
  });

  it('changes nothing for a value of only ignored attributes', () => {
    expect(patchUser([{ op: 'replace', value: { id: 'u2', meta: { version: 'W/"1"' } } }])).toEqual(user());
    expect(patchUser([{ op: 'replace', value: {} }])).toEqual(user());
  });
});

describe('applyScimPatch: group members', () => {
  it('refuses to change a member in place (mutability), whether its filter matches one or none', () => {
    // Positive control: the same filter removes the member it matches.
    expect(memberIds(patchGroup([{ op: 'remove', path: 'members[value eq "u2"]' }]))).toEqual(['u1']);
    for (const path of ['members[value eq "u2"].value', 'members[value eq "nobody"].value']) {
      for (const op of ['replace', 'add']) {
        expect(
          refusalOf(() => patchGroup([{ op, path, value: 'u3' }])),
          `${op} ${path}`,
        ).toMatchObject({
          status: 400,
          scimType: 'mutability',
        });
      }
    }
  });

  it('adds members as { value } only, each once (Entra sends $ref: null, Okta display)', () => {
    const patched = patchGroup([
      {
        op: 'Add',
        path: 'members',
        value: [
          { $ref: null, value: 'u3' },
          { value: 'u4', display: 'Someone' },
          { value: 'u1' },
          { value: 'u3', type: 'User' },
        ],
      },
    ]);
    expect(patched.members).toEqual([...defaultMembers(), { value: 'u3' }, { value: 'u4' }]);
  });

  it('adds to a group that has no members attribute, or an empty one', () => {
    const bare = deepFrozen({ schemas: [SCIM_SCHEMAS.group], id: 'g2', displayName: 'Empty', meta: {} });
    expect(memberIds(patchGroup([{ op: 'add', path: 'members', value: [{ value: 'u1' }] }], bare))).toEqual([
      'u1',
    ]);
    expect(
      memberIds(patchGroup([{ op: 'add', path: 'members', value: [{ value: 'u1' }] }], group([]))),
    ).toEqual(['u1']);
    expect(
      memberIds(patchGroup([{ op: 'add', path: 'members', value: { value: 'u1' } }], group([]))),
    ).toEqual(['u1']);
  });

  it('removes members by a value list, whatever else the stored members carry', () => {
    const patched = patchGroup([
      {
        op: 'Remove',
        path: 'members',
        value: [{ value: 'u1' }, { $ref: null, value: 'u2' }, { value: 'nope' }],
      },
    ]);
    expect(patched.members).toEqual([]);
    expect(memberIds(patchGroup([{ op: 'remove', path: 'members', value: { value: 'u2' } }]))).toEqual([
      'u1',
    ]);
  });

  it('removes members by a value list from a group without members, changing nothing', () => {
    const bare = deepFrozen({ schemas: [SCIM_SCHEMAS.group], id: 'g2', displayName: 'Empty', meta: {} });
    expect(patchGroup([{ op: 'remove', path: 'members', value: [{ value: 'u1' }] }], bare).members).toEqual(
      [],
    );
  });

  it('removes members by filter, and nothing when none matches or there are none', () => {
    expect(memberIds(patchGroup([{ op: 'remove', path: 'members[value eq "u1"]' }]))).toEqual(['u2']);
    expect(memberIds(patchGroup([{ op: 'remove', path: 'members[value eq "nope"]' }]))).toEqual(['u1', 'u2']);
    expect(patchGroup([{ op: 'remove', path: 'members[value eq "u1"]' }], group([])).members).toEqual([]);
    const bare = deepFrozen({ schemas: [SCIM_SCHEMAS.group], id: 'g2', displayName: 'Empty', meta: {} });
    expect(patchGroup([{ op: 'remove', path: 'members[value eq "u1"]' }], bare).members).toEqual([]);
  });

  it('matches a member\'s type whatever its case: members[type eq "user"] is every member', () => {
    const typed = group([
      { value: 'u1', type: 'User' },
      { value: 'u2', type: 'User' },
    ]);
    const remaining = (path: string) => memberIds(patchGroup([{ op: 'remove', path }], typed));
    expect(remaining('members[type eq "User"]')).toEqual([]);
    expect(remaining('members[type eq "user"]')).toEqual([]);
    expect(remaining('members[value eq "u1" and type eq "USER"]')).toEqual(['u2']);
    expect(remaining('members[value eq "U1"]')).toEqual(['u1', 'u2']);
    expect(remaining('members[type eq "Device"]')).toEqual(['u1', 'u2']);
  });

  it('keeps members a list when the last one goes, for the operations after it', () => {
    const patched = patchGroup([
      { op: 'remove', path: 'members[value eq "u1"]' },
      { op: 'remove', path: 'members[value eq "u2"]' },
      { op: 'remove', path: 'members', value: [{ value: 'u2' }] },
      { op: 'remove', path: 'members[value eq "u2"]' },
    ]);
    expect(patched.members).toEqual([]);
  });

  it('removes every member without a value', () => {
    expect(patchGroup([{ op: 'remove', path: 'members' }]).members).toEqual([]);
  });

  it('replaces the members with a list, { value } only', () => {
    const patched = patchGroup([
      {
        op: 'replace',
        path: 'members',
        value: [{ value: 'u7', display: 'x' }, { value: 'u8' }, { value: 'u7' }],
      },
    ]);
    expect(patched.members).toEqual([{ value: 'u7' }, { value: 'u8' }]);
    expect(patchGroup([{ op: 'replace', path: 'members', value: [] }]).members).toEqual([]);
    expect(patchGroup([{ op: 'replace', path: 'members', value: null }]).members).toEqual([]);
    expect(
      patchGroup([{ op: 'replace', value: { members: [{ value: 'u9', display: 'x' }] } }]).members,
    ).toEqual([{ value: 'u9' }]);
  });

  it('refuses a member without a string value with invalidValue', () => {
    for (const value of [[{ display: 'x' }], [{ value: 1 }], [{ value: '' }], ['u1'], 'u1', 1]) {
      for (const op of ['add', 'replace', 'remove']) {
        const refusal = refusalOf(() => patchGroup([{ op, path: 'members', value }]));
        expect(refusal).toMatchObject({ status: 400, scimType: 'invalidValue' });
      }
    }
  });

  it('removes by a value list ids no filter could hold: nothing, when no member has them, else that member', () => {
    // The value list is a set operation on the ids, never a filter: a member is removed by its id whatever it holds.
    for (const id of ['a:b', 'a\\b', 'a\nb', 'a"b']) {
      expect(memberIds(patchGroup([{ op: 'remove', path: 'members', value: [{ value: id }] }]))).toEqual([
        'u1',
        'u2',
      ]);
      expect(
        memberIds(
          patchGroup([{ op: 'remove', path: 'members', value: [{ value: id }] }], group([{ value: id }])),
        ),
      ).toEqual([]);
    }
  });
});

describe('applyScimPatch: Microsoft Entra ID', () => {
  it('updates a user as Entra ID does without aadOptscim062020', () => {
    let patched = patchUser([
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ]);
    patched = patchUser(
      [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }],
      deepFrozen(patched),
    );
    patched = patchUser(
      [
        { op: 'Add', path: 'nickName', value: 'Babs' },
        { op: 'Replace', path: 'displayName', value: 'Bjfe' },
        { op: 'Replace', path: 'name.givenName', value: 'Kkom' },
        { op: 'Replace', path: 'externalId', value: 'Eqpj' },
        { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: 'Aklq' },
      ],
      deepFrozen(patched),
    );
    patched = patchUser([{ op: 'Replace', path: 'active', value: 'False' }], deepFrozen(patched));
    expect(patched).toEqual({
      ...user(),
      userName: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
      name: { formatted: 'Barbara Jensen', givenName: 'Kkom', familyName: 'updatedFamilyName' },
      emails: [{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }],
      nickName: 'Babs',
      displayName: 'Bjfe',
      externalId: 'Eqpj',
      [ENTERPRISE]: { employeeNumber: 'Aklq' },
      active: false,
    });
  });

  it('updates a user as Entra ID does with aadOptscim062020', () => {
    let patched = patchUser([
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
      {
        op: 'replace',
        value: {
          displayName: 'Bjfe',
          'name.givenName': 'Kkom',
          'name.familyName': 'Unua',
          [`${ENTERPRISE}:employeeNumber`]: 'Aklq',
        },
      },
    ]);
    patched = patchUser([{ op: 'add', path: 'nickName', value: 'Babs' }], deepFrozen(patched));
    patched = patchUser([{ op: 'replace', path: 'active', value: false }], deepFrozen(patched));
    expect(patched).toEqual({
      ...user(),
      name: { formatted: 'Barbara Jensen', givenName: 'Kkom', familyName: 'Unua' },
      emails: [{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }],
      nickName: 'Babs',
      displayName: 'Bjfe',
      [ENTERPRISE]: { employeeNumber: 'Aklq' },
      active: false,
    });
  });

  it('sets the work email of a user created without one', () => {
    const created = deepFrozen({
      schemas: [USER_URN],
      id: 'u5',
      userName: 'Test_User@testuser.com',
      active: true,
      meta: {},
    });
    const patched = patchUser(
      [{ op: 'Replace', path: 'emails[type eq "work"].value', value: 'Test_User@testuser.com' }],
      created,
    );
    expect(patched.emails).toEqual([{ type: 'work', value: 'Test_User@testuser.com' }]);
  });

  it('renames a group and changes its members as Entra ID does without aadOptscim062020', () => {
    const created = group([]);
    let patched = patchGroup(
      [
        {
          op: 'Replace',
          path: 'displayName',
          value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName',
        },
      ],
      created,
    );
    patched = patchGroup(
      [{ op: 'Add', path: 'members', value: [{ $ref: null, value: 'f648f8d5ea4e4cd38e9c' }] }],
      deepFrozen(patched),
    );
    expect(patched.members).toEqual([{ value: 'f648f8d5ea4e4cd38e9c' }]);
    patched = patchGroup(
      [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: 'f648f8d5ea4e4cd38e9c' }] }],
      deepFrozen(patched),
    );
    expect(patched).toEqual({
      ...created,
      displayName: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName',
      members: [],
    });
  });

  it('removes a member as Entra ID does with aadOptscim062020', () => {
    const patched = patchGroup([
      { op: 'add', path: 'members', value: [{ value: '7f4bc1a3-285e-48ae-8202-5accb43efb0e' }] },
      { op: 'remove', path: 'members[value eq "7f4bc1a3-285e-48ae-8202-5accb43efb0e"]' },
    ]);
    expect(patched.members).toEqual(defaultMembers());
  });
});

describe('applyScimPatch: Okta', () => {
  it('deactivates and reactivates a user', () => {
    const deactivated = patchUser([{ op: 'replace', value: { active: false } }]);
    expect(deactivated).toEqual({ ...user(), active: false });
    expect(patchUser([{ op: 'replace', value: { active: true } }], deepFrozen(deactivated))).toEqual(user());
  });

  it('renames a group (with its id in the value) and changes its members', () => {
    const patched = patchGroup([
      { op: 'replace', value: { id: 'g1', displayName: 'Test SCIMv2' } },
      { op: 'remove', path: 'members[value eq "u2"]' },
      { op: 'add', path: 'members', value: [{ value: 'u3', display: 'test.user@okta.local' }] },
    ]);
    expect(patched).toEqual({
      ...group(),
      displayName: 'Test SCIMv2',
      members: [defaultMembers()[0], { value: 'u3' }],
    });
  });

  it('ignores an id in a rename that is not the group`s', () => {
    expect(patchGroup([{ op: 'replace', value: { id: 'g9', displayName: 'New' } }]).id).toBe('g1');
  });

  it('pushes the whole member list', () => {
    const patched = patchGroup([
      {
        op: 'replace',
        path: 'members',
        value: [
          { value: 'u2', display: 'b@okta.local' },
          { value: 'u3', display: 'c@okta.local' },
        ],
      },
    ]);
    expect(patched.members).toEqual([{ value: 'u2' }, { value: 'u3' }]);
  });
});

describe('applyScimPatch: what the server owns', () => {
  it.each([
    ['replace id', [{ op: 'replace', path: 'id', value: 'u2' }]],
    ['remove id', [{ op: 'remove', path: 'id' }]],
    ['replace meta', [{ op: 'replace', path: 'meta', value: { created: 'never' } }]],
    [
      'replace meta.lastModified',
      [{ op: 'replace', path: 'meta.lastModified', value: '2030-01-01T00:00:00Z' }],
    ],
    ['remove meta', [{ op: 'remove', path: 'meta' }]],
    ['meta replaced with a string', [{ op: 'replace', path: 'meta', value: 'x' }]],
    ['a sub-attribute of id', [{ op: 'add', path: 'id.x', value: 'x' }]],
    ['add schemas', [{ op: 'add', path: 'schemas', value: [ENTERPRISE] }]],
    ['add groups', [{ op: 'add', path: 'groups', value: [{ value: 'g2' }] }]],
    ['remove groups by filter', [{ op: 'remove', path: 'groups[value eq "g1"]' }]],
    ['replace a group by filter', [{ op: 'replace', path: 'groups[value eq "g9"].display', value: 'x' }]],
    ['ID in capitals', [{ op: 'replace', path: 'ID', value: 'u2' }]],
    ['id with the core URN', [{ op: 'replace', path: `${USER_URN}:id`, value: 'u2' }]],
    [
      'all in a value without a path',
      [
        {
          op: 'replace',
          value: { id: 'u2', meta: { created: 'never' }, schemas: [], groups: [], 'meta.version': 'W/"2"' },
        },
      ],
    ],
  ])('ignores %s on a User', (_, operations) => {
    expect(patchUser(operations)).toEqual(user());
  });

  it('never keeps a password (Okta may send one), by path or in a value', () => {
    expect(patchUser([{ op: 'replace', path: 'password', value: 't1meMa$heen' }])).toEqual(user());
    const patched = patchUser([{ op: 'replace', value: { password: 't1meMa$heen', displayName: 'B' } }]);
    expect(patched).toEqual({ ...user(), displayName: 'B' });
  });

  it('ignores id, meta and schemas on a Group', () => {
    expect(
      patchGroup([
        { op: 'replace', path: 'id', value: 'g2' },
        { op: 'remove', path: 'meta' },
        { op: 'replace', value: { schemas: [], meta: {} } },
      ]),
    ).toEqual(group());
  });

  it('leaves out what the resource does not have', () => {
    const bare = deepFrozen({ schemas: [USER_URN], id: 'u5', userName: 'x@example.com' });
    expect(
      patchUser([{ op: 'add', value: { meta: { created: 'x' }, groups: [{ value: 'g1' }] } }], bare),
    ).toEqual(bare);
  });
});

describe('applyScimPatch: all or nothing', () => {
  it('changes neither the resource nor the body, and shares no object with them', () => {
    const resource = user();
    const request = body([
      { op: 'add', path: 'emails', value: [{ value: 'home@example.org', type: 'home' }] },
      { op: 'replace', path: 'name', value: { givenName: 'K' } },
    ]);
    const patched = applyScimPatch(resource, request, 'User');
    expect(Object.isFrozen(patched)).toBe(false);
    // Frozen as they are, a change to an object shared with the resource or the body would throw.
    (patched.emails as [{ value: string }, { value: string }])[1].value = 'changed';
    (patched.meta as { location: string }).location = 'changed';
    (patched.name as { givenName: string }).givenName = 'changed';
    expect(resource).toEqual(user());
    expect(request.Operations[0]).toEqual({
      op: 'add',
      path: 'emails',
      value: [{ value: 'home@example.org', type: 'home' }],
    });
  });

  it('throws when a later operation fails, and the resource keeps every earlier change out', () => {
    const resource = user();
    const refusal = refusalOf(() =>
      patchUser(
        [
          { op: 'replace', path: 'displayName', value: 'B' },
          { op: 'remove', path: 'emails[type eq "work"]' },
          { op: 'replace', path: 'emails[type ne "home"].value', value: 'x' },
        ],
        resource,
      ),
    );
    expect(refusal).toMatchObject({ status: 400, scimType: 'noTarget' });
    expect(refusal.message).toMatch(/^Operations\[2\] \(replace emails\[type ne "home"\]\.value\): /);
    expect(resource).toEqual(user());
  });
});

describe('applyScimPatch: refusals', () => {
  const refusals: [string, unknown[], string, RegExp][] = [
    [
      'an unclosed filter',
      [{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }],
      'invalidPath',
      /unclosed/,
    ],
    [
      'junk after a filter',
      [{ op: 'replace', path: 'emails[type eq "work"]x', value: 'x' }],
      'invalidPath',
      /after \]/,
    ],
    ['three levels', [{ op: 'replace', path: 'name.givenName.x', value: 'x' }], 'invalidPath', /deeper/],
    ['an empty segment', [{ op: 'replace', path: 'name.', value: 'x' }], 'invalidPath', /not an attribute/],
    [
      'a name starting with a digit',
      [{ op: 'replace', path: '1name', value: 'x' }],
      'invalidPath',
      /not an attribute/,
    ],
    ['a space', [{ op: 'replace', path: 'display name', value: 'x' }], 'invalidPath', /not an attribute/],
    ['a control character', [{ op: 'replace', path: 'displayName\n', value: 'x' }], 'invalidPath', /control/],
    [
      'a long path',
      [{ op: 'replace', path: `a${'b'.repeat(1000)}`, value: 'x' }],
      'invalidPath',
      /at most 1000/,
    ],
    [
      'a Group URN on a User',
      [{ op: 'replace', path: `${SCIM_SCHEMAS.group}:displayName`, value: 'x' }],
      'invalidPath',
      /schema/,
    ],
    [
      'the Group URN as a path',
      [{ op: 'replace', path: SCIM_SCHEMAS.group, value: {} }],
      'invalidPath',
      /not a schema/,
    ],
    ['removing the core schema', [{ op: 'remove', path: USER_URN }], 'invalidPath', /core schema/],
    [
      'a sub-attribute of a string',
      [{ op: 'replace', path: 'userName.x', value: 'x' }],
      'invalidPath',
      /no sub-attributes/,
    ],
    [
      'a filter in a value key',
      [{ op: 'replace', value: { 'emails[type eq "work"].value': 'x' } }],
      'invalidPath',
      /cannot have a filter/,
    ],
    [
      'a filter syntax error',
      [{ op: 'replace', path: 'emails[type eq work].value', value: 'x' }],
      'invalidFilter',
      /not valid SCIM filter/,
    ],
    [
      'an empty filter',
      [{ op: 'replace', path: 'emails[].value', value: 'x' }],
      'invalidFilter',
      /not valid SCIM filter/,
    ],
    [
      'a colon in a filter',
      [{ op: 'replace', path: 'emails[value eq "a:b"].type', value: 'x' }],
      'invalidFilter',
      /':'/,
    ],
    [
      'a backslash escape in a filter',
      [{ op: 'remove', path: 'members[value eq "a\\\\b"]' }],
      'invalidFilter',
      /escapes/,
    ],
    [
      'a string for a complex attribute',
      [{ op: 'add', path: 'name', value: 'x' }],
      'invalidValue',
      /complex/,
    ],
    [
      'a value removed from a single value',
      [{ op: 'remove', path: 'userName', value: 'bjensen@example.com' }],
      'invalidValue',
      /array/,
    ],
    [
      'nested arrays to remove',
      [{ op: 'remove', path: 'emails', value: [[{ value: 'x' }]] }],
      'invalidValue',
      /arrays inside arrays/,
    ],
  ];

  it.each(refusals)('refuses %s with %s', (_, operations, scimType, detail) => {
    const refusal = refusalOf(() => patchUser(operations));
    expect(refusal.status).toBe(400);
    expect(refusal.scimType).toBe(scimType);
    expect(refusal.message).toMatch(detail);
    expect(refusal.message).toMatch(/^Operations\[0\] \(/);
  });

  it('refuses line feeds in a path filter at once, where the filter parser would backtrack for ever', () => {
    const path = `members[value eq "${'\n'.repeat(40)}]`;
    expect(refusalOf(() => patchGroup([{ op: 'remove', path }])).scimType).toBe('invalidPath');
  });

  it('never echoes the values of a refused operation', () => {
    const refusal = refusalOf(() =>
      patchUser([{ op: 'replace', value: { password: 'hunter2hunter2', 'display name': 'x' } }]),
    );
    expect(refusal.message).not.toContain('hunter2');
  });
});

describe('applyScimPatch: names that reach shared objects', () => {
  const attempts: [string, unknown[]][] = [
    [
      'constructor.prototype by path',
      [{ op: 'replace', path: 'constructor.prototype', value: { polluted: 1 } }],
    ],
    ['__proto__ by path', [{ op: 'add', path: '__proto__.polluted', value: 1 }]],
    ['toString by path', [{ op: 'add', path: 'toString.polluted', value: 1 }]],
    [
      'constructor by path with a filter',
      [{ op: 'add', path: 'emails[type eq "work"].constructor', value: 1 }],
    ],
    ['__proto__ in a value key', [{ op: 'replace', value: { '__proto__.polluted': 1 } }]],
    ['toString in a value key', [{ op: 'replace', value: { 'toString.polluted': 1 } }]],
    ['constructor in a value key', [{ op: 'replace', value: { 'constructor.polluted': 1 } }]],
    ['valueOf in a nested value key', [{ op: 'replace', value: { name: { valueOf: 1 } } }]],
    [
      '__proto__ in a complex value by path',
      [{ op: 'replace', path: 'name', value: { '__proto__.polluted': 1 } }],
    ],
    [
      'hasOwnProperty in a complex value by path',
      [{ op: 'replace', path: 'name', value: { 'hasOwnProperty.polluted': 1 } }],
    ],
    ['__proto__ as a JSON key', [{ op: 'replace', value: JSON.parse('{"__proto__": {"polluted": 1}}') }]],
    ['an extension under constructor', [{ op: 'add', path: `${ENTERPRISE}:constructor.polluted`, value: 1 }]],
  ];

  it('sets a plain attribute by the same means (positive control)', () => {
    expect(patchUser([{ op: 'replace', path: 'name', value: { 'middleName.x': 1 } }]).name).toMatchObject({
      middleName: { x: 1 },
    });
    expect(patchUser([{ op: 'add', path: 'nickName', value: 1 }]).nickName).toBe(1);
  });

  it.each(attempts)('refuses %s with invalidPath, changing nothing shared', (_, operations) => {
    const refusal = refusalOf(() => patchUser(operations));
    expect(refusal.scimType).toBe('invalidPath');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype.toString as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('applyScimPatch on any body', () => {
  it('answers a patched copy or a ScimError 400, leaving the resource and shared objects alone', () => {
    console.log(`scim patch property: seed ${SEED}`);
    const validPaths: Record<ScimResourceType, string[]> = {
      User: [
        'displayName',
        'externalId',
        'id',
        'meta.created',
        'name',
        'name.givenName',
        'Name.FamilyName',
        'active',
        'emails',
        'emails[type eq "work"].value',
        'emails[type eq "home"]',
        'emails[value sw "b"].type',
        'groups',
        `${ENTERPRISE}:department`,
        ENTERPRISE,
        USER_URN,
        `${USER_URN}:userName`,
      ],
      Group: [
        'displayName',
        'externalId',
        'id',
        'members',
        'members[value eq "u1"]',
        'members[value eq "u9"]',
      ],
    };
    const malformedPaths = [
      'a.b.c',
      '',
      '__proto__.x',
      'constructor.prototype',
      'toString.x',
      'emails[type eq',
    ];
    const operationOf = (type: ScimResourceType) => {
      const pathPiece = fc.oneof(
        { arbitrary: fc.constantFrom(...validPaths[type]), weight: 6 },
        { arbitrary: fc.constantFrom(...malformedPaths), weight: 1 },
      );
      return fc.record(
        {
          op: fc.oneof(
            { arbitrary: fc.constantFrom('add', 'Add', 'replace', 'Replace', 'REMOVE', 'remove'), weight: 9 },
            { arbitrary: fc.constant('move'), weight: 1 },
          ),
          path: fc.oneof(
            { arbitrary: pathPiece, weight: 5 },
            { arbitrary: fc.string({ maxLength: 20 }), weight: 1 },
          ),
          value: fc.oneof(
            { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
            {
              arbitrary: fc.constantFrom('False', 'x', [{ value: 'u3' }], [{ value: 'u1', $ref: null }], {
                displayName: 'x',
              }),
              weight: 3,
            },
            { arbitrary: fc.dictionary(pathPiece, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }), weight: 1 },
          ),
        },
        { requiredKeys: ['op'] },
      );
    };
    const typeAndOperations = fc
      .constantFrom<ScimResourceType>('User', 'Group')
      .chain((type) =>
        fc.tuple(fc.constant(type), fc.array(operationOf(type), { minLength: 1, maxLength: 3 })),
      );
    let answered = 0;
    fc.assert(
      fc.property(typeAndOperations, ([type, operations]) => {
        const resource = type === 'User' ? user() : group();
        try {
          const patched = applyScimPatch(resource, body(operations), type);
          answered += 1;
          expect(patched.id).toBe(resource.id);
          expect(patched.meta).toEqual(resource.meta);
          if (type === 'Group') expect(Array.isArray(patched.members)).toBe(true);
          else expect(patched.groups).toEqual(resource.groups);
        } catch (error) {
          expect(error).toBeInstanceOf(ScimError);
          expect((error as ScimError).status).toBe(400);
        }
        expect(resource).toEqual(type === 'User' ? user() : group());
        expect(({} as Record<string, unknown>).x).toBeUndefined();
        expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('x');
      }),
      { seed: SEED, numRuns: 400 },
    );
    // The generator reaches answers, not only refusals.
    expect(answered).toBeGreaterThan(25);
  });
});
