import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changesBetween, isSecretField } from '../../shared/audit/changes.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/** The secret-named fields the store holds today, and the values a test gives them. */
const SECRETS = {
  password: 'pw-Tr0ub4dor&3',
  passwordHash: 'scrypt$15$salt$hash-value',
  clientSecret: 'cs-8f2a91c0d5',
  previousSecret: 'cs-old-77aa01',
  totpSecret: 'JBSWY3DPEHPK3PXP',
  recoveryCodeDigests: new Set(['rc-digest-one', 'rc-digest-two']),
  invitationDigest: 'inv-digest-5c1e',
  resetDigest: 'reset-digest-9d0b',
  refreshToken: 'rt-eyJhbGciOi',
} as const;

const secretTexts = (values: Record<string, unknown>): string[] =>
  Object.values(values).flatMap((value) => (value instanceof Set ? [...value].map(String) : [String(value)]));

describe('changesBetween', () => {
  it('records a creation as every field from null', () => {
    expect(changesBetween(undefined, { name: 'Ann', email: 'ann@x.io', isInitial: false })).toEqual({
      email: { from: null, to: 'ann@x.io' },
      isInitial: { from: null, to: false },
      name: { from: null, to: 'Ann' },
    });
  });

  it('records a deletion as every field to null', () => {
    expect(changesBetween({ name: 'Ann', roles: new Set(['r2', 'r1']) }, undefined)).toEqual({
      name: { from: 'Ann', to: null },
      roles: { from: ['r1', 'r2'], to: null },
    });
  });

  it('answers no change for equal records, and for none at all', () => {
    const record = { name: 'Ann', limits: { rate: 10, burst: 5 }, tags: ['a', 'b'] };
    expect(changesBetween(record, structuredClone(record))).toEqual({});
    expect(changesBetween(undefined, undefined)).toEqual({});
  });

  it('records only the fields that differ, a field added or removed included', () => {
    expect(
      changesBetween(
        { name: 'Ann', email: 'ann@x.io', gone: 1 },
        { name: 'Anne', email: 'ann@x.io', new: 2 },
      ),
    ).toEqual({
      gone: { from: 1, to: null },
      name: { from: 'Ann', to: 'Anne' },
      new: { from: null, to: 2 },
    });
  });

  it('sees a set with the same members in another order as no change, and lists it sorted', () => {
    expect(changesBetween({ roles: new Set(['b', 'a', 'c']) }, { roles: new Set(['c', 'b', 'a']) })).toEqual(
      {},
    );
    expect(changesBetween({ roles: new Set(['b', 'a']) }, { roles: new Set(['c', 'b', 'a']) })).toEqual({
      roles: { from: ['a', 'b'], to: ['a', 'b', 'c'] },
    });
    // A set decoded from the store and the same members written as a list are the same content.
    expect(changesBetween({ roles: new Set(['b', 'a']) }, { roles: ['a', 'b'] })).toEqual({});
  });

  it('sees a list in another order as a change: order is part of a list', () => {
    expect(
      changesBetween(
        { redirectUris: ['https://a', 'https://b'] },
        { redirectUris: ['https://b', 'https://a'] },
      ),
    ).toEqual({
      redirectUris: { from: ['https://a', 'https://b'], to: ['https://b', 'https://a'] },
    });
  });

  it('compares nested objects by content, whatever the order of their keys', () => {
    const before = {
      rateLimit: { rate: 10, burst: 5 },
      nested: { a: { x: 1, y: new Set(['q', 'p']) }, b: [1, 2] },
    };
    const after = {
      nested: { b: [1, 2], a: { y: new Set(['p', 'q']), x: 1 } },
      rateLimit: { burst: 5, rate: 10 },
    };
    expect(changesBetween(before, after)).toEqual({});
    expect(changesBetween(before, { ...after, rateLimit: { burst: 5, rate: 11 } })).toEqual({
      rateLimit: { from: { rate: 10, burst: 5 }, to: { burst: 5, rate: 11 } },
    });
  });

  it('ignores bookkeeping fields: keys, versions, timestamps of the item', () => {
    const bookkeeping = (n: number) => ({
      pk: `P${n}`,
      sk: `S${n}`,
      gsi1pk: `G${n}`,
      gsi1sk: `g${n}`,
      lsi1sk: `l${n}`,
      version: n,
      updatedAt: n,
      expiresAt: n,
      entity: `E${n}`,
    });
    expect(changesBetween({ ...bookkeeping(1), name: 'Ann' }, { ...bookkeeping(2), name: 'Ann' })).toEqual(
      {},
    );
    expect(changesBetween(undefined, { ...bookkeeping(2), name: 'Ann' })).toEqual({
      name: { from: null, to: 'Ann' },
    });
  });

  it('shows a secret-named field only as "changed", never its value, on creation, change and deletion', () => {
    const changed = Object.fromEntries(Object.keys(SECRETS).map((field) => [field, 'changed']));
    const rotated = Object.fromEntries(
      Object.entries(SECRETS).map(([field, value]) => [
        field,
        value instanceof Set ? new Set(['rc-digest-three']) : `${value}-rotated`,
      ]),
    );
    const cases = [
      changesBetween(undefined, { name: 'Ann', ...SECRETS }),
      changesBetween({ name: 'Ann', ...SECRETS }, { name: 'Ann', ...rotated }),
      changesBetween({ name: 'Ann', ...SECRETS }, undefined),
    ];
    expect(cases[0]).toEqual({ ...changed, name: { from: null, to: 'Ann' } });
    expect(cases[1]).toEqual(changed);
    expect(cases[2]).toEqual({ ...changed, name: { from: 'Ann', to: null } });
    const text = JSON.stringify(cases);
    for (const secret of [...secretTexts(SECRETS), ...secretTexts(rotated)])
      expect(text).not.toContain(secret);
  });

  it('leaves an unchanged secret out altogether', () => {
    expect(changesBetween({ name: 'Ann', ...SECRETS }, { name: 'Anne', ...SECRETS })).toEqual({
      name: { from: 'Ann', to: 'Anne' },
    });
  });

  it('redacts a secret-named field inside a field that is recorded', () => {
    const changes = changesBetween(
      { provider: { clientId: 'app', clientSecret: 'cs-nested-1' } },
      { provider: { clientId: 'app2', clientSecret: 'cs-nested-2' } },
    );
    expect(changes).toEqual({
      provider: {
        from: { clientId: 'app', clientSecret: 'changed' },
        to: { clientId: 'app2', clientSecret: 'changed' },
      },
    });
    expect(JSON.stringify(changes)).not.toMatch(/cs-nested/);
  });

  it('shows a set nested in a recorded field as its sorted members, which JSON can hold', () => {
    const changes = changesBetween(
      { grants: { roles: new Set(['b', 'a']) } },
      { grants: { roles: new Set(['c']) } },
    );
    expect(JSON.parse(JSON.stringify(changes))).toEqual({
      grants: { from: { roles: ['a', 'b'] }, to: { roles: ['c'] } },
    });
  });

  it('knows the secret names case-insensitively, and ordinary names as ordinary', () => {
    for (const field of [
      ...Object.keys(SECRETS),
      'PASSWORD',
      'apiToken',
      'Salt',
      'privateKey',
      'otpCode',
      'idTokenHint',
      'idTokenSignedResponseAlgSecret',
    ]) {
      expect(isSecretField(field), field).toBe(true);
    }
    for (const field of [
      'name',
      'email',
      'roles',
      'status',
      'redirectUris',
      'canSendEmail',
      // Settings of how an application's tokens are made, not tokens: named exactly.
      'idTokenSignedResponseAlg',
      'tokenEndpointAuthMethod',
    ]) {
      expect(isSecretField(field), field).toBe(false);
    }
  });
});

