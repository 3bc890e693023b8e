import type { FuzzContext, JsonSchema } from './malformed-requests.js';

/**
 * Inputs that broke services before: exotic and over-long strings, numbers DynamoDB cannot store,
 * deep JSON, broken multipart bodies, undecodable path segments. The fuzz test draws from them.
 */

/** At least `length` characters as JSON Schema's maxLength and zod count them: code points. */
const repeatTo = (piece: string, length: number) => piece.repeat(Math.ceil(length / [...piece].length));

/** Strings that broke parsers, key builders, logs and renderers elsewhere. */
export const EXOTIC_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFFx',
  '\u202Egnp.exe',
  '😀👨‍👩‍👧',
  '../../etc/passwd',
  '..',
  '%00',
  '%ZZ',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal placeholder is the point
  '${jndi:ldap://x/a}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal placeholder is the point
  '{{7*7}}${7*7}',
  '\'";--',
  '<script>alert(1)</script>',
  '\r\nX-Injected: 1',
  '\u200D\uFEFF',
  repeatTo('𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 12_000),
];
/** Longer than every maxLength of the document (8192 at most), in code points. */
export const LONG_STRINGS = ['x', '\u0000', '😀', 'ﷺ', '\u202E', '../'].map((piece) =>
  repeatTo(piece, 10_001),
);
/** Numbers DynamoDB cannot store (precision, magnitude) or JavaScript cannot keep. */
export const UNSTORABLE_NUMBERS = [
  '9007199254740993',
  '1e200',
  '1e-131',
  '123456789012345678901234567890123456789',
  '-1e200',
  '1E400',
];
export const DEEP_JSON = [
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
];
export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype'];
export const BROKEN_JSON = [
  '',
  ' ',
  '{',
  '{"a":}',
  '[1,]',
  "{'a':1}",
  'NaN',
  '{"a":"\\x"}',
  '{"a":1}{"b":2}',
  '\u0000',
];
/** Bytes that are not UTF-8: 0xFF, an overlong '.', a lone continuation, a truncated sequence, an encoded surrogate. */
export const INVALID_UTF8 = [[0xff], [0xc0, 0xae], [0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80]].map((b) =>
  Buffer.from(b),
);
export const BROKEN_MULTIPART: [contentType: string, body: string][] = [
  ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--\r\n'],
  ['multipart/form-data; boundary=x', '--x--\r\n'],
  ['multipart/form-data; boundary=x', 'garbage'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="files"\r\n\r\nabc'],
  [
    'multipart/form-data; boundary=x',
    '--y\r\nContent-Disposition: form-data; name="files"\r\n\r\nabc\r\n--y--\r\n',
  ],
  [
    'multipart/form-data; boundary=x',
    '--x\r\nContent-Disposition: form-data; name="other"\r\n\r\nabc\r\n--x--\r\n',
  ],
  [
    'multipart/form-data; boundary=x',
    '--x\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\n\r\nnot an image\r\n--x--\r\n',
  ],
  ['multipart/form-data', '--x\r\n\r\n--x--\r\n'],
  ['multipart/form-data; boundary=', '--\r\n\r\n----\r\n'],
];
export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  'text/json',
  'application/jsonp',
];

/** Percent-encoded UTF-8; none for a lone surrogate, which has no UTF-8 (`%ED%A0%80` stands for it). */
export const percentEncoded = (value: string): string[] => {
  try {
    return [encodeURIComponent(value)];
  } catch {
    return [];
  }
};
export const BAD_PATH_IDS = [
  '%ZZ',
  '%',
  '%FF',
  '%C0%AE',
  '%ED%A0%80',
  '..',
  '%2e%2e',
  '.',
  'x'.repeat(5000),
  'a%2Fb',
  '..%2F..',
  '%252F',
  '%25',
  '%00',
  'a%20b',
  // Short ones only: Node's server refuses request heads over 16 KiB (431) before the gateway sees them.
  ...EXOTIC_STRINGS.filter((s) => s.length < 100).flatMap(percentEncoded),
];

/** Authorization headers the JWT authorizer must refuse: forged, tampered, truncated, other schemes. */
export const forgedAuthorizations = (c: FuzzContext): string[] => {
  const [header = '', payload = '', signature = ''] = c.adminToken.split('.');
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const flipped = `${signature.slice(0, 20)}${signature[20] === 'A' ? 'B' : 'A'}${signature.slice(21)}`;
  return [
    'Bearer abc.def.ghi',
    'Bearer ',
    'Bearer',
    '',
    `Bearer ${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`,
    `Bearer ${header}.${encode({ ...claims, org: 'another-org' })}.${signature}`,
    `Bearer ${header}.${payload}.${flipped}`,
    `Bearer ${header}.${payload}`,
    `Bearer ${'a'.repeat(10_000)}`,
    `Bearer ${c.adminToken} ${c.adminToken}`,
    'Bearer %00',
    c.adminToken,
    `Basic ${Buffer.from(`${c.adminClientId}:${c.adminClientSecret}`).toString('base64')}`,
  ];
};

/** A path parameter the gateway cannot decode, or whose decoded value the parameter's schema refuses. */
export const violatesParameter = (schema: JsonSchema, raw: string): boolean => {
  let value: string;
  try {
    value = decodeURIComponent(decodeURIComponent(raw));
  } catch {
    return true;
  }
  // A decoded '?' ends the path on API Gateway: the rest of the id would simply be cut off.
  if (value.includes('?')) return false;
  if (value.includes('/') || value === '' || value.length > (schema.maxLength ?? Infinity)) return true;
  if (schema.enum) return !schema.enum.includes(value);
  return schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value);
};

export const UNKNOWN_QUERY_NAMES = [
  'foo',
  '__proto__',
  'constructor',
  'page',
  'pageSize',
  'fetchInactive',
  'v',
  'id',
];
export const QUERY_VALUES = [
  '1',
  '',
  '%ZZ',
  '%FF',
  '%C0%AE',
  ...EXOTIC_STRINGS.filter((s) => s.length < 100).flatMap(percentEncoded),
];

/** Values the parameter's schema refuses; repeated parameters arrive joined with commas ('0,0'). */
export const badQueryValues = (schema: JsonSchema, name: string): string[] => {
  if (schema.type === 'integer') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
    // Only values no reading of 'integer' accepts (no '1e3' or '0x10', which some parsers take).
    const candidates = ['', '-1', 'abc', '1.5', 'NaN', 'Infinity', '%00', '9007199254740993'];
    return [...candidates, `1${'0'.repeat(30)}`, String(max + 1), String(min - 1), `0&${name}=0`].filter(
      (v) => !(/^\d+$/.test(v) && Number(v) >= min && Number(v) <= max),
    );
  }
  if (schema.enum) return ['', 'yes', 'TRUE', '1', '%00', `false&${name}=false`];
  return [`${'x'.repeat((schema.maxLength ?? 4999) + 1)}`];
};
