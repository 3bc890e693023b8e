import { ROUTES } from '../../shared/api/routes.js';

/**
 * The request model of the fuzz test (`test/e2e/fuzz.e2e.test.ts`): the operations of the served
 * OpenAPI document, valid values for everything a request does not break on purpose, the nasty
 * inputs, and builders that turn one malformation into one raw HTTP request.
 */

/** The subset of JSON Schema the OpenAPI document uses and the generators read. */
export interface JsonSchema {
  $ref?: string;
  allOf?: JsonSchema[];
  type?: string;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
}

interface Parameter {
  name: string;
  in: string;
  schema: JsonSchema;
}

export interface OpenApiDocument {
  servers: { url: string }[];
  paths: Record<
    string,
    Record<
      string,
      {
        security?: unknown[];
        parameters?: Parameter[];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
      }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface Operation {
  method: string;
  /** The full path template, `/idp/users/{id}` (or `/oauth2/token`). */
  template: string;
  secured: boolean;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  /** The JSON request body's schema, dereferenced. */
  body?: JsonSchema;
  /** Takes a multipart/form-data upload instead of JSON (the document does not say so; the route table does). */
  upload: boolean;
}

export interface MalformedRequest {
  operation: Operation;
  /** The kind of malformation (`bad path id`, `deep JSON`, …): failures are grouped by it. */
  kind: string;
  /** The exact input, for the report (`id = %ZZ`). */
  detail: string;
  /** The request target as sent: percent-encoding and dot segments untouched. */
  target: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The input breaks the document's schema or a documented rule, so not even a GET may succeed. */
  mustBeRefused: boolean;
  /** Forged tokens: the authorizer answers 401. */
  expectedStatus?: number;
}

/** Seeded data and credentials: valid values for whatever a request does not break on purpose. */
export interface FuzzContext {
  organizationId: string;
  adminToken: string;
  /** The seeded user's own token: only the user itself may change its password, checked before validation. */
  userToken: string;
  adminClientId: string;
  adminClientSecret: string;
  userId: string;
  groupId: string;
  roleId: string;
  roleName: string;
  policyId: string;
  clientId: string;
  pluginId: string;
  agreementId: string;
  ssoClientId: string;
  scimTokenId: string;
}

export const PLUGIN_PERMISSION = { module: 'REPORTS', actionName: 'EXPORT' };
export const TOKEN_OPERATION: Operation = {
  method: 'POST',
  template: '/oauth2/token',
  secured: false,
  pathParameters: [],
  queryParameters: [],
  upload: false,
};

const dereference = (
  schema: JsonSchema | undefined,
  all: Record<string, JsonSchema>,
  depth = 0,
): JsonSchema => {
  if (!schema || depth > 20) return {};
  if (schema.$ref) return dereference(all[schema.$ref.split('/').pop() as string], all, depth + 1);
  const { allOf, properties, items, additionalProperties, ...rest } = schema;
  const inner = (child: JsonSchema) => dereference(child, all, depth + 1);
  return {
    ...(allOf?.length === 1 ? inner(allOf[0] as JsonSchema) : {}),
    ...rest,
    ...(properties
      ? { properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, inner(v)])) }
      : {}),
    ...(items ? { items: inner(items) } : {}),
    ...(additionalProperties === undefined
      ? {}
      : {
          additionalProperties:
            typeof additionalProperties === 'object' ? inner(additionalProperties) : additionalProperties,
        }),
  };
};

/** Every operation of the document, its schemas dereferenced. */
export const operationsOf = (document: OpenApiDocument): Operation[] => {
  const all = document.components?.schemas ?? {};
  const basePath = new URL(document.servers[0]?.url ?? '/idp', 'http://x').pathname;
  const uploads = new Set(ROUTES.filter((r) => r.request.multipartFile).map((r) => `${r.method} ${r.path}`));
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = (operation.parameters ?? []).map((p) => ({
        ...p,
        schema: dereference(p.schema, all),
      }));
      const body = operation.requestBody?.content['application/json']?.schema;
      const template = `${basePath}${path}`;
      return {
        method: method.toUpperCase(),
        template,
        secured: (operation.security ?? []).length > 0,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        ...(body ? { body: dereference(body, all) } : {}),
        upload: uploads.has(`${method.toUpperCase()} ${template}`),
      };
    }),
  );
};

