import { type Filter, parse } from 'scim2-parse-filter';
import { searchFold } from '../domain/user-search.js';
import { invalidFilter } from './errors.js';
import { SCIM_SCHEMAS, type ScimResourceType } from './schema-ids.js';

/** One equality a SCIM filter asks for. `emails.value` with `emailType` is `emails[type eq "<emailType>"].value`. */
export interface ScimCondition {
  attribute: 'id' | 'userName' | 'externalId' | 'emails.value' | 'displayName';
  value: string;
  emailType?: string; // lower-cased
}

/** What a condition is compared with: the resource as the server holds it. */
export interface ScimFilterView {
  id: string;
  userName?: string;
  externalId?: string;
  emails?: { value: string; type?: string }[];
  displayName?: string;
}

export const MAX_SCIM_FILTER_LENGTH = 1000;

type Attribute = ScimCondition['attribute'];

/** The attributes a filter may compare, by their lower-cased name (RFC 7644 3.10: names are case-insensitive). */
const FILTERABLE: Record<ScimResourceType, ReadonlyMap<string, Attribute>> = {
  User: new Map<string, Attribute>([
    ['id', 'id'],
    ['username', 'userName'],
    ['externalid', 'externalId'],
    ['emails.value', 'emails.value'],
  ]),
  Group: new Map<string, Attribute>([
    ['id', 'id'],
    ['displayname', 'displayName'],
    ['externalid', 'externalId'],
  ]),
};

const SUPPORTED: Record<ScimResourceType, string> = {
  User:
    'Users can be filtered with eq on userName, externalId, id, emails.value or emails[type eq "work"].value, ' +
    'each compared with a string in double quotes, joined by and',
  Group:
    'Groups can be filtered with eq on displayName, externalId or id, each compared with a string in double ' +
    'quotes, joined by and',
};

const refusal = (resource: ScimResourceType, reason: string) =>
  invalidFilter(`${reason}. ${SUPPORTED[resource]}.`);

/**
 * The conditions of a filter on `resource`, all of which must hold; throws ScimError 400
 * invalidFilter for anything else.
 */
