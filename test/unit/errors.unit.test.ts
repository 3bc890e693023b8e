import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { errorBody, toApiError } from '../../shared/http/error-mapping.js';
import { ApiError, notFound } from '../../shared/http/errors.js';
import { zodIssuesToDetails } from '../../shared/http/validation.js';

describe('error mapping', () => {
  it('hides unknown faults behind a bare 500', () => {
    const mapped = toApiError(new Error('connection string with password=hunter2'));
    expect(mapped.status).toBe(500);
    expect(mapped.message).not.toContain('hunter2');
    // Even an error that looks like an http error is not trusted to carry its own status.
    const lookalike = Object.assign(new Error('teapot'), { statusCode: 418, expose: true });
    expect(toApiError(lookalike)).toMatchObject({ status: 500, message: 'Internal server error' });
  });

  it('renders the one error shape', () => {
    expect(errorBody(notFound('Role'), 'req-1', 42)).toEqual({
      status: 404,
      error: 'Not Found',
      message: 'Role not found',
      requestId: 'req-1',
      timestamp: 42,
    });
    expect(
      errorBody(new ApiError(400, 'Invalid', [{ message: 'x', field: 'body.a' }]), 'r', 1).errorDetails,
    ).toEqual([{ message: 'x', field: 'body.a' }]);
  });

  it('names each offending field with its location', () => {
    const schema = z.strictObject({ name: z.string(), nested: z.strictObject({ count: z.number() }) });
    const input = { name: 3, nested: { count: 1, extra: true }, foo: 'bar' };
    const result = schema.safeParse(input);
    expect(result.success).toBe(false);
    const details = zodIssuesToDetails(result.error as z.ZodError, 'body', input);
    expect(details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'body.name', rejectedValue: 3 }),
        { message: 'Unrecognized key', field: 'body.nested.extra', rejectedValue: true },
        { message: 'Unrecognized key', field: 'body.foo', rejectedValue: 'bar' },
      ]),
    );
  });

  it('never echoes a value that may be a secret, nor a whole body', () => {
    const schema = z.strictObject({ clientSecret: z.string().min(1), password: z.string() });
    const input = {
      clientSecret: '',
      password: 42,
      client_secret: 'typo-secret',
      refresh_token: 'a-token',
      Passwd: 'kept',
    };
    const details = zodIssuesToDetails(schema.safeParse(input).error as z.ZodError, 'body', input);
    expect(details).toEqual([
      { message: expect.any(String), field: 'body.clientSecret' },
      { message: expect.any(String), field: 'body.password' },
      { message: 'Unrecognized key', field: 'body.client_secret' },
      { message: 'Unrecognized key', field: 'body.refresh_token' },
      { message: 'Unrecognized key', field: 'body.Passwd', rejectedValue: 'kept' },
    ]);
    const wholeBody = zodIssuesToDetails(
      schema.safeParse('a-secret').error as z.ZodError,
      'body',
      'a-secret',
    );
    expect(wholeBody).toEqual([{ message: expect.any(String), field: 'body' }]);
  });
});
