import fc from 'fast-check';
import {
  type FuzzContext,
  type JsonSchema,
  jsonText,
  type MalformedRequest,
  type Operation,
  pathOf,
  preview,
  RawJson,
  replaceFirstString,
  requestOf,
  validBody,
  withKey,
} from './malformed-requests.js';
import {
  BAD_PATH_IDS,
  BROKEN_JSON,
  BROKEN_MULTIPART,
  badQueryValues,
  DEEP_JSON,
  EXOTIC_STRINGS,
  forgedAuthorizations,
  INVALID_UTF8,
  LONG_STRINGS,
  PROTOTYPE_NAMES,
  QUERY_VALUES,
  UNKNOWN_QUERY_NAMES,
  UNSTORABLE_NUMBERS,
  violatesParameter,
  WRONG_CONTENT_TYPES,
} from './nasty-inputs.js';

/**
 * fast-check arbitraries of malformed requests, one family per way an operation can be broken,
 * read from its OpenAPI parameters and request body schema. Every request they make is invalid
 * in at least one way the document or a documented rule forbids, so none may change data.
 */

interface Mutation {
  kind: string;
  detail: string;
  value: unknown;
}

const WRONG_VALUES: Record<string, unknown[]> = {
  string: [0, 1.5, true, null, [], {}, ['x'], { a: 'x' }],
  number: ['1', null, true, [], {}],
  integer: ['1', 1.5, null, true, [], {}],
  boolean: ['true', 0, null, [], {}],
  array: ['x', 0, true, null, {}, [[]], [null]],
  object: ['x', 0, true, null, [], [{}]],
};
const UNKNOWN_KEYS = [...PROTOTYPE_NAMES, 'foo', 'id', 'organizationId', 'isAdmin', ...EXOTIC_STRINGS];
const UNKNOWN_VALUES = ['x', 1, null, {}, { isAdmin: true }, ...EXOTIC_STRINGS.slice(0, 6)];

/** Numbers outside the schema's range, or that no JSON parser keeps exactly. */
const outOfRange = (schema: JsonSchema) =>
  [...UNSTORABLE_NUMBERS, '-1', '1.5'].filter((text) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n < (schema.minimum ?? -Infinity) || n > (schema.maximum ?? Infinity))
      return true;
    return schema.type === 'integer' && !Number.isInteger(n);
  });

/** Mutations of a valid `value` of `schema` that make it invalid, nested into properties and items. */
const mutationsOf = (
  schema: JsonSchema,
  value: unknown,
  c: FuzzContext,
  where: string,
  depth = 0,
): fc.Arbitrary<Mutation>[] => {
  const at = (kind: string, detail: string, mutated: unknown): Mutation => ({
    kind,
    detail: `${where} ${detail}`,
    value: mutated,
  });
  const type = schema.type ?? 'string';
  const wrong = [
    ...(WRONG_VALUES[type] ?? WRONG_VALUES.string ?? []),
    ...(schema.enum ? ['NOT_A_VALUE'] : []),
  ];
  const list = [
    fc.constantFrom(...wrong).map((v) => at('wrong JSON type', `= ${preview(v)}`, v)),
    fc.constantFrom(...DEEP_JSON).map((t) => at('deep JSON', 'nested 10,000 levels', new RawJson(t))),
    fc.constant(
      at('huge array', '= 10,000 items', new Array(10_000).fill(Array.isArray(value) ? value[0] : value)),
    ),
  ];
  if (type === 'string' && schema.maxLength !== undefined) {
    list.push(fc.constantFrom(...LONG_STRINGS).map((s) => at('long string', `= ${preview(s)}`, s)));
  }
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  if (pattern) {
    const exotic = EXOTIC_STRINGS.filter((s) => !pattern.test(s));
    list.push(fc.constantFrom(...exotic).map((s) => at('exotic string in an id', `= ${preview(s)}`, s)));
  }
  if (type === 'number' || type === 'integer') {
    const numbers = outOfRange(schema);
    list.push(fc.constantFrom(...numbers).map((n) => at('number out of range', `= ${n}`, new RawJson(n))));
  }
  if (type === 'array' && schema.items && depth < 3) {
    const item = (value as unknown[])[0];
    for (const inner of mutationsOf(schema.items, item, c, `${where}[0]`, depth + 1)) {
      list.push(inner.map((m) => ({ ...m, value: [m.value] })));
    }
  }
  if (type !== 'object' || depth >= 3) return list;
  const properties = Object.entries(schema.properties ?? {});
  if (typeof schema.additionalProperties === 'object') list.push(recordMutations(value, where));
  else if (schema.additionalProperties === false) {
    const keys = UNKNOWN_KEYS.filter((key) => !schema.properties?.[key]);
    list.push(
      fc
        .tuple(fc.constantFrom(...keys), fc.constantFrom(...UNKNOWN_VALUES))
        .map(([key, v]) => at('unknown key', `+ ${preview(key)}: ${preview(v)}`, withKey(value, key, v))),
    );
  }
  const required = schema.required ?? [];
  if (required.length > 0) {
    list.push(
      fc.constantFrom(...required).map((key) => {
        const { [key]: _missing, ...rest } = value as Record<string, unknown>;
        return at('missing required key', `- ${key}`, rest);
      }),
    );
  }
  if (properties.length > 0) {
    list.push(
      fc.constantFrom(...properties).chain(([name, property]) => {
        const current = (value as Record<string, unknown>)[name] ?? validBody(property, c, name);
        return fc
          .oneof(...mutationsOf(property, current, c, `${where}.${name}`, depth + 1))
          .map((m) => ({ ...m, value: withKey(value, name, m.value) }));
      }),
    );
  }
  return list;
};

