import {
  InvalidScimRemoveValue,
  ScimError as PatchLibraryError,
  type ScimPatchOperation,
  type ScimResource,
  scimPatch,
} from 'scim-patch';
import { filter as compiledFilter, type Filter, parse, stringify } from 'scim2-parse-filter';
import {
  invalidFilter,
  invalidPath,
  invalidSyntax,
  invalidValue,
  mutability,
  noTarget,
  ScimError,
} from './errors.js';
import { SCIM_SCHEMAS, type ScimResourceType } from './schema-ids.js';

export type ScimJson = Record<string, unknown>;

export const MAX_SCIM_PATCH_OPERATIONS = 100;
const MAX_PATH_LENGTH = 1000;

type Op = 'add' | 'replace' | 'remove';
/** One operation as scim-patch is given it: lower-case `op`, a canonical path, a normalised value. */
interface Operation {
  op: Op;
  path?: string;
  value?: unknown;
}

/**
 * Members added or removed by id, applied here as a set operation rather than by scim-patch, which
 * copies the whole resource for each removal and compares each added member with every member:
 * a PATCH adding or removing thousands of a large group's members would take longer than the
 * function may run.
 */
interface MemberSetOperation {
  op: 'add' | 'remove';
  memberIds: readonly string[];
}
type Normalised = Operation | MemberSetOperation;

/**
 * Applies a PATCH request body (RFC 7644 3.5.2, and the forms Microsoft Entra ID sends) to `resource`
 * (the SCIM JSON the server answers for it), answering the patched copy; never changes `resource`.
 * Throws ScimError 400 (invalidSyntax, invalidPath, invalidFilter for a path's filter, noTarget,
 * invalidValue).
 *
 * - All or nothing: an operation that fails throws, and nothing of the earlier ones is answered.
 * - Attribute names and schema URNs are case-insensitive (RFC 7644 3.10): the answer uses the
 *   schema's spelling for the attributes RFC 7643 defines.
 * - What the server owns (`id`, `meta`, `schemas`; for Users `groups` and the write-only `password`)
 *   is ignored silently: the answer keeps the resource's own values.
 * - A Group's answer always has `members`, each member once (by `value`); members the request adds
 *   are `{ value }` only.
 * - `remove` of a filter that matches nothing, or of a value from an absent attribute, changes nothing.
 */
export function applyScimPatch(resource: ScimJson, body: unknown, type: ScimResourceType): ScimJson {
  const requested = operationsOf(body);
  let patched = withMembersList(structuredClone(resource), type);
  requested.forEach((operation, index) => {
    const where = `Operations[${index}] (${operation.op}${operation.path === undefined ? '' : ` ${operation.path.slice(0, 200)}`})`;
    try {
      for (const normalised of normalisedOperations(operation, type, patched)) {
        patched =
          'memberIds' in normalised
            ? withMemberSet(patched, normalised)
            : withMembersList(appliedOperation(patched, normalised), type);
      }
    } catch (error) {
      throw error instanceof ScimError
        ? new ScimError(400, error.scimType, `${where}: ${error.message}`)
        : error;
    }
  });
  return finished(patched, resource, type);
}

/**
 * A Group's members as a list, even when empty: scim-patch refuses to filter or remove by value
 * in an absent attribute, and deletes the attribute when its last value goes.
 */
const withMembersList = (resource: ScimJson, type: ScimResourceType): ScimJson => {
  if (type === 'Group' && !Array.isArray(resource.members)) resource.members = [];
  return resource;
};

// ---- the request body ------------------------------------------------------------------------

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The operations of a PatchOp body, with their `op` lower-cased and an empty or null path as none. */
function operationsOf(body: unknown): Operation[] {
  if (!isPlainObject(body)) throw invalidSyntax('The body must be a SCIM PatchOp object');
  if (!Array.isArray(body.schemas) || !body.schemas.includes(SCIM_SCHEMAS.patchOp)) {
    throw invalidSyntax(`The body's schemas must include ${SCIM_SCHEMAS.patchOp}`);
  }
  const { Operations: operations } = body;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalidSyntax('The body must have Operations: a non-empty array');
  }
  if (operations.length > MAX_SCIM_PATCH_OPERATIONS) {
    throw invalidSyntax(`A PATCH request has at most ${MAX_SCIM_PATCH_OPERATIONS} operations`);
  }
  return operations.map((operation, index) => {
    const where = `Operations[${index}]`;
    if (!isPlainObject(operation)) throw invalidSyntax(`${where} must be an object`);
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw invalidSyntax(`${where}: op must be add, replace or remove`);
    }
    const { path, value } = operation;
    if (path !== undefined && path !== null && typeof path !== 'string') {
      throw invalidSyntax(`${where}: path must be a string`);
    }
    if (op !== 'remove' && value === undefined) throw invalidValue(`${where}: ${op} needs a value`);
    // A copy, so that no part of the body ends up shared with the answer.
    return {
      op,
      ...(typeof path === 'string' && path !== '' ? { path } : {}),
      value: structuredClone(value),
    };
  });
}

