import { describe, expect, it } from 'vitest';
import { attemptedEmailActor, personActor, signInDetails } from '../../shared/auth/sign-in-audit.js';

describe('sign-in record details', () => {
  it('names an unknown email as typed, and leaves out what is not an email address (a password typed there)', () => {
    expect(attemptedEmailActor('  ann@example.com ')).toEqual({
      type: 'user',
      id: 'anonymous',
      name: 'ann@example.com',
    });
    for (const typed of [
      'Sunny-Meadow-4417!',
      'ann@example.com\r\nForged: line',
      `${'e'.repeat(250)}@example.com`,
      'ann @example.com',
    ])
      expect(attemptedEmailActor(typed)).toEqual({ type: 'user', id: 'anonymous' });
    expect(attemptedEmailActor('')).toEqual({ type: 'user', id: 'anonymous' });
    expect(attemptedEmailActor(undefined)).toEqual({ type: 'user', id: 'anonymous' });
  });

  it('names a known person by their email, and leaves out what is not known', () => {
    expect(personActor({ id: 'u1', email: 'ann@example.com' })).toEqual({
      type: 'user',
      id: 'u1',
      name: 'ann@example.com',
    });
    expect(personActor({ id: 'u1' })).toEqual({ type: 'user', id: 'u1' });
    expect(signInDetails(undefined, { amr: ['pwd'] })).toEqual({ amr: ['pwd'] });
    expect(signInDetails('app', { amr: ['fed'], provider: 'sso' })).toEqual({
      application: 'app',
      amr: ['fed'],
      provider: 'sso',
    });
  });
});