/** Free-form maps (additional user properties): names and values the service must refuse. */
const recordMutations = (value: unknown, where: string): fc.Arbitrary<Mutation> =>
  fc.oneof(
    fc
      .tuple(fc.constantFrom(...PROTOTYPE_NAMES), fc.constantFrom<unknown>('x', {}, { isAdmin: true }))
      .map(([key, v]) => ({
        kind: 'prototype property name',
        detail: `${where}.${key} = ${preview(v)}`,
        value: withKey(value, key, v),
      })),
    fc.constantFrom(...UNSTORABLE_NUMBERS).map((n) => ({
      kind: 'unstorable number',
      detail: `${where}.n = ${n}`,
      value: withKey(value, 'n', new RawJson(n)),
    })),
    fc.constantFrom<unknown>(true, null, [], { a: 'x' }, ...LONG_STRINGS.slice(0, 2)).map((v) => ({
      kind: 'wrong JSON type',
      detail: `${where}.n = ${preview(v)}`,
      value: withKey(value, 'n', v),
    })),
    fc.constant({
      kind: 'huge object',
      detail: `${where} with 10,000 names`,
      value: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, 'x'])),
    }),
  );

/** Undecodable path segments, and values the parameter's schema refuses. */
const badPathId = (op: Operation, c: FuzzContext) =>
  fc.constantFrom(...op.pathParameters).chain((parameter) =>
    fc.constantFrom(...BAD_PATH_IDS.filter((raw) => violatesParameter(parameter.schema, raw))).map((raw) =>
      requestOf(op, c, {
        kind: 'bad path id',
        detail: `${parameter.name} = ${preview(raw)}`,
        target: pathOf(op, c, { name: parameter.name, raw }),
      }),
    ),
  );

/** Query parameters are a closed schema too; a static document (no security) may ignore them. */
const unknownQuery = (op: Operation, c: FuzzContext) =>
  fc
    .tuple(
      fc.constantFrom(
        ...UNKNOWN_QUERY_NAMES.filter((name) => !op.queryParameters.some((p) => p.name === name)),
      ),
      fc.constantFrom(...QUERY_VALUES),
    )
    .map(([name, value]) =>
      requestOf(op, c, {
        kind: 'unknown query parameter',
        detail: `?${name}=${preview(value)}`,
        target: `${pathOf(op, c)}?${name}=${value}`,
        mustBeRefused: op.secured,
      }),
    );

const badQueryValue = (op: Operation, c: FuzzContext) =>
  fc.constantFrom(...op.queryParameters).chain((parameter) =>
    fc.constantFrom(...badQueryValues(parameter.schema, parameter.name)).map((value) =>
      requestOf(op, c, {
        kind: 'bad query value',
        detail: `?${parameter.name}=${preview(value)}`,
        target: `${pathOf(op, c)}?${parameter.name}=${value}`,
      }),
    ),
  );