// ---- attribute names -------------------------------------------------------------------------

/** RFC 7643's attribute names (core User and Group, enterprise User, meta), by their lower-cased form. */
const CANONICAL_NAMES = new Map(
  [
    'id',
    'externalId',
    'meta',
    'schemas',
    'resourceType',
    'created',
    'lastModified',
    'location',
    'version',
    'userName',
    'name',
    'formatted',
    'familyName',
    'givenName',
    'middleName',
    'honorificPrefix',
    'honorificSuffix',
    'displayName',
    'nickName',
    'profileUrl',
    'title',
    'userType',
    'preferredLanguage',
    'locale',
    'timezone',
    'active',
    'password',
    'emails',
    'phoneNumbers',
    'ims',
    'photos',
    'addresses',
    'streetAddress',
    'locality',
    'region',
    'postalCode',
    'country',
    'groups',
    'entitlements',
    'roles',
    'x509Certificates',
    'value',
    'display',
    'type',
    'primary',
    '$ref',
    'members',
    'employeeNumber',
    'costCenter',
    'organization',
    'division',
    'department',
    'manager',
  ].map((name) => [name.toLowerCase(), name]),
);

const KNOWN_SCHEMAS = [SCIM_SCHEMAS.user, SCIM_SCHEMAS.group, SCIM_SCHEMAS.enterpriseUser];
const canonicalSchema = (urn: string): string =>
  KNOWN_SCHEMAS.find((known) => known.toLowerCase() === urn.toLowerCase()) ?? urn;
const coreSchemaOf = (type: ScimResourceType) => (type === 'User' ? SCIM_SCHEMAS.user : SCIM_SCHEMAS.group);
const SCHEMAS_OF: Record<ScimResourceType, readonly string[]> = {
  User: [SCIM_SCHEMAS.user, SCIM_SCHEMAS.enterpriseUser],
  Group: [SCIM_SCHEMAS.group],
};
/** One of RFC 7643's schemas that is not one of this resource type's (another URN is an extension we do not keep). */
const isForeignSchema = (schema: string, type: ScimResourceType) =>
  KNOWN_SCHEMAS.includes(schema as (typeof KNOWN_SCHEMAS)[number]) && !SCHEMAS_OF[type].includes(schema);

/** RFC 7643's single-valued complex attributes: `name`, and the enterprise `manager`. */
const isSingularComplex = ({ schema, attribute }: AttributePath, type: ScimResourceType) =>
  type === 'User' &&
  ((schema === undefined && attribute === 'name') ||
    (schema === SCIM_SCHEMAS.enterpriseUser && attribute === 'manager'));

