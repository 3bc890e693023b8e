import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../shared/api/openapi.js';
import { ENDPOINT_GROUPS, routeKey } from '../../shared/api/route-definition.js';
import { ROUTES } from '../../shared/api/routes.js';
import { ALL_PERMISSION_IDS } from '../../shared/domain/permission-catalogue.js';

describe('route table', () => {
  it('has one entry per method and path, and a function file per group', () => {
    const keys = ROUTES.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const group of ENDPOINT_GROUPS) expect(existsSync(`functions/${group}.ts`), group).toBe(true);
  });

  it('describes every route, documented in the OpenAPI document or not (the type requires it)', () => {
    for (const route of ROUTES)
      expect(route.description.trim().length, route.operationId).toBeGreaterThan(20);
  });

  it('only requires permissions that exist in the catalogue', () => {
    for (const route of ROUTES) {
      for (const permission of route.permissions) expect(ALL_PERMISSION_IDS).toContain(permission);
    }
  });

  it('keeps management operations under /idp and OAuth endpoints at the root', () => {
    for (const route of ROUTES) {
      if (route.kind === 'management') expect(route.path.startsWith('/idp/')).toBe(true);
      if (route.group === 'oauth') expect(route.path.startsWith('/idp')).toBe(false);
    }
  });
});

