import fc from 'fast-check';
import {
  type FuzzContext,
  jsonText,
  type MalformedRequest,
  type Operation,
  pathOf,
  RawJson,
  requestOf,
  TOKEN_OPERATION,
  validBody,
  withKey,
} from './malformed-requests.js';
import {
  BROKEN_MULTIPART,
  DEEP_JSON,
  EXOTIC_STRINGS,
  forgedAuthorizations,
  INVALID_UTF8,
  PROTOTYPE_NAMES,
  percentEncoded,
  UNSTORABLE_NUMBERS,
  violatesParameter,
} from './nasty-inputs.js';

/**
 * The inputs that broke the service before, sent to every operation they apply to whatever the
 * seed draws; and the token endpoint's malformed form posts, fixed and generated.
 */

const TARGETED_PATH_IDS = ['%ZZ', '%', '%FF', '%C0%AE', '..', '%2e%2e', 'x'.repeat(5000), 'a%2Fb'];
const TARGETED_QUERIES = [
  'page=',
  'page=-1',
  'pageSize=0',
  'pageSize=1001',
  'page=abc',
  'page=0&page=1',
  'foo=1',
];
const FORGED_TOKEN_TARGETS = ['GET /idp/permissions', 'POST /idp/policies', 'DELETE /idp/roles/{id}'];

const isRecord = (op: Operation) =>
  Object.values(op.body?.properties ?? {}).some((p) => typeof p.additionalProperties === 'object');

/** A record property of the valid body set to `{[name]: value}`. */
const recordBody = (op: Operation, c: FuzzContext, name: string, value: unknown) => {
  const body = validBody(op.body ?? {}, c) as Record<string, unknown>;
  const [property = ''] = Object.entries(op.body?.properties ?? {})
    .filter(([, p]) => typeof p.additionalProperties === 'object')
    .map(([key]) => key);
  return jsonText(withKey(body, property, withKey({}, name, value)));
};

export const knownNastyRequests = (operations: Operation[], c: FuzzContext): MalformedRequest[] => {
  const json = operations.filter((op) => op.body);
  const objects = json.filter((op) => op.body?.type === 'object');
  return [
    ...json.flatMap((op) =>
      DEEP_JSON.map((body) =>
        requestOf(op, c, { kind: 'deep JSON', detail: 'body nested 10,000 levels', body }),
      ),
    ),
    ...objects.map((op) =>
      requestOf(op, c, {
        kind: 'unknown key',
        detail: 'body + "__proto__": {"isAdmin":true}',
        body: jsonText(withKey(validBody(op.body ?? {}, c), '__proto__', { isAdmin: true })),
      }),
    ),
    ...operations.filter(isRecord).flatMap((op) => [
      ...PROTOTYPE_NAMES.map((name) =>
        requestOf(op, c, {
          kind: 'prototype property name',
          detail: name,
          body: recordBody(op, c, name, 'x'),
        }),
      ),
      ...UNSTORABLE_NUMBERS.map((n) =>
        requestOf(op, c, {
          kind: 'unstorable number',
          detail: n,
          body: recordBody(op, c, 'n', new RawJson(n)),
        }),
      ),
    ]),
    ...operations
      .filter((op) => op.upload)
      .flatMap((op) =>
        BROKEN_MULTIPART.map(([contentType, body]) =>
          requestOf(op, c, {
            kind: 'broken multipart',
            detail: `${contentType} ${JSON.stringify(body)}`,
            contentType,
            body,
          }),
        ),
      ),
    ...json.map((op) =>
      requestOf(op, c, {
        kind: 'wrong content type',
        detail: 'multipart/form-data; boundary=x with "--x\\r\\n\\r\\n--x--\\r\\n"',
        contentType: 'multipart/form-data; boundary=x',
        body: '--x\r\n\r\n--x--\r\n',
      }),
    ),
    ...operations.flatMap((op) => {
      const [parameter] = op.pathParameters;
      if (!parameter) return [];
      return TARGETED_PATH_IDS.filter((raw) => violatesParameter(parameter.schema, raw)).map((raw) =>
        requestOf(op, c, {
          kind: 'bad path id',
          detail: `${parameter.name} = ${raw.length > 40 ? `${raw.length} chars` : raw}`,
          target: pathOf(op, c, { name: parameter.name, raw }),
        }),
      );
    }),
    ...operations
      .filter((op) => op.queryParameters.some((p) => p.name === 'page'))
      .flatMap((op) =>
        TARGETED_QUERIES.map((query) =>
          requestOf(op, c, {
            kind: query === 'foo=1' ? 'unknown query parameter' : 'bad query value',
            detail: `?${query}`,
            target: `${pathOf(op, c)}?${query}`,
          }),
        ),
      ),
    ...operations
      .filter((op) => FORGED_TOKEN_TARGETS.includes(`${op.method} ${op.template}`))
      .flatMap((op) =>
        forgedAuthorizations(c).map((authorization) =>
          requestOf(op, c, {
            kind: 'forged bearer token',
            detail: `Authorization: ${JSON.stringify(authorization.slice(0, 40))}`,
            headers: { authorization },
            expectedStatus: 401,
          }),
        ),
      ),
    ...fixedTokenRequests(c),
  ];
};

