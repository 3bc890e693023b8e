import { JwtExpiredError, JwtInvalidAudienceError, JwtParseError } from 'aws-jwt-verify/error';
import { describe, expect, it } from 'vitest';
import { bearerChallenge, flattenClaim } from '../../bin/local/gateway/authorizer.js';
import { buildEvent, gatewayAnswer, responseOf } from '../../bin/local/gateway/payload.js';
import { compileRoutes, parseRequestTarget } from '../../bin/local/gateway/routing.js';

/** The local gateway's rules, held against what API Gateway HTTP APIs are documented or observed to do. */
describe('request target', () => {
  it('decodes the path twice, as observed on HTTP APIs, and keeps the raw query string', () => {
    expect(parseRequestTarget('/idp/users/a%20b?page=1&x=%2F')).toEqual({
      rawPath: '/idp/users/a b',
      rawQueryString: 'page=1&x=%2F',
    });
    expect(parseRequestTarget('/a/%252F')?.rawPath).toBe('/a//');
    expect(parseRequestTarget('/a/%CE%BB')?.rawPath).toBe('/a/λ');
  });

  it('keeps dot segments: they are ordinary segments, never resolved', () => {
    expect(parseRequestTarget('/idp/users/../policies/p1')?.rawPath).toBe('/idp/users/../policies/p1');
    expect(parseRequestTarget('/idp/users/%2e%2e/policies/p1')?.rawPath).toBe('/idp/users/../policies/p1');
  });

  it.each([
    '/idp/permissions/%ZZ',
    '/idp/permissions/%',
    '/idp/permissions/%FF',
    '/idp/permissions/%C0%AE',
    '/a/percent%25done',
  ])('refuses a path that cannot be decoded: %s', (target) => {
    expect(parseRequestTarget(target)).toBeUndefined();
  });

  it('ends the path at a ? that only decoding revealed, and reads absolute-form targets', () => {
    expect(parseRequestTarget('/capture/question%3Fvalue')?.rawPath).toBe('/capture/question');
    expect(parseRequestTarget('http://localhost:3000/idp/users?x=1')).toEqual({
      rawPath: '/idp/users',
      rawQueryString: 'x=1',
    });
  });
});

describe('route matching', () => {
  const routes = compileRoutes([
    { method: 'GET', path: '/idp/clients/{id}' },
    { method: 'GET', path: '/idp/clients/name' },
    { method: 'DELETE', path: '/idp/clients/{id}' },
    { method: 'DELETE', path: '/idp/users/{id}/policies/{policyId}' },
    { method: 'DELETE', path: '/idp/policies/{id}' },
  ]);

  it('prefers a literal segment over a path parameter, whatever the order of the table', () => {
    expect(routes.match('GET', '/idp/clients/name')?.route.path).toBe('/idp/clients/name');
    expect(routes.match('GET', '/idp/clients/c1')).toEqual({
      route: { method: 'GET', path: '/idp/clients/{id}' },
      pathParameters: { id: 'c1' },
    });
    expect(routes.match('DELETE', '/idp/clients/name')?.pathParameters).toEqual({ id: 'name' });
  });

  it('runs only the operation the raw path names: .. is a path parameter value', () => {
    expect(routes.match('DELETE', '/idp/users/../policies/p1')).toEqual({
      route: { method: 'DELETE', path: '/idp/users/{id}/policies/{policyId}' },
      pathParameters: { id: '..', policyId: 'p1' },
    });
  });

  it('matches neither another method, an empty segment nor a trailing slash', () => {
    expect(routes.match('POST', '/idp/clients/c1')).toBeUndefined();
    expect(routes.hasPath('/idp/clients/c1')).toBe(true);
    expect(routes.match('GET', '/idp/clients/')).toBeUndefined();
    expect(routes.match('GET', '/idp//clients/c1')).toBeUndefined();
    expect(routes.match('GET', 'idp/clients/c1')).toBeUndefined();
  });
});