const validParameter = (operation: Operation, name: string, c: FuzzContext): string => {
  const byResource: Record<string, string> = {
    users: c.userId,
    userGroups: c.groupId,
    roles: c.roleId,
    policies: c.policyId,
    clients: c.clientId,
    permissions: 'USER.LIST',
    plugins: c.pluginId,
    organizations: c.organizationId,
    managedRoles: 'read-only',
    scimTokens: c.scimTokenId,
  };
  const byName: Record<string, string> = {
    userGroupId: c.groupId,
    policyId: c.policyId,
    roleId: 'read-only',
    roleName: c.roleName,
    type: 'STANDARD',
    pluginId: c.pluginId,
    agreementId: c.agreementId,
    clientId: c.ssoClientId,
    // Well formed; no passkey has it, so nothing the fuzz sends can remove one.
    passkeyId: 'a'.repeat(64),
  };
  const value = name === 'id' ? byResource[operation.template.split('/')[2] as string] : byName[name];
  if (value === undefined) throw new Error(`No valid value for ${name} of ${operation.template}`);
  return value;
};

/** The operation's path with valid values, except `broken` (raw, already encoded as it is to be sent). */
export const pathOf = (operation: Operation, c: FuzzContext, broken?: { name: string; raw: string }) =>
  operation.template.replace(/\{([^}]+)\}/g, (_match, name: string) =>
    name === broken?.name ? broken.raw : encodeURIComponent(validParameter(operation, name, c)),
  );

/** A body the operation accepts (seeded ids where it names things), so one change makes it invalid. */
export const validBody = (schema: JsonSchema, c: FuzzContext, name = ''): unknown => {
  const known: Record<string, unknown> = {
    permissions: ['USER.LIST'],
    permissionIds: ['USER.LIST'],
    roleId: c.roleId,
    policyId: c.policyId,
    managedRoleId: 'read-only',
    email: 'fuzz@example.com',
    ids: [c.userId],
  };
  if (name in known) return known[name];
  if (schema.enum) return schema.enum[0];
  if (schema.type === 'array') return [validBody(schema.items ?? {}, c)];
  if (schema.type === 'number' || schema.type === 'integer') return 1;
  if (schema.type !== 'object') return schema.pattern ? 'fuzz-1' : 'fuzz';
  if (schema.properties?.module && schema.properties.actionName) return { ...PLUGIN_PERMISSION };
  if (typeof schema.additionalProperties === 'object') return { fuzz: 'x' };
  return Object.fromEntries(
    (schema.required ?? []).map((key) => [key, validBody(schema.properties?.[key] ?? {}, c, key)]),
  );
};

/** A fragment of JSON text written as it is: numbers JSON.stringify cannot write, deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson fragments and own `__proto__` keys. */
export const jsonText = (value: unknown): string => {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
};

/** A copy of an object with one more key; works for `__proto__` too (an own property, not the prototype). */
export const withKey = (object: unknown, key: string, value: unknown) =>
  Object.fromEntries([...Object.entries(object as object), [key, value]]);

const tokenFor = (operation: Operation, c: FuzzContext) =>
  operation.template.endsWith('/changePassword') ? c.userToken : c.adminToken;

/**
 * A request of `operation` with valid parts (seeded ids, the valid JSON body, the admin token),
 * changed by `parts`; `contentType: undefined` sends no content type.
 */
export const requestOf = (
  operation: Operation,
  c: FuzzContext,
  parts: Partial<MalformedRequest> & { kind: string; detail: string; contentType?: string | undefined },
): MalformedRequest => {
  const defaults = operation.body
    ? { contentType: 'application/json', body: jsonText(validBody(operation.body, c)) }
    : {};
  const { contentType, headers, ...rest } = { ...defaults, ...parts };
  return {
    operation,
    target: pathOf(operation, c),
    mustBeRefused: true,
    ...rest,
    headers: {
      ...(operation.secured ? { authorization: `Bearer ${tokenFor(operation, c)}` } : {}),
      ...(contentType !== undefined ? { 'content-type': contentType } : {}),
      ...headers,
    },
  };
};

export const preview = (value: unknown): string => {
  const text = value instanceof RawJson ? value.text : typeof value === 'string' ? value : jsonText(value);
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  return text.length > 40 ? `${shown} (${text.length} chars)` : shown;
};

/** The first string of a value replaced, to carry bytes JSON.stringify cannot write. */
export const replaceFirstString = (value: unknown, marker: string): [unknown, boolean] => {
  if (typeof value === 'string') return [marker, true];
  if (value === null || typeof value !== 'object') return [value, false];
  const entries = Object.entries(value);
  for (const [index, [key, item]] of entries.entries()) {
    const [replaced, done] = replaceFirstString(item, marker);
    if (!done) continue;
    entries[index] = [key, replaced];
    return [Array.isArray(value) ? entries.map(([, v]) => v) : Object.fromEntries(entries), true];
  }
  return [value, false];
};