describe('changesBetween never records a secret (property)', () => {
  const secretName = fc.constantFrom(
    'password',
    'passwordHash',
    'clientSecret',
    'previousSecret',
    'totpSecret',
    'recoveryCodeDigests',
    'invitationDigest',
    'resetDigest',
    'refreshToken',
    'accessToken',
    'signingPrivateKey',
    'Passphrase',
  );
  const plainName = fc.constantFrom(
    'name',
    'email',
    'status',
    'roles',
    'settings',
    'limits',
    'tags',
    'a',
    'b',
  );
  // Secret values carry a marker no ordinary value or field name holds, so finding one is a leak.
  const secretValue = fc.oneof(
    fc.string({ maxLength: 12 }).map((text) => `SECRET<${text}>`),
    fc
      .uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 4 })
      .map((texts) => new Set(texts.map((text) => `SECRET<${text}>`))),
    fc
      .array(fc.string({ maxLength: 6 }), { maxLength: 3 })
      .map((texts) => texts.map((text) => `SECRET<${text}>`)),
  );
  const plainValue = fc.oneof(
    fc.string({ maxLength: 8 }).filter((text) => !text.includes('SECRET')),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.uniqueArray(fc.constantFrom('x', 'y', 'z'), { maxLength: 3 }).map((members) => new Set(members)),
  );
  // Records whose fields (at any depth) are either secret-named with a secret value or plain.
  const { record } = fc.letrec<{ record: Record<string, unknown>; value: unknown }>((tie) => ({
    record: fc
      .array(
        fc.oneof(
          fc.tuple(secretName, secretValue),
          fc.tuple(plainName, fc.oneof({ depthSize: 'small' }, plainValue, tie('value'))),
        ),
        { maxLength: 6 },
      )
      .map((entries) => Object.fromEntries(entries)),
    value: fc.oneof(
      { depthSize: 'small' },
      plainValue,
      tie('record'),
      fc.array(tie('record'), { maxLength: 2 }),
    ),
  }));

  it('no value of a secret-named field, at any depth, appears in the recorded changes', () => {
    console.log(`audit changes secret property: seed ${SEED}`);
    fc.assert(
      fc.property(
        fc.option(record, { nil: undefined }),
        fc.option(record, { nil: undefined }),
        (before, after) => {
          const text = JSON.stringify(changesBetween(before, after));
          expect(text).not.toContain('SECRET<');
        },
      ),
      { seed: SEED, numRuns: 500 },
    );
  });
});
