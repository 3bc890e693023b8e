/**
 * What a change did to a resource, field by field, as an audit record keeps it: `{from, to}` for
 * each field whose value differs, and only the word `"changed"` for a field that holds a secret,
 * so no password, secret, code or token ever reaches a record (or the stream, or a digest).
 */
export type FieldChange = { from: unknown; to: unknown } | 'changed';
export type Changes = Record<string, FieldChange>;

/**
 * Fields whose values are never recorded: a password or its hash, a client or TOTP secret, a
 * recovery code, a token. Matched on the name, so a field added later with such a name is
 * redacted too.
 */
const SECRET_NAME =
  /secret|password|passphrase|hash|digest|token|recovery|totp|otp|credential|privatekey|salt/i;
/** Settings whose names say "token" but hold none: how tokens are made, which a record should show. */
const TOKEN_SETTINGS = new Set(['idTokenSignedResponseAlg', 'tokenEndpointAuthMethod']);

export const isSecretField = (field: string): boolean =>
  SECRET_NAME.test(field) && !TOKEN_SETTINGS.has(field);

/** Fields that describe the item rather than the resource: keys, versions, timestamps. */
const BOOKKEEPING = new Set([
  'pk',
  'sk',
  'gsi1pk',
  'gsi1sk',
  'lsi1sk',
  'version',
  'updatedAt',
  'expiresAt',
  'entity',
]);

/** Sets (as DynamoDB string sets decode) become sorted lists, which JSON can hold. */
const plain = (value: unknown): unknown => (value instanceof Set ? [...value].map(String).sort() : value);

const canonical = (value: unknown): string =>
  JSON.stringify(plain(value), (_key, inner: unknown) => {
    const value = plain(inner);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value;
  }) ?? 'undefined';

/**
 * A value as a record shows it: sets as sorted lists, and a secret-named field at any depth (a
 * provider's `clientSecret` inside its settings) only as `"changed"`.
 */
const shown = (value: unknown): unknown => {
  const inner = plain(value);
  if (Array.isArray(inner)) return inner.map(shown);
  if (!inner || typeof inner !== 'object') return inner;
  return Object.fromEntries(
    Object.entries(inner).map(([field, nested]) => [field, isSecretField(field) ? 'changed' : shown(nested)]),
  );
};

/**
 * The fields that differ between `before` and `after` (either may be absent: a creation, a
 * deletion). Values are compared by content, not identity, so a list rewritten with the same
 * entries is no change.
 */
export const changesBetween = (
  before: Readonly<Record<string, unknown>> | undefined,
  after: Readonly<Record<string, unknown>> | undefined,
): Changes => {
  const changes: Changes = {};
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of [...fields].sort()) {
    if (BOOKKEEPING.has(field)) continue;
    const from = plain(before?.[field]);
    const to = plain(after?.[field]);
    if (canonical(from) === canonical(to)) continue;
    changes[field] = isSecretField(field) ? 'changed' : { from: shown(from) ?? null, to: shown(to) ?? null };
  }
  return changes;
};
