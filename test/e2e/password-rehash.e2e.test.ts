import { scryptSync } from 'node:crypto';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_SCRYPT,
  encodePasswordHash,
  hashPassword,
  parsePasswordHash,
  SCRYPT_FLOOR,
  verifyPassword,
} from '../../shared/auth/passwords.js';
import { replacePasswordHash } from '../../shared/store/credentials.js';
import { getUser, updateUserAttributes } from '../../shared/store/user-repository.js';
import { uniqueEmail, useService } from '../support/service.js';
import {
  type Application,
  PASSWORD,
  REDIRECT,
  registerApplication,
  relyingParty,
  signIn,
} from '../support/sign-in-flow.js';

// This file's service hashes with the production default (the other tests use the floor for speed).
process.env.IDP_PASSWORD_SCRYPT_LOG2_N = '17';

const service = useService();
let configuration: oidc.Configuration;

beforeAll(async () => {
  const registered = await registerApplication(service, {
    flowType: 'authorization_code',
    redirectUris: [REDIRECT],
  });
  expect(registered.status).toBe(201);
  const application: Application = registered.body;
  configuration = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
});

/** A person whose stored password hash is `passwordHash`. */
const personWith = async (passwordHash: string) => {
  const email = uniqueEmail('rehash');
  const id = await service.createUser({ email, name: 'Rehashed Person' });
  await updateUserAttributes(service.organizationId, id, { passwordHash });
  return { id, email };
};

const storedHash = async (userId: string) =>
  (await getUser(service.organizationId, userId, true))?.passwordHash as string;

const codeOf = (flow: Awaited<ReturnType<typeof signIn>>) => flow.location?.searchParams.get('code');

describe('password hashes of older parameters', () => {
  it('are replaced by the current parameters at a successful sign-in, which keeps working', async () => {
    const old = await hashPassword(PASSWORD, SCRYPT_FLOOR);
    const person = await personWith(old);

    const first = await signIn(service, configuration, { email: person.email });
    expect(codeOf(first)).toBeTruthy();
    const rehashed = await storedHash(person.id);
    expect(rehashed).not.toBe(old);
    expect(parsePasswordHash(rehashed)?.parameters).toEqual(DEFAULT_SCRYPT);
    expect(await verifyPassword(PASSWORD, rehashed)).toBe(true);
    // The same password: the session it started goes on (a rehash is not a password change).
    expect(
      codeOf(
        await signIn(service, configuration, {
          browser: first.browser,
          email: person.email,
          extra: { prompt: 'none' },
        }),
      ),
    ).toBeTruthy();

    const again = await signIn(service, configuration, { email: person.email });
    expect(codeOf(again)).toBeTruthy();
    expect(await storedHash(person.id)).toBe(rehashed);
  });

  it('are left as they are after a wrong password', async () => {
    const old = await hashPassword(PASSWORD, SCRYPT_FLOOR);
    const person = await personWith(old);
    const wrong = await signIn(service, configuration, {
      email: person.email,
      password: 'not the password at all',
    });
    expect(wrong.answer?.status).toBe(401);
    expect(await storedHash(person.id)).toBe(old);
  });

  it('are replaced only while unchanged: a password set meanwhile stays', async () => {
    const old = await hashPassword(PASSWORD, SCRYPT_FLOOR);
    const person = await personWith(old);
    const owner = { organizationId: service.organizationId, userId: person.id };
    const changedMeanwhile = await hashPassword('a password set meanwhile', SCRYPT_FLOOR);
    await updateUserAttributes(service.organizationId, person.id, { passwordHash: changedMeanwhile });
    expect(await replacePasswordHash(owner, old, await hashPassword(PASSWORD))).toBe(false);
    expect(await storedHash(person.id)).toBe(changedMeanwhile);
    // From the hash it read (positive control).
    const current = await hashPassword('a password set meanwhile');
    expect(await replacePasswordHash(owner, changedMeanwhile, current)).toBe(true);
    expect(await storedHash(person.id)).toBe(current);
  });
});

describe('password hashes of the password as typed (before passwords were normalized)', () => {
  it('are replaced at a successful sign-in by one of the NFKC password: the other composition then signs in too', async () => {
    const composed = 'Crème brûlée à Zürich';
    const decomposed = composed.normalize('NFD');
    const salt = Buffer.from('0123456789abcdef');
    const asTyped = encodePasswordHash({
      parameters: DEFAULT_SCRYPT,
      salt,
      hash: scryptSync(decomposed, salt, 32, { ...DEFAULT_SCRYPT, maxmem: 256 * 1024 * 1024 }),
      normalized: false,
    });
    const person = await personWith(asTyped);
    // As before: only the characters as they were typed then.
    expect(
      codeOf(await signIn(service, configuration, { email: person.email, password: composed })),
    ).toBeFalsy();
    expect(await storedHash(person.id)).toBe(asTyped);
    expect(
      codeOf(await signIn(service, configuration, { email: person.email, password: decomposed })),
    ).toBeTruthy();
    const rehashed = await storedHash(person.id);
    expect(parsePasswordHash(rehashed)).toMatchObject({ parameters: DEFAULT_SCRYPT, normalized: true });
    expect(
      codeOf(await signIn(service, configuration, { email: person.email, password: composed })),
    ).toBeTruthy();
  });
});

describe('a stored hash that decodes to nothing', () => {
  it('lets no password in, where the same record with its hash signs in', async () => {
    const valid = await hashPassword(PASSWORD, SCRYPT_FLOOR);
    const person = await personWith(valid);
    expect(codeOf(await signIn(service, configuration, { email: person.email }))).toBeTruthy();

    const emptied = valid.replace(/[^$]+$/, '=');
    await updateUserAttributes(service.organizationId, person.id, { passwordHash: emptied });
    for (const password of ['anything at all', PASSWORD]) {
      const refused = await signIn(service, configuration, { email: person.email, password });
      expect(refused.answer?.status).toBe(401);
      expect(refused.location).toBeUndefined();
    }
  });
});
