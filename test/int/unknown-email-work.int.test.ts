import { beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { useDatabase } from '../support/database.js';
import {
  authorizationQuery,
  PASSWORD,
  PagesBrowser,
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

const attempt = async (email: string) => {
  const browser = new PagesBrowser();
  const request = requestIdOf(await browser.get(authorize, authorizationQuery(shared.application.id)));
  derivations.hash = 0;
  derivations.verify = 0;
  const page = await browser.post(submitSignIn, { request, email, password: `${PASSWORD} wrong` });
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
});
