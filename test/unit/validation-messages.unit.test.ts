import { describe, expect, it } from 'vitest';
import { usersRoutes } from '../../shared/api/routes/users.js';
import { zodIssuesToDetails } from '../../shared/http/validation.js';

// No classic Zod in this file: it installs English messages by itself, zod/mini does not
// (shared/zod.ts does).
describe('validation messages', () => {
  it('name the problem in English', () => {
    const body = { email: 'not-an-address', name: '', userType: 'OTHER', extra: 1 };
    const result = usersRoutes.createUser.request.body.safeParse(body);
    if (result.success) throw new Error('the body was accepted');
    expect(zodIssuesToDetails(result.error, 'body', body)).toEqual([
      { message: 'Invalid email address', field: 'body.email', rejectedValue: 'not-an-address' },
      { message: 'Too small: expected string to have >=1 characters', field: 'body.name', rejectedValue: '' },
      {
        message: 'Invalid option: expected one of "STANDARD"|"RESTRICTED"',
        field: 'body.userType',
        rejectedValue: 'OTHER',
      },
      { message: 'Unrecognized key', field: 'body.extra', rejectedValue: 1 },
    ]);
  });

  it('repeat no object or list (a secret may be inside), and nothing of a body that is secrets', () => {
    const body = {
      email: 'a@example.com',
      name: 'A',
      userType: 'STANDARD',
      extra: 1,
      wrapped: { clientSecret: 'inside' },
    };
    const result = usersRoutes.createUser.request.body.safeParse(body);
    if (result.success) throw new Error('the body was accepted');
    // Positive control: the unknown key's number is repeated; the object beside it is not.
    expect(zodIssuesToDetails(result.error, 'body', body)).toEqual([
      { message: 'Unrecognized key', field: 'body.extra', rejectedValue: 1 },
      { message: 'Unrecognized key', field: 'body.wrapped' },
    ]);
    expect(zodIssuesToDetails(result.error, 'body', body, true)).toEqual([
      { message: 'Unrecognized key', field: 'body.extra' },
      { message: 'Unrecognized key', field: 'body.wrapped' },
    ]);
  });

  it('name each of 250,000 unknown keys once, in one walk (a quadratic one took minutes: any caller could send them)', () => {
    const body: Record<string, unknown> = { name: 'A' };
    for (let index = 0; index < 250_000; index++) body[index.toString(36)] = 0;
    const result = usersRoutes.updateUser.request.body.safeParse(body);
    if (result.success) throw new Error('the body was accepted');
    const details = zodIssuesToDetails(result.error, 'body', body);
    expect(details).toHaveLength(250_000);
    expect(new Set(details.map((detail) => detail.field)).size).toBe(250_000);
    expect(details[0]).toEqual({ message: 'Unrecognized key', field: 'body.0', rejectedValue: 0 });
  });
});
