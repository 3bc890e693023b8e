import { describe, expect, it } from 'vitest';
import { derivedCommonPasswords, LIST_SIZE, passwordPrefixes } from '../../bin/generate-common-passwords.js';
import { COMMON_PASSWORD_PREFIXES } from '../../shared/domain/common-passwords.js';
import { samePassword } from '../../shared/domain/password-normalization.js';
import {
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
} from '../../shared/domain/password-policy.js';

describe('password policy', () => {
  it('accepts a long, uncommon password', () => {
    expect(passwordProblem('correct horse battery staple', 'ann@example.com')).toBeUndefined();
  });

  it.each([
    ['short1234', 'at least 12 characters'],
    ['x'.repeat(MAX_PASSWORD_LENGTH + 1), 'at most 1,024 characters'],
    ['Ann.Long.Name@Example.com', 'email address'],
    ['123456789012', 'most commonly used or breached'],
    ['QwertyuiopASDFGHJKL', 'most commonly used or breached'],
  ])('refuses %s (%s)', (password, reason) => {
    expect(passwordProblem(password, 'ann.long.name@example.com')).toContain(reason);
  });

  it.each([
    ['１２３４５６７８９０１２', 'most commonly used or breached'],
    ['Ａｎｎ．Ｌｏｎｇ．Ｎａｍｅ＠Ｅｘａｍｐｌｅ．ｃｏｍ', 'email address'],
    ['e\u0301'.repeat(6), 'at least 12 characters'],
  ])('judges %s as it is hashed, in NFKC (%s)', (password, reason) => {
    // Positive control: each is what the rules refuse once normalized, and differs as typed.
    expect(password.normalize('NFKC')).not.toBe(password);
    expect(passwordProblem(password, 'ann.long.name@example.com')).toContain(reason);
  });

  it('counts the most as typed: the sign-in form cuts what is typed there', () => {
    const decomposed = 'e\u0301'.repeat(MAX_PASSWORD_LENGTH / 2 + 1);
    expect([...decomposed.normalize('NFKC')].length).toBeLessThan(MAX_PASSWORD_LENGTH);
    expect(passwordProblem(decomposed, 'a@b.c')).toContain('at most');
  });

  it('takes a confirmation typed in another composition as the same password', () => {
    expect(samePassword('Crème brûlée à Zürich', 'Crème brûlée à Zürich'.normalize('NFD'))).toBe(true);
    expect(samePassword('Crème brûlée à Zürich', 'Creme brulee a Zurich')).toBe(false);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(passwordProblem('🔑'.repeat(MIN_PASSWORD_LENGTH), 'a@b.c')).toBeUndefined();
    expect(passwordProblem('🔑'.repeat(MIN_PASSWORD_LENGTH - 1), 'a@b.c')).toContain('at least');
  });

  it(`ships exactly the ${LIST_SIZE.toLocaleString('en')} most common passwords the length rule leaves`, () => {
    const passwords = derivedCommonPasswords(MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH);
    expect(passwords.length).toBeGreaterThan(400);
    expect(COMMON_PASSWORD_PREFIXES).toBe(passwordPrefixes(passwords));
    for (const password of passwords)
      expect(passwordProblem(password.toUpperCase(), 'a@b.c')).toContain('breached');
  });
});
