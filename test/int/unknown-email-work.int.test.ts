import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { reloadConfig } from '../../shared/config.js';
import { updateUserAttributes } from '../../shared/store/user-repository.js';
import { useDatabase } from '../support/database.js';
import {
  authorizationQuery,
  PASSWORD,
  PagesBrowser,
  personWithPassword,
  requestIdOf,
  signInSetup,
} from '../support/hosted-pages.js';
import { uniqueEmail } from '../support/records.js';

/**
 * docs/sign-in.md: "an unknown email costs the same password hashing as a wrong password". The
 * first unknown email an instance sees (deployed: every new Lambda instance's, which an attacker
 * makes many of by sending in parallel) must cost one scrypt derivation, as a known email's wrong
 * password does, not the making of the dummy hash and then its check: a slower answer would say
 * "no such account". Counted by replacing the password module (so this file keeps its own process:
 * its browser-sign-in module is fresh, without a dummy yet).
 */
const derivations = { hash: 0, verify: 0 };
vi.mock('../../shared/auth/passwords.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/auth/passwords.js')>();
  return {
    ...actual,
    hashPassword: (...args: Parameters<typeof actual.hashPassword>) => {
      derivations.hash++;
      return actual.hashPassword(...args);
    },
    verifyPassword: (...args: Parameters<typeof actual.verifyPassword>) => {
      derivations.verify++;
      return actual.verifyPassword(...args);
    },
  };
});

useDatabase();

let shared: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  shared = await signInSetup();
});

const attempt = async (email: string, pages = { authorize, submitSignIn }) => {
  const browser = new PagesBrowser();
  const request = requestIdOf(await browser.get(pages.authorize, authorizationQuery(shared.application.id)));
  derivations.hash = 0;
  derivations.verify = 0;
  const page = await browser.post(pages.submitSignIn, { request, email, password: `${PASSWORD} wrong` });
  expect(page.statusCode).toBe(401);
  return derivations.hash + derivations.verify;
};

describe('the work an unknown email costs', () => {
  it('the first unknown email of an instance costs what a known email with a wrong password costs', async () => {
    // The instance's first unknown email (this file keeps its own process: a fresh module).
    const unknown = await attempt(uniqueEmail('nobody'));
    const known = await attempt(shared.user.email);
    expect(known).toBe(1);
    expect(unknown).toBe(known);
  });

  it('later unknown emails cost one derivation too', async () => {
    expect(await attempt(uniqueEmail('nobody'))).toBe(1);
  });

  it('a wrong password against a hash written before passwords were normalized costs one, on a new instance too', async () => {
    // Today's parameters, hashed as typed (`scrypt$`): replaced at the next right password, but as
    // dear to check as a current hash, so a refusal waits out nothing (no second derivation).
    // Current parameters above the floor the other tests hash at, so that one can be cheaper.
    process.env.IDP_PASSWORD_SCRYPT_LOG2_N = '16';
    reloadConfig();
    onTestFinished(() => {
      process.env.IDP_PASSWORD_SCRYPT_LOG2_N = '15';
      reloadConfig();
    });
    const { hashPassword } = await import('../../shared/auth/passwords.js');
    const asTyped = (await hashPassword(PASSWORD)).replace(/^scrypt-nfkc\$/, 'scrypt$');
    const person = await personWithPassword(shared.organization.id);
    await updateUserAttributes(shared.organization.id, person.id, { passwordHash: asTyped });
    vi.resetModules();
    const fresh = await import('../../shared/auth/browser-sign-in.js');
    expect(await attempt(person.email, fresh)).toBe(1);
    // Positive control: a hash of weaker parameters is padded to a current check's cost, which a
    // new instance has not timed yet: a second derivation.
    const { SCRYPT_FLOOR } = await import('../../shared/auth/passwords.js');
    await updateUserAttributes(shared.organization.id, person.id, {
      passwordHash: await hashPassword(PASSWORD, { ...SCRYPT_FLOOR }),
    });
    vi.resetModules();
    expect(await attempt(person.email, await import('../../shared/auth/browser-sign-in.js'))).toBe(2);
  });
});
