import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const HOUR = 3_600_000;

beforeAll(() => {
  process.env.IDP_SECRET_STORE = 'file';
  process.env.IDP_DATA_DIR = mkdtempSync(join(tmpdir(), 'keys-'));
});

describe('signing key rotation', () => {
  it('signs with the newest key and keeps retired keys published while their tokens can be valid', async () => {
    const { currentSigningKey, publicJwks, rotateSigningKeys } = await import(
      '../../shared/auth/signing-keys.js'
    );
    const first = (await currentSigningKey()).kid;
    const start = Date.now();
    const second = await rotateSigningKeys(HOUR, start);
    expect((await currentSigningKey()).kid).toBe(second);
    // Two rotations within one token lifetime: the first key's tokens are still valid, keep it.
    const third = await rotateSigningKeys(HOUR, start + HOUR / 2);
    expect((await publicJwks()).keys.map((key) => key.kid)).toEqual([third, second, first]);
    // Long after: only keys retired within a lifetime (plus cache time) remain.
    const fourth = await rotateSigningKeys(HOUR, start + 3 * HOUR);
    expect((await publicJwks()).keys.map((key) => key.kid)).toEqual([fourth, third]);
  });
});