/** What the server owns or never keeps: changes to them are ignored. */
const IGNORED: Record<ScimResourceType, readonly string[]> = {
  User: ['id', 'meta', 'schemas', 'groups', 'password'],
  Group: ['id', 'meta', 'schemas'],
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** RFC 7643 2.1's ATTRNAME, and `$ref`. */
const ATTRIBUTE_NAME = /^(?:[A-Za-z][\w-]*|\$ref)$/;

/**
 * An attribute name, in its schema's spelling. scim-patch walks and assigns paths through plain
 * property access, so a name Object.prototype has (`constructor`, `toString`, ...) would reach and
 * change objects every request shares: such names are refused.
 */
function canonicalName(name: string, path: string): string {
  if (!ATTRIBUTE_NAME.test(name)) throw invalidPath(`${JSON.stringify(path)} is not an attribute path`);
  const canonical = CANONICAL_NAMES.get(name.toLowerCase()) ?? name;
  if (canonical in Object.prototype || canonical === 'prototype') {
    throw invalidPath(`${JSON.stringify(name)} is not an attribute this server accepts`);
  }
  return canonical;
}

/** `[schema:]attribute[.subAttribute]` or `[schema:]attribute[filter][.subAttribute]`, RFC 7644 3.5.2's PATH. */
interface AttributePath {
  /** An extension's URN; absent for the resource's core schema. */
  schema?: string;
  attribute: string;
  filter?: string;
  subAttribute?: string;
}

function parsedPath(path: string, type: ScimResourceType, allowFilter: boolean): AttributePath {
  const malformed = (why: string) => invalidPath(`${JSON.stringify(path.slice(0, 200))} ${why}`);
  if (path.length > MAX_PATH_LENGTH) throw invalidPath(`A path has at most ${MAX_PATH_LENGTH} characters`);
  if (CONTROL_CHARACTER.test(path)) throw malformed('contains a control character');
  let head = path;
  let tail = '';
  let filter: string | undefined;
  const open = path.indexOf('[');
  if (open >= 0) {
    const close = path.lastIndexOf(']');
    if (!allowFilter) throw malformed('cannot have a filter here');
    if (close < open) throw malformed('has an unclosed [');
    head = path.slice(0, open);
    filter = path.slice(open + 1, close);
    tail = path.slice(close + 1);
    if (tail !== '' && !tail.startsWith('.'))
      throw malformed('has something other than .subAttribute after ]');
  }
  let schema: string | undefined;
  let names = head;
  if (/^urn:/i.test(head)) {
    const colon = head.lastIndexOf(':');
    schema = canonicalSchema(head.slice(0, colon));
    names = head.slice(colon + 1);
    if (schema === coreSchemaOf(type)) schema = undefined;
    else if (isForeignSchema(schema, type)) throw malformed(`names a schema a ${type} does not have`);
  }
  const segments = filter === undefined ? names.split('.') : [names, ...(tail === '' ? [] : [tail.slice(1)])];
  if (segments.length > 2) throw malformed('goes deeper than attribute.subAttribute');
  const [attribute = '', subAttribute] = segments.map((segment) => canonicalName(segment, path));
  if (filter !== undefined) filter = withCanonicalTypes(filter, checkedFilter(filter));
  return {
    ...(schema === undefined ? {} : { schema }),
    attribute,
    ...(filter === undefined ? {} : { filter }),
    ...(subAttribute === undefined ? {} : { subAttribute }),
  };
}

/** A path's filter, checked before scim-patch reads it (see filter.ts for the parser's limits). */
function checkedFilter(filter: string): Filter {
  // scim-patch finds a path's schema at its last ':', wherever it is.
  if (filter.includes(':')) throw invalidFilter(`A path's filter cannot contain ':'`);
  if (/\\(?!")/.test(filter))
    throw invalidFilter(`Of the escapes in a path's filter strings only \\" is supported`);
  try {
    return parse(filter);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : 'unreadable';
    throw invalidFilter(`The path's filter is not valid SCIM filter syntax (${reason})`);
  }
}

/** The values a `type` sub-attribute takes here (a Group member's, a User email's). */
const CANONICAL_TYPES = ['User', 'work'];

/**
 * A path's filter with its `type` values spelled as the resource spells them: RFC 7643 makes
 * `type` case-insensitive (caseExact false), but scim-patch compares strings exactly, so
 * `members[type eq "user"]` would match no member. The text is kept when nothing changes.
 */
function withCanonicalTypes(text: string, parsed: Filter): string {
  let changed = false;
  const canonical = (node: Filter): Filter => {
    switch (node.op) {
      case 'and':
      case 'or':
        return { ...node, filters: node.filters.map(canonical) };
      case 'not':
        return { ...node, filter: canonical(node.filter) };
      case '[]':
        return { ...node, valFilter: canonical(node.valFilter) };
      case 'pr':
        return node;
      default: {
        const { attrPath, compValue } = node;
        if (attrPath.toLowerCase() !== 'type' || typeof compValue !== 'string') return node;
        const spelled = CANONICAL_TYPES.find((type) => type.toLowerCase() === compValue.toLowerCase());
        if (spelled === undefined || spelled === compValue) return node;
        changed = true;
        return { ...node, compValue: spelled };
      }
    }
  };
  const rewritten = canonical(parsed);
  return changed ? stringify(rewritten) : text;
}

const pathText = ({ schema, attribute, filter, subAttribute }: AttributePath): string =>
  `${schema === undefined ? '' : `${schema}:`}${attribute}${filter === undefined ? '' : `[${filter}]`}${
    subAttribute === undefined ? '' : `.${subAttribute}`
  }`;

const isIgnored = (path: AttributePath, type: ScimResourceType) =>
  path.schema === undefined && IGNORED[type].includes(path.attribute);

// ---- normalisation ---------------------------------------------------------------------------

/** What one requested operation becomes: none, a member set operation, or operations for scim-patch. */
function normalisedOperations(operation: Operation, type: ScimResourceType, current: ScimJson): Normalised[] {
  const { op, path, value } = operation;
  if (path === undefined) {
    if (op === 'remove') throw noTarget('remove needs a path');
    return withoutPath(op, value, type);
  }
  const wholeSchema = KNOWN_SCHEMAS.find((urn) => urn.toLowerCase() === path.toLowerCase());
  if (wholeSchema !== undefined) return onWholeSchema(op, wholeSchema, value, type, current);

  const target = parsedPath(path, type, true);
  if (isIgnored(target, type)) return [];
  const canonical = pathText(target);
  const plainAttribute = target.schema === undefined && target.filter === undefined && !target.subAttribute;

  const members = type === 'Group' && plainAttribute && target.attribute === 'members';
  if (op === 'remove') {
    if (members && value != null) return [{ op, memberIds: memberIdsOf(value) }];
    const byValue = type === 'Group' ? memberNamedByFilter(target) : undefined;
    if (byValue !== undefined) return [{ op, memberIds: [byValue] }];
    if (target.filter !== undefined && matchedElements(current, target) === 0) return [];
    if (target.filter === undefined && value !== undefined && valueAt(current, target) === undefined)
      return [];
    return [value === undefined ? { op, path: canonical } : { op, path: canonical, value }];
  }

  // A member is added or removed, never changed in place (its `value` is immutable, RFC 7643
  // section 4.2): a replace of one would otherwise add whoever it names where the filter matched none.
  if (type === 'Group' && target.attribute === 'members' && target.subAttribute !== undefined) {
    throw mutability(`${JSON.stringify(path.slice(0, 200))}: members are added and removed, not changed`);
  }
  if (
    target.filter !== undefined &&
    target.subAttribute === undefined &&
    matchedElements(current, target) === 0
  ) {
    throw noTarget(`The filter of ${JSON.stringify(path.slice(0, 200))} matches nothing`);
  }
  if (target.filter === undefined) checkShape(current, target, value);
  let normalisedValue = isPlainObject(value) ? withCanonicalKeys(value, path) : value;
  if (type === 'User' && plainAttribute && target.attribute === 'active') normalisedValue = booleanOf(value);
  if (members && op === 'add') return [{ op, memberIds: memberIdsOf(value) }];
  if (members) normalisedValue = op === 'replace' && value === null ? [] : membersOf(value);
  return [{ op, path: canonical, value: normalisedValue }];
}

/** An add or replace without a path: its value is a set of attributes, each as if given a path. */
function withoutPath(op: Op, value: unknown, type: ScimResourceType): Operation[] {
  if (!isPlainObject(value))
    throw invalidValue(`${op} without a path needs an object of attributes as its value`);
  const attributes: Record<string, unknown> = {};
  for (const [target, attributeValue] of flattenedAttributes(value, type)) {
    if (isIgnored(target, type)) continue;
    const plainAttribute = target.schema === undefined && target.subAttribute === undefined;
    let normalised = attributeValue;
    if (type === 'User' && plainAttribute && target.attribute === 'active')
      normalised = booleanOf(attributeValue);
    if (type === 'Group' && plainAttribute && target.attribute === 'members') {
      normalised = op === 'replace' && attributeValue === null ? [] : membersOf(attributeValue);
    }
    attributes[pathText(target)] = normalised;
  }
  return Object.keys(attributes).length === 0 ? [] : [{ op, value: attributes }];
}

/**
 * A no-path value's attributes, each named by its path. A schema's object
 * (`{"urn:...:enterprise:2.0:User": {...}}`) is spread into its attributes, which scim-patch would
 * otherwise nest under a mangled key; the object of `name` or the enterprise `manager`
 * (`{"name": {"givenName": ...}}`) is spread into its sub-attributes, because RFC 7644 3.5.2
 * leaves the ones not given unchanged, where scim-patch would replace the whole object.
 */
function flattenedAttributes(
  value: Record<string, unknown>,
  type: ScimResourceType,
): [AttributePath, unknown][] {
  const attributes: [AttributePath, unknown][] = [];
  const spread = (key: string, nested: unknown) => {
    const target = parsedPath(key, type, false);
    if (target.subAttribute !== undefined || !isPlainObject(nested) || !isSingularComplex(target, type)) {
      attributes.push([target, nested]);
      return;
    }
    for (const [subKey, subValue] of Object.entries(nested)) {
      attributes.push([{ ...target, subAttribute: canonicalName(subKey, `${key}.${subKey}`) }, subValue]);
    }
  };
  for (const [key, nested] of Object.entries(value)) {
    const schema = KNOWN_SCHEMAS.find((urn) => urn.toLowerCase() === key.toLowerCase());
    if (schema === undefined) {
      spread(key, nested);
      continue;
    }
    if (!isPlainObject(nested)) throw invalidValue(`${schema} must be an object of its attributes`);
    const prefix = schema === coreSchemaOf(type) ? '' : `${schema}:`;
    for (const [attribute, attributeValue] of Object.entries(nested))
      spread(`${prefix}${attribute}`, attributeValue);
  }
  return attributes;
}

/** A path that is a schema's URN: its value is an object of that schema's attributes. */
function onWholeSchema(
  op: Op,
  schema: string,
  value: unknown,
  type: ScimResourceType,
  current: ScimJson,
): Operation[] {
  if (schema === coreSchemaOf(type)) {
    if (op === 'remove') throw invalidPath(`The core schema ${schema} cannot be removed`);
    return withoutPath(op, value, type);
  }
  if (isForeignSchema(schema, type)) throw invalidPath(`${schema} is not a schema of a ${type}`);
  if (op !== 'remove') {
    if (!isPlainObject(value)) throw invalidValue(`${schema} must be an object of its attributes`);
    return withoutPath(op, { [schema]: value }, type);
  }
  const extension = current[schema];
  return isPlainObject(extension)
    ? Object.keys(extension).map((attribute) => ({ op, path: `${schema}:${attribute}` }))
    : [];
}

/** An object value's keys, as attribute names in their schema's spelling (checked as names are). */
function withCanonicalKeys(value: Record<string, unknown>, path: string): Record<string, unknown> {
  const canonical: Record<string, unknown> = {};
  for (const [key, nested] of Object.entries(value)) {
    const names = key.split('.').map((name) => canonicalName(name, `${path} ${key}`));
    canonical[names.join('.')] = nested;
  }
  return canonical;
}

/** `active` as a boolean: Entra ID sends "True" and "False" strings. */
function booleanOf(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(?:true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue('active must be true or false');
}

const memberItems = (value: unknown): unknown[] => {
  if (Array.isArray(value)) return value;
  if (isPlainObject(value)) return [value];
  throw invalidValue('members must be a list of objects with a value');
};

/** Members as `{ value }` only: what else a directory sends (`display`, `$ref: null`) would defeat de-duplication. */
function membersOf(value: unknown): { value: string }[] {
  return memberItems(value).map((item) => {
    if (!isPlainObject(item) || typeof item.value !== 'string' || item.value === '') {
      throw invalidValue('Each member must be an object with a non-empty string value');
    }
    return { value: item.value };
  });
}

/** The ids of a members value list. */
const memberIdsOf = (value: unknown): string[] => membersOf(value).map(({ value: id }) => id);

/**
 * The member a `members[value eq "..."]` path names: the filter scim-patch would match as
 * `member.value === id` (attribute names case-insensitive, the value case-exact).
 */
function memberNamedByFilter(path: AttributePath): string | undefined {
  if (path.schema !== undefined || path.attribute !== 'members' || path.subAttribute !== undefined) return;
  if (path.filter === undefined) return;
  const filter = parse(path.filter);
  return filter.op === 'eq' &&
    filter.attrPath.toLowerCase() === 'value' &&
    typeof filter.compValue === 'string'
    ? filter.compValue
    : undefined;
}

const memberIdOf = (member: unknown) => (isPlainObject(member) ? member.value : member);

/**
 * A member set operation on the list of members, each pass once over it: added ids not yet members
 * join at the end as `{ value }`, removed ids go (an id that is no member changes nothing).
 */
function withMemberSet(resource: ScimJson, { op, memberIds }: MemberSetOperation): ScimJson {
  const members: unknown[] = Array.isArray(resource.members) ? resource.members : [];
  if (op === 'remove') {
    const removed = new Set(memberIds);
    resource.members = members.filter((member) => !removed.has(memberIdOf(member) as string));
    return resource;
  }
  const present = new Set(members.map(memberIdOf));
  const added: { value: string }[] = [];
  for (const id of memberIds) {
    if (present.has(id)) continue;
    present.add(id);
    added.push({ value: id });
  }
  resource.members = [...members, ...added];
  return resource;
}

// ---- the resource ----------------------------------------------------------------------------

const containerOf = (resource: ScimJson, path: AttributePath): unknown =>
  path.schema === undefined ? resource : resource[path.schema];

/** The value a path without a filter names, if any. */
function valueAt(resource: ScimJson, path: AttributePath): unknown {
  const container = containerOf(resource, path);
  if (!isPlainObject(container) || !Object.hasOwn(container, path.attribute)) return undefined;
  const attribute = container[path.attribute];
  if (path.subAttribute === undefined) return attribute;
  return isPlainObject(attribute) && Object.hasOwn(attribute, path.subAttribute)
    ? attribute[path.subAttribute]
    : undefined;
}

/**
 * What scim-patch answers with a TypeError or a bare "Invalid patch query": a sub-attribute of an
 * attribute that has none, or a complex attribute given something other than its sub-attributes.
 */
function checkShape(resource: ScimJson, path: AttributePath, value: unknown): void {
  const container = containerOf(resource, path);
  const attribute =
    isPlainObject(container) && Object.hasOwn(container, path.attribute)
      ? container[path.attribute]
      : undefined;
  if (path.subAttribute !== undefined) {
    if (attribute != null && typeof attribute !== 'object') {
      throw invalidPath(`${path.attribute} has no sub-attributes`);
    }
  } else if (isPlainObject(attribute) && value !== null && !isPlainObject(value)) {
    throw invalidValue(`${path.attribute} is complex: its value must be an object of its sub-attributes`);
  }
}

/** How many elements of the path's multi-valued attribute its filter matches, as scim-patch matches them. */
function matchedElements(resource: ScimJson, path: AttributePath): number {
  const container = containerOf(resource, path);
  const elements = isPlainObject(container) ? container[path.attribute] : undefined;
  if (!Array.isArray(elements) || path.filter === undefined) return 0;
  const matches = compiledFilter(parse(path.filter));
  return elements.filter((element) => matches(element)).length;
}

const PATCH_OPTIONS = { mutateDocument: false, treatMissingAsAdd: true };

/** One operation through scim-patch, on a copy (`mutateDocument: false`), its errors in SCIM's terms. */
function appliedOperation(resource: ScimJson, operation: Operation): ScimJson {
  try {
    // scim-patch types its resources as having `meta` and `schemas`; it reads neither.
    const patched = scimPatch(
      resource as unknown as ScimResource,
      [operation as ScimPatchOperation],
      PATCH_OPTIONS,
    );
    return patched as unknown as ScimJson;
  } catch (error) {
    if (!(error instanceof PatchLibraryError)) {
      // scim-patch lets some TypeErrors through (a sub-attribute of a string, say).
      throw invalidSyntax('The operation does not fit the attributes the resource has');
    }
    const reason = error.message.replace(/^Invalid SCIM (?:Patch|Remove Operation): /, '').slice(0, 300);
    if (error.scimCode === 'noTarget') throw noTarget(reason);
    if (error instanceof InvalidScimRemoveValue) throw invalidValue(reason);
    throw invalidSyntax(reason);
  }
}

/** The answer: the ignored attributes as the resource has them, and a Group's members listed once each. */
function finished(patched: ScimJson, original: ScimJson, type: ScimResourceType): ScimJson {
  for (const attribute of IGNORED[type]) {
    if (Object.hasOwn(original, attribute)) patched[attribute] = structuredClone(original[attribute]);
    else delete patched[attribute];
  }
  if (type === 'Group') {
    const members = Array.isArray(patched.members) ? patched.members : [];
    const seen = new Set<unknown>();
    patched.members = members.filter((member) => {
      const id = memberIdOf(member);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }
  return patched;
}