describe('JWT authorizer refusal', () => {
  it('challenges a missing token without an error code (RFC 6750 section 3.1)', () => {
    expect(bearerChallenge(undefined)).toBe('Bearer');
  });

  it('describes failures from a fixed vocabulary, never with parser internals', () => {
    const garbage = bearerChallenge('abc.def.ghi', new JwtParseError('SyntaxError: Unexpected token'));
    expect(garbage).toBe('Bearer scope="" error="invalid_token" error_description="token is malformed"');
    expect(bearerChallenge('abc', new JwtParseError('x'))).toContain(
      'token contains an invalid number of segments',
    );
    expect(bearerChallenge('a.b.c', new JwtExpiredError('Token expired at 1', 1))).toContain(
      'token is expired',
    );
    expect(
      bearerChallenge('a.b.c', new JwtInvalidAudienceError('aud "x" not allowed', 'x', 'idp')),
    ).toContain('the token does not have a valid audience');
    expect(bearerChallenge('a.b.c', new Error('"quoted" internals'))).toContain(
      'error_description="token is invalid"',
    );
  });

  it('flattens array and object claims into strings, as API Gateway passes them', () => {
    expect(flattenClaim(['A.B', 'C.D'])).toBe('[A.B C.D]');
    expect(flattenClaim({ p: ['x'] })).toBe('map[p:[x]]');
    expect(flattenClaim(7)).toBe('7');
  });
});

describe('payload format 2.0', () => {
  const request = {
    method: 'PUT',
    rawPath: '/idp/users/u1',
    rawQueryString: 'a=1&a=2&b=&c=x+y',
    headers: { 'Content-Type': 'application/octet-stream', 'X-Twice': ['1', '2'], Cookie: 'a=1; b=2' },
    body: Buffer.from([0xff, 0x00]),
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  };
  const event = buildEvent(
    request,
    { routeKey: 'PUT /idp/users/{id}', pathParameters: { id: 'u1' } },
    { requestId: 'r1', now: new Date(1_000) },
  );

  it('lower-cases header names, joins repeats with commas and moves cookies to their own field', () => {
    expect(event.headers).toEqual({ 'content-type': 'application/octet-stream', 'x-twice': '1,2' });
    expect(event.cookies).toEqual(['a=1', 'b=2']);
  });

  it('joins repeated query parameters with commas and passes empty values as empty strings', () => {
    expect(event.queryStringParameters).toEqual({ a: '1,2', b: '', c: 'x y' });
    expect(event.rawQueryString).toBe('a=1&a=2&b=&c=x+y');
  });

  it('base64-encodes a binary body and carries the route, path parameters and arrival time', () => {
    expect(event).toMatchObject({
      body: '/wA=',
      isBase64Encoded: true,
      routeKey: 'PUT /idp/users/{id}',
      pathParameters: { id: 'u1' },
      requestContext: { requestId: 'r1', timeEpoch: 1_000, http: { method: 'PUT', path: '/idp/users/u1' } },
    });
  });

  it('turns a structured result into its response, cookies into set-cookie headers', () => {
    const response = responseOf({
      statusCode: 201,
      headers: { Location: '/x' },
      cookies: ['s=1; HttpOnly'],
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers).toEqual({
      'content-type': 'application/json',
      location: '/x',
      'set-cookie': ['s=1; HttpOnly'],
    });
    expect(response.body.toString()).toBe('{"a":1}');
    expect(responseOf({ statusCode: 200, body: 'AAE=', isBase64Encoded: true }).body).toEqual(
      Buffer.from([0, 1]),
    );
    expect(responseOf({ statusCode: 204 }).headers).toEqual({});
  });

  it('infers a 200 JSON response from a result without statusCode', () => {
    expect(responseOf({ ok: true } as never)).toMatchObject({
      status: 200,
      body: Buffer.from('{"ok":true}'),
    });
  });

  it("answers the gateway's own errors in its message shape", () => {
    expect(JSON.parse(gatewayAnswer(400, 'Bad Request').body.toString())).toEqual({ message: 'Bad Request' });
  });
});