export function parseScimFilter(resource: ScimResourceType, filter: string): ScimCondition[] {
  if (filter.trim() === '') throw refusal(resource, 'The filter is empty');
  if (filter.length > MAX_SCIM_FILTER_LENGTH) {
    throw refusal(resource, `The filter is longer than ${MAX_SCIM_FILTER_LENGTH} characters`);
  }
  // The parser's string pattern backtracks exponentially on line feeds in an unclosed string, and a
  // control character can never be valid there (filter values are JSON strings): refuse them first.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
  if (/[\u0000-\u001f\u007f]/.test(filter))
    throw refusal(resource, 'The filter contains a control character');
  // The parser decodes `\"` but keeps any other escape's backslash (and fails on `\\` before a closing
  // quote): a value it would read otherwise than JSON does is refused rather than misread.
  if (/\\(?!")/.test(filter)) throw refusal(resource, 'Of the escapes in strings only \\" is supported');
  let tree: Filter;
  try {
    tree = parse(filter);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : 'unreadable';
    throw refusal(resource, `The filter is not valid SCIM filter syntax (${reason})`);
  }
  const conditions: ScimCondition[] = [];
  const read = { valuePathSubAttributes: 0 };
  collectConditions(resource, tree, conditions, read);
  // The parser writes `emails[type eq "work"].value eq "x"` as an `and` of the bracket and
  // `emails.value eq "x"`, the same tree as the explicit `emails[type eq "work"] and emails.value eq "x"`,
  // which asks something else (any element of each kind): only the first spelling is accepted.
  if (read.valuePathSubAttributes > valuePathSubAttributesWritten(filter)) {
    throw refusal(resource, 'A bracket filter is supported only as emails[type eq "..."].value eq "..."');
  }
  return conditions;
}

/** How many times `].` (a bracket filter followed by a sub-attribute) appears outside quoted strings. */
const valuePathSubAttributesWritten = (filter: string): number =>
  filter.replace(/"(?:[^"\\]|\\.)*"/g, '""').split('].').length - 1;

function collectConditions(
  resource: ScimResourceType,
  node: Filter,
  into: ScimCondition[],
  read: { valuePathSubAttributes: number },
): void {
  switch (node.op) {
    case 'and': {
      const [bracket, compared] = node.filters;
      if (
        node.filters.length === 2 &&
        bracket?.op === '[]' &&
        compared !== undefined &&
        'attrPath' in compared &&
        compared.attrPath.startsWith(`${bracket.attrPath}.`)
      ) {
        if (compared.op !== 'eq')
          throw refusal(resource, `The operator ${quoted(compared.op)} is not supported`);
        into.push(emailOfType(resource, bracket, compared.attrPath, compared.compValue));
        read.valuePathSubAttributes += 1;
        return;
      }
      for (const each of node.filters) collectConditions(resource, each, into, read);
      return;
    }
    case 'eq': {
      const attribute = FILTERABLE[resource].get(withoutCoreSchema(resource, node.attrPath).toLowerCase());
      if (attribute === undefined) {
        throw refusal(resource, `The attribute ${quoted(node.attrPath)} cannot be filtered on`);
      }
      return void into.push({ attribute, value: stringOf(resource, node.attrPath, node.compValue) });
    }
    case '[]':
      throw refusal(resource, 'A bracket filter is supported only as emails[type eq "..."].value eq "..."');
    default:
      throw refusal(resource, `The operator ${quoted(node.op)} is not supported`);
  }
}

/** `emails[type eq "<type>"].value eq "<value>"`, as the parser writes it. */
function emailOfType(
  resource: ScimResourceType,
  bracket: { attrPath: string; valFilter: Filter },
  comparedPath: string,
  comparedValue: unknown,
): ScimCondition {
  const unsupported = () =>
    refusal(resource, 'A bracket filter is supported only as emails[type eq "..."].value eq "..."');
  const { attrPath: bracketPath, valFilter: bracketFilter } = bracket;
  const attribute = withoutCoreSchema(resource, bracketPath).toLowerCase();
  const subAttribute = withoutCoreSchema(resource, comparedPath).toLowerCase();
  if (resource !== 'User' || attribute !== 'emails' || subAttribute !== 'emails.value') throw unsupported();
  if (bracketFilter.op !== 'eq' || bracketFilter.attrPath.toLowerCase() !== 'type') throw unsupported();
  const emailType = stringOf(resource, bracketFilter.attrPath, bracketFilter.compValue);
  return {
    attribute: 'emails.value',
    value: stringOf(resource, comparedPath, comparedValue),
    emailType: searchFold(emailType),
  };
}

const withoutCoreSchema = (resource: ScimResourceType, attrPath: string): string => {
  const prefix = `${resource === 'User' ? SCIM_SCHEMAS.user : SCIM_SCHEMAS.group}:`;
  return attrPath.toLowerCase().startsWith(prefix.toLowerCase()) ? attrPath.slice(prefix.length) : attrPath;
};

const stringOf = (resource: ScimResourceType, attrPath: string, value: unknown): string => {
  if (typeof value !== 'string') {
    throw refusal(resource, `${quoted(attrPath)} is compared with ${JSON.stringify(value)}, not a string`);
  }
  return value;
};

const quoted = (text: string) => JSON.stringify(text.slice(0, 100));

/** RFC 7643: userName, emails and displayName compare case-insensitively; id and externalId exactly. */
export function matchesScimFilter(view: ScimFilterView, conditions: readonly ScimCondition[]): boolean {
  return conditions.every((condition) => matchesCondition(view, condition));
}

const sameFolded = (a: string | undefined, b: string) => a !== undefined && searchFold(a) === searchFold(b);

function matchesCondition(view: ScimFilterView, condition: ScimCondition): boolean {
  switch (condition.attribute) {
    case 'id':
      return view.id === condition.value;
    case 'externalId':
      return view.externalId === condition.value;
    case 'userName':
      return sameFolded(view.userName, condition.value);
    case 'displayName':
      return sameFolded(view.displayName, condition.value);
    case 'emails.value': {
      const { emailType } = condition;
      // Per element: one email must have both the type and the value.
      return (view.emails ?? []).some(
        (email) =>
          sameFolded(email.value, condition.value) &&
          (emailType === undefined || sameFolded(email.type, emailType)),
      );
    }
  }
}