const bodyMutation = (op: Operation, c: FuzzContext) => {
  const schema = op.body as JsonSchema;
  return fc
    .oneof(...mutationsOf(schema, validBody(schema, c), c, 'body'))
    .map((m) => requestOf(op, c, { kind: m.kind, detail: m.detail, body: jsonText(m.value) }));
};

const malformedJson = (op: Operation, c: FuzzContext) =>
  fc
    .constantFrom(...BROKEN_JSON)
    .map((text) => requestOf(op, c, { kind: 'malformed JSON', detail: preview(text), body: text }));

/** JSON must be UTF-8 (RFC 8259, section 8.1): invalid bytes inside an otherwise valid body. */
const invalidUtf8 = (op: Operation, c: FuzzContext) =>
  fc.constantFrom(...INVALID_UTF8).map((bytes) => {
    const marker = 'FUZZ-INVALID-UTF8';
    const [body, replaced] = replaceFirstString(validBody(op.body as JsonSchema, c), marker);
    const [before = '', after = ''] = jsonText(replaced ? body : withKey(body, 'x', marker)).split(marker);
    return requestOf(op, c, {
      kind: 'invalid UTF-8',
      detail: `bytes ${bytes.toString('hex')} in a string`,
      body: Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]),
    });
  });

const wrongContentType = (op: Operation, c: FuzzContext) =>
  fc.constantFrom<string | undefined>(...WRONG_CONTENT_TYPES, undefined).map((contentType) =>
    requestOf(op, c, {
      kind: 'wrong content type',
      detail: contentType ?? 'no content type',
      contentType,
      ...(contentType?.startsWith('multipart/') ? { body: '--x\r\n\r\n--x--\r\n' } : {}),
      ...(op.upload ? { body: '{"files":"x"}' } : {}),
    }),
  );

const brokenMultipart = (op: Operation, c: FuzzContext) =>
  fc.constantFrom(...BROKEN_MULTIPART).map(([contentType, body]) =>
    requestOf(op, c, {
      kind: 'broken multipart',
      detail: `${contentType} ${preview(body)}`,
      contentType,
      body,
    }),
  );

const forgedToken = (op: Operation, c: FuzzContext) =>
  fc.constantFrom(...forgedAuthorizations(c)).map((authorization) =>
    requestOf(op, c, {
      kind: 'forged bearer token',
      detail: `Authorization: ${preview(authorization)}`,
      headers: { authorization },
      expectedStatus: 401,
    }),
  );

/** Bodies an operation that takes none ignores: they may not break it either. */
const IGNORED_BODIES: [string, string | Buffer][] = [
  ['application/json', DEEP_JSON[0] as string],
  ['application/json', '{'],
  ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--\r\n'],
  ['text/plain', INVALID_UTF8[0] as Buffer],
];

/** Every way to break this operation; now and then (1 in 4) a body it ignores on top. */
export const malformedRequest = (op: Operation, c: FuzzContext): fc.Arbitrary<MalformedRequest> => {
  const families = [
    unknownQuery(op, c),
    ...(op.pathParameters.length > 0 ? [badPathId(op, c)] : []),
    ...(op.queryParameters.length > 0 ? [badQueryValue(op, c)] : []),
    ...(op.body ? [bodyMutation(op, c), malformedJson(op, c), invalidUtf8(op, c)] : []),
    ...(op.body || op.upload ? [wrongContentType(op, c)] : []),
    ...(op.upload ? [brokenMultipart(op, c)] : []),
    ...(op.secured ? [forgedToken(op, c)] : []),
  ];
  return fc
    .tuple(
      fc.oneof(...families),
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, fc.constantFrom(...IGNORED_BODIES)),
    )
    .map(([request, ignored]) =>
      ignored && request.body === undefined
        ? {
            ...request,
            detail: `${request.detail} (ignored body ${preview(String(ignored[1]))})`,
            headers: { ...request.headers, 'content-type': ignored[0] },
            body: ignored[1],
          }
        : request,
    );
};
