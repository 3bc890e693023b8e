import { describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';

/**
 * JSON may spell half a surrogate pair (`"\udc00"`), which is not Unicode text: UTF-8 cannot hold
 * it, and the deployed table would refuse it (a 500) or replace it (two names made one), while
 * DynamoDB Local stores it as sent. Request bodies and user-search cursors holding one are refused
 * (shared/domain/unicode-text.ts).
 */
const service = useService();

const send = async (method: string, path: string, body?: string) => {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.admin.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, text };
};

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('half a surrogate pair', () => {
  it('is refused in a name, as a control character is', async () => {
    // Positive control: a whole pair (an emoji) is a name.
    expect((await send('POST', '/idp/roles', '{"name":"Role \\ud83d\\ude00","permissions":[]}')).status).toBe(
      204,
    );
    // The defence that exists: a control character is refused.
    expect((await send('POST', '/idp/roles', '{"name":"Role \\u0007","permissions":[]}')).status).toBe(400);
    // Half a pair, in a value or a name: refused.
    expect((await send('POST', '/idp/roles', '{"name":"Role","permissions":[],"\udc00":1}')).status).toBe(
      400,
    );
    const half = await send('POST', '/idp/roles', '{"name":"Role \\udc00","permissions":[]}');
    expect(half.status).toBe(400);
    expect(half.text).toContain('half a surrogate pair');
  });

  it('is refused in a user search cursor', async () => {
    await service.createUser({ name: 'Surrogate One' });
    await service.createUser({ name: 'Surrogate Two' });
    const first = await fetch(`${service.baseUrl}/idp/users/search?namePrefix=surrogate&limit=1`, {
      headers: { authorization: `Bearer ${service.admin.token}` },
    });
    expect(first.status).toBe(200);
    const link = first.headers.get('link') ?? '';
    const cursor = new URL(/<([^>]+)>/.exec(link)?.[1] ?? '').searchParams.get('cursor') ?? '';
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as {
      b: string;
      s: string;
      u: string;
    };
    // Positive control: the cursor the service wrote continues the search.
    expect(
      (await send('GET', `/idp/users/search?namePrefix=surrogate&limit=1&cursor=${cursor}`)).status,
    ).toBe(200);
    // A forged cursor whose sort value ends in half a pair goes to DynamoDB as an ExclusiveStartKey.
    const forged = cursorOf({ ...decoded, s: `${decoded.s}\udc00` });
    const answer = await send('GET', `/idp/users/search?namePrefix=surrogate&limit=1&cursor=${forged}`);
    expect(answer.status).toBe(400);
  });
});