const FORM = 'application/x-www-form-urlencoded';
type Pair = [name: string, rawValue: string];

const credentialsOf = (c: FuzzContext): Pair[] => [
  ['grant_type', 'client_credentials'],
  ['client_id', encodeURIComponent(c.adminClientId)],
  ['client_secret', encodeURIComponent(c.adminClientSecret)],
];
const formOf = (pairs: Pair[]) => pairs.map(([name, value]) => `${name}=${value}`).join('&');

const tokenRequest = (
  kind: string,
  detail: string,
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': FORM },
): MalformedRequest => ({
  operation: TOKEN_OPERATION,
  kind,
  detail,
  target: TOKEN_OPERATION.template,
  headers,
  body,
  mustBeRefused: true,
});

/** RFC 6749 forbids repeated parameters (section 3.2) and more than one client authentication (2.3). */
export const fixedTokenRequests = (c: FuzzContext): MalformedRequest[] => {
  const valid = credentialsOf(c);
  const basic = `Basic ${Buffer.from(`${c.adminClientId}:${c.adminClientSecret}`).toString('base64')}`;
  return [
    ...valid.map(([name, value]) =>
      tokenRequest('duplicate parameter', name, formOf([...valid, [name, value]])),
    ),
    tokenRequest(
      'long client_id',
      '5,000 chars',
      formOf([...valid.slice(0, 1), ['client_id', 'x'.repeat(5000)], ...valid.slice(2)]),
    ),
    tokenRequest('huge form', '2 MB', formOf([...valid, ['padding', 'x'.repeat(2 * 1024 * 1024)]])),
    ...['text/plain', 'application/json', 'multipart/form-data; boundary=x'].map((type) =>
      tokenRequest('wrong content type', type, formOf(valid), { 'content-type': type }),
    ),
    tokenRequest('wrong content type', 'no content type', formOf(valid), {}),
    tokenRequest('two client authentications', 'Basic and client_secret', formOf(valid), {
      'content-type': FORM,
      authorization: basic,
    }),
  ];
};

const BAD_FORM_VALUES = [
  '',
  '%ZZ',
  '%',
  '%FF',
  '%C0%AE',
  'x'.repeat(5000),
  ...EXOTIC_STRINGS.filter((s) => s.length < 100).flatMap(percentEncoded),
];
const BAD_BASIC = [
  'Basic !!!',
  `Basic ${Buffer.from('no-colon').toString('base64')}`,
  'Basic ',
  `Basic ${'A'.repeat(10_000)}`,
];

/** One parameter of a valid form replaced, left out or broken; or a broken Basic header. */
export const malformedTokenRequest = (c: FuzzContext): fc.Arbitrary<MalformedRequest> => {
  const valid = credentialsOf(c);
  const replaced = (index: number, value: string) =>
    valid.map((pair, i): Pair => (i === index ? [pair[0], value] : pair));
  return fc.oneof(
    fc.constantFrom(...fixedTokenRequests(c)),
    fc
      .tuple(
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom(...BAD_FORM_VALUES, 'password', 'CLIENT_CREDENTIALS'),
      )
      .map(([index, value]) =>
        tokenRequest(
          'bad parameter value',
          `${valid[index]?.[0]}=${value.slice(0, 40)}`,
          formOf(replaced(index, value)),
        ),
      ),
    fc
      .integer({ min: 0, max: 2 })
      .map((index) =>
        tokenRequest(
          'missing parameter',
          `${valid[index]?.[0]}`,
          formOf(valid.filter((_, i) => i !== index)),
        ),
      ),
    fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom(...INVALID_UTF8)).map(([index, bytes]) => {
      const [before = '', after = ''] = formOf(replaced(index, 'MARK')).split('MARK');
      const body = Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]);
      return tokenRequest('invalid UTF-8', `${valid[index]?.[0]} = bytes ${bytes.toString('hex')}`, body);
    }),
    fc.constantFrom(...BAD_BASIC).map((authorization) =>
      tokenRequest('malformed Basic authentication', authorization.slice(0, 40), formOf(valid.slice(0, 1)), {
        'content-type': FORM,
        authorization,
      }),
    ),
  );
};