describe('OpenAPI document', () => {
  const document = createOpenApiDocument('https://idp.example.com');

  it('is OpenAPI 3.0.0 titled IDP, version 1-core, under the Apache License 2.0', () => {
    expect(document.openapi).toBe('3.0.0');
    expect(document.info).toMatchObject({ title: 'IDP', version: '1-core' });
    // OpenAPI 3.0 names a license by URL; the LICENSE file at the root holds its text.
    expect(document.info.license).toEqual({
      name: 'Apache-2.0',
      url: 'https://www.apache.org/licenses/LICENSE-2.0',
    });
    expect(readFileSync('LICENSE', 'utf8')).toMatch(/^\s+Apache License\s+Version 2\.0, January 2004/);
    expect(document.servers).toEqual([{ url: 'https://idp.example.com/idp', 'x-internal': false }]);
  });

  it('lists every /idp route of the table but the one serving it, and no other', () => {
    const documented = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} /idp${path}`),
    );
    const expected = ROUTES.filter((route) => route.path.startsWith('/idp/'))
      .map(routeKey)
      .filter((key) => key !== 'GET /idp/openapi.json');
    expect(documented.sort()).toEqual(expected.sort());
    expect(document.info.description).toContain('served without authentication at GET /idp/openapi.json');
  });

  it('tags every operation with its endpoint group, and describes each operation and group', () => {
    type Operation = { operationId: string; tags?: string[]; description?: string };
    const operations = Object.values(document.paths ?? {}).flatMap(
      (item) => Object.values(item ?? {}) as Operation[],
    );
    expect(operations.length).toBeGreaterThan(70);
    const groupOf = new Map(ROUTES.map((route) => [route.operationId, route.group]));
    for (const operation of operations) {
      expect(operation.tags, operation.operationId).toEqual([groupOf.get(operation.operationId)]);
      expect(operation.description?.trim().length, operation.operationId).toBeGreaterThan(20);
    }
    const tags = document.tags ?? [];
    expect(tags.map((tag) => tag.name).sort()).toEqual(
      [...new Set(operations.flatMap((operation) => operation.tags ?? []))].sort(),
    );
    for (const tag of tags) expect(tag.description?.trim(), tag.name).toBeTruthy();
  });

  it('says in each description who may call the operation, from what the authorization checks', () => {
    const descriptionOf = (path: string, method: string) =>
      (document.paths as Record<string, Record<string, { description: string }>>)[path]?.[method]
        ?.description;
    expect(descriptionOf('/users', 'get')).toContain('The caller needs `USER.LIST`.');
    expect(descriptionOf('/users/{id}/picture', 'put')).toContain(
      'The user named by `id` may call it; anyone else needs `USER.UPDATE`.',
    );
    expect(descriptionOf('/users/{id}/changePassword', 'put')).toContain(
      'Only the user named by `id` may call it',
    );
    expect(descriptionOf('/me/ui-permissions', 'get')).toContain(
      'Any authenticated caller of the organization may call it.',
    );
    expect(descriptionOf('/userGroups/{id}/duplicate', 'post')).toContain(
      'The caller needs `USER_GROUP.ADD`, `USER_GROUP.READ`, `USER_ROLES.GRANT`, `USER_POLICIES.GRANT` and `USER_GROUP.GRANT`. Callers of user type RESTRICTED get 403.',
    );
  });

  it('names every component schema after the spec, so generated clients get meaningful types', () => {
    const names = Object.keys(document.components?.schemas ?? {});
    expect(names.filter((name) => !/^[A-Z][A-Za-z0-9]*$/.test(name))).toEqual([]);
    for (const name of [
      'User',
      'NewUserRequest',
      'UserGroup',
      'Role',
      'APIClientV2',
      'SSOProviderResponse',
      'Error',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('describes the headers, the upload and the binary answer a caller meets', () => {
    type Operation = {
      parameters?: { in: string; name: string }[];
      requestBody?: {
        content: Record<
          string,
          { schema: { properties?: Record<string, unknown> }; examples?: Record<string, unknown> }
        >;
      };
      responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
    };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    const operationAt = (path: string, method: 'get' | 'post' | 'put') => paths[path]?.[method] as Operation;
    const createUser = operationAt('/users', 'post');
    expect(createUser.responses['204']?.headers).toHaveProperty('Location');
    expect(createUser.parameters?.map((parameter) => `${parameter.in} ${parameter.name}`)).toContain(
      'header Idempotency-Key',
    );
    expect(operationAt('/users', 'get').responses['200']?.headers).toHaveProperty('Link');
    const upload = operationAt('/users/{id}/picture', 'put');
    expect(upload.requestBody?.content['multipart/form-data']?.schema.properties?.files).toMatchObject({
      type: 'string',
      format: 'binary',
    });
    expect(upload.requestBody?.content['multipart/form-data']?.examples?.picture).toMatchObject({
      value: { files: expect.any(String) },
      description: expect.stringContaining('-F files=@ada.png'),
    });
    expect(Object.keys(operationAt('/users/{id}/picture', 'get').responses['200']?.content ?? {})).toEqual([
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
    ]);
  });

  it('shows an example of every JSON request body, one its route accepts', () => {
    const schemas = (document.components?.schemas ?? {}) as Record<string, { example?: unknown }>;
    const withBodies = ROUTES.filter((route) => route.path.startsWith('/idp/') && route.request.body);
    expect(withBodies.length).toBeGreaterThan(20);
    for (const route of withBodies) {
      const operation = (document.paths as Record<string, Record<string, Record<string, unknown>>>)[
        route.path.slice('/idp'.length)
      ]?.[route.method.toLowerCase()] as {
        requestBody: { content: { 'application/json': { schema: { $ref?: string; example?: unknown } } } };
      };
      const schema = operation.requestBody.content['application/json'].schema;
      const example = schema.$ref ? schemas[schema.$ref.split('/').pop() as string]?.example : schema.example;
      expect(example, route.operationId).toBeDefined();
      expect(route.request.body?.safeParse(example).success, route.operationId).toBe(true);
    }
  });

  it('documents the required permissions and closed schemas', () => {
    const operation = document.paths?.['/permissions/{id}']?.get as Record<string, unknown>;
    expect(operation['x-idp-permissions']).toEqual(['PERMISSIONS.DETAILS']);
    const permission = document.components?.schemas?.Permission as { additionalProperties?: boolean };
    expect(permission.additionalProperties).toBe(false);
  });
});
