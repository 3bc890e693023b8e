import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_KEY_LENGTH } from '../http/idempotency-key.js';
import { errorBody } from '../schemas/error-body.js';
import * as z from '../zod.js';
import { ENDPOINT_GROUP_DESCRIPTIONS } from './endpoint-group-tags.js';
import { callersOf } from './operation-callers.js';
import { REQUEST_EXAMPLES } from './request-examples.js';
import { ENDPOINT_GROUPS, type RouteDefinition } from './route-definition.js';
import { middlewareOf } from './route-middleware.js';
import { openApiRoutes } from './routes/openapi.js';
import { ROUTES } from './routes.js';

export const API_BASE_PATH = '/idp';

/** Statuses every management operation can answer, whatever the route documents. */
const COMMON_MANAGEMENT_ERRORS = [401, 403, 429, 500];

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, malformed or expired bearer token',
  403: 'The token lacks a required permission or user type',
  404: 'Not found in the caller organization',
  409: 'Conflict with an existing resource',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Idempotency-Key reused with a different body',
  429: 'The organization exceeded its rate limit (or the API its overall throttle)',
  500: 'Server fault',
};

/**
 * What API Gateway itself answers, with a body that cannot be changed: 400 for a path it cannot
 * decode, its JWT authorizer's 401, 413 above its payload limit, 429 from the stage's throttle
 * (on every route) and 500 when a function fails outright.
 */
const gatewayErrorBody = z.withMeta(
  z.strictObject({ message: z.string().check(z.maxLength(64), z.regex(/^[A-Za-z ]+$/)) }),
  { id: 'GatewayError', description: 'Such as {"message":"Unauthorized"}' },
);
const GATEWAY_STATUSES = new Set([400, 401, 413, 429, 500]);

const errorResponse = (status: number) => ({
  description: ERROR_DESCRIPTIONS[status] ?? 'Error',
  content: {
    'application/json': {
      schema: GATEWAY_STATUSES.has(status) ? z.union([errorBody, gatewayErrorBody]) : errorBody,
    },
  },
});

/** The error statuses an operation can answer, from what its middleware does and what it declares. */
const errorStatusesOf = (route: RouteDefinition): number[] => {
  const uses = middlewareOf(route);
  const statuses = [
    // Every route is behind the stage's throttle and may fail: the gateway answers those itself.
    ...(uses.authenticated ? COMMON_MANAGEMENT_ERRORS : [429, 500]),
    ...(uses.validation ? [400] : []),
    // An id in the path may name nothing the caller can see.
    ...(route.path.includes('{') ? [404] : []),
    ...(route.errors ?? []),
    // A write may meet a concurrent one; a repeated Idempotency-Key may come with another body.
    ...(uses.authenticated && route.method !== 'GET' ? [409] : []),
    ...(uses.idempotency ? [422] : []),
    ...(uses.jsonBody ? [413, 415] : []),
  ];
  return [...new Set(statuses)].sort((a, b) => a - b);
};

const binary = { type: 'string' as const, format: 'binary' };

const URL_HEADER = { type: 'string' as const, format: 'uri', maxLength: 2048 };

/**
 * The headers an operation's answer carries: where it created something, the next page, and for
 * a browser application of the organization its origin (docs/sign-in.md, CORS).
 */
const responseHeaders = (route: RouteDefinition) => ({
  ...(route.response.location
    ? { Location: { description: 'The URL of the resource created', schema: URL_HEADER } }
    : {}),
  ...(route.request.query?.shape.page || route.request.query?.shape.cursor
    ? {
        Link: {
          description: 'RFC 8288: `<URL of the next page>; rel="next"` while more exist',
          schema: { type: 'string' as const, pattern: '^<[^>]+>; rel="next"$', maxLength: 2048 },
        },
      }
    : {}),
  ...(route.kind === 'management'
    ? {
        'Access-Control-Allow-Origin': {
          description:
            "The request's Origin, when it is a registered application's or an operator-allowed one; never `*`, never with credentials",
          schema: URL_HEADER,
        },
      }
    : {}),
});

const IDEMPOTENCY_KEY = z.withMeta(
  z.optional(
    z
      .string()
      .check(z.minLength(1), z.maxLength(MAX_IDEMPOTENCY_KEY_LENGTH), z.regex(IDEMPOTENCY_KEY_PATTERN)),
  ),
  {
    description:
      'Beyond the spec: a repeat with the same key, caller and body within 24 h answers the first response without applying the write again; the same key with another body is 422',
  },
);

/** A multipart upload as a caller sends it: binary cannot be written in JSON, so the example says it. */
const uploadExample = (route: RouteDefinition, field: string) => {
  const url = `$BASE${route.path.replace(/\{(\w+)\}/g, (_, name: string) => `$${name.toUpperCase()}`)}`;
  return {
    summary: 'A PNG picture',
    description: `What \`curl -X ${route.method} "${url}" -H "Authorization: Bearer $TOKEN" -F ${field}=@ada.png\` sends: one part named \`${field}\` holding the image file; its content decides the type, not its name or its part's Content-Type.`,
    value: { [field]: '<the bytes of ada.png>' },
  };
};

const requestBodyOf = (route: RouteDefinition) => {
  const upload = route.request.multipartFile;
  if (upload) {
    return {
      required: true,
      content: {
        'multipart/form-data': {
          examples: { picture: uploadExample(route, upload.field) },
          schema: {
            type: 'object' as const,
            required: [upload.field],
            properties: {
              [upload.field]: {
                ...binary,
                maxLength: upload.maxBytes,
                description: `The image, at most ${upload.maxBytes} bytes`,
              },
            },
          },
        },
      },
    };
  }
  return route.request.body
    ? { required: true, content: { 'application/json': { schema: route.request.body } } }
    : undefined;
};

const responseContentOf = (route: RouteDefinition) => {
  const image = route.response.binary;
  if (image) {
    const schema = { ...binary, maxLength: image.maxBytes };
    return { content: Object.fromEntries(image.types.map((type) => [type, { schema }])) };
  }
  return route.response.body ? { content: { 'application/json': { schema: route.response.body } } } : {};
};

const operation = (route: RouteDefinition): ZodOpenApiOperationObject => {
  const isManagement = route.kind === 'management';
  const requestBody = requestBodyOf(route);
  const headers = responseHeaders(route);
  return {
    operationId: route.operationId,
    tags: [route.group],
    summary: route.summary,
    description: `${route.description}\n\n${callersOf(route)}`,
    ...(route.extension ? { 'x-idp-extension': true } : {}),
    ...(isManagement
      ? {
          security: [{ bearer: [] }],
          ...(route.permissions.length > 0
            ? { 'x-idp-permissions': [...route.permissions], 'x-idp-user-types': [...route.userTypes] }
            : { 'x-idp-user-types': [...route.userTypes] }),
        }
      : // An empty requirement: anyone may call it (OpenAPI 3.0, 4.8.10.1).
        { security: [{}] }),
    requestParams: {
      ...(route.request.path ? { path: route.request.path } : {}),
      ...(route.request.query ? { query: route.request.query } : {}),
      ...(middlewareOf(route).idempotency
        ? { header: z.object({ 'Idempotency-Key': IDEMPOTENCY_KEY }) }
        : {}),
    },
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [route.response.status]: {
        description: route.response.description,
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        ...responseContentOf(route),
      },
      ...Object.fromEntries(errorStatusesOf(route).map((status) => [status, errorResponse(status)])),
    },
  };
};

const INT32_MAX = 2 ** 31 - 1;

/**
 * Every integer says how wide it is (OWASP API4: clients size their fields by it): int32 when
 * its bounds fit, int64 otherwise (epoch milliseconds). Done on the document rather than in the
 * schemas, which every function bundles.
 */
const withIntegerFormats = (node: unknown): void => {
  if (Array.isArray(node)) {
    for (const item of node) withIntegerFormats(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as { type?: unknown; format?: unknown; minimum?: number; maximum?: number };
  if (schema.type === 'integer' && schema.format === undefined) {
    const fits =
      (schema.maximum ?? Number.POSITIVE_INFINITY) <= INT32_MAX &&
      (schema.minimum ?? -INT32_MAX) >= -INT32_MAX - 1;
    schema.format = fits ? 'int32' : 'int64';
  }
  for (const value of Object.values(node)) withIntegerFormats(value);
};

/** The management API's OpenAPI 3.0.0 document, generated from the route table. */
export const createOpenApiDocument = (origin = '') => {
  const tokenUrl = `${origin}/oauth2/token`;
  const paths: ZodOpenApiPathsObject = {};
  // The document describes the API, not where it is served itself (info.description says that).
  const described = ROUTES.filter(
    (r) => r.path.startsWith(`${API_BASE_PATH}/`) && r !== openApiRoutes.getOpenApiDocument,
  );
  for (const route of described) {
    const path = route.path.slice(API_BASE_PATH.length);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  const document = createDocument(
    {
      openapi: '3.0.0',
      info: {
        title: 'IDP',
        version: '1-core',
        description: [
          'Identity and access management API. Obtain a token with the client credentials grant at /oauth2/token.',
          `This document is served without authentication at GET ${API_BASE_PATH}/openapi.json.`,
          'Rate limits: each organization may send its contracted requests per second (10 plus a burst of 10 unless agreed otherwise), counted over all of its clients; beyond that the API answers 429. As the specification says, answers carry no rate-limit headers (no RateLimit-* or X-RateLimit-*); a 429 of the service, and a 409 worth repeating (a write still in progress under the same Idempotency-Key, or one that met a concurrent change), carry `Retry-After: 1`. Callers retry 429 with exponential backoff and jitter (1 s first, doubling, at most 5 retries, 30 s cap).',
        ].join('\n\n'),
        // OpenAPI 3.0 names a license by URL (3.1 added the SPDX `identifier`).
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      },
      // Public: applications and other services of the customer call it.
      servers: [{ url: `${origin}${API_BASE_PATH}`, 'x-internal': false }],
      tags: ENDPOINT_GROUPS.filter((group) => described.some((route) => route.group === group)).map(
        (group) => ({ name: group, description: ENDPOINT_GROUP_DESCRIPTIONS[group] }),
      ),
      paths,
      components: {
        securitySchemes: {
          bearer: {
            type: 'oauth2',
            description:
              'Bearer access tokens are JWTs signed with ES256 (JWKS at /.well-known/jwks.json), following the JSON Web Token Best Current Practices of RFC8725: one algorithm, explicit typ, issuer and audience checked by the API Gateway authorizer; they expire after 3,600 s (client credentials) or 900 s (people).',
            // refreshUrl: where refresh tokens are redeemed (people's applications); a client
            // credentials caller gets a new token at the same URL when its token expires.
            flows: {
              clientCredentials: { tokenUrl, refreshUrl: tokenUrl, scopes: {} },
              authorizationCode: {
                authorizationUrl: `${origin}/oauth2/authorize`,
                tokenUrl,
                refreshUrl: tokenUrl,
                scopes: {},
              },
            },
          },
        },
      },
    },
    // Schemas without a spec name are written where they are used: extracted, they would be
    // components named `__schema0`..., meaningless in clients generated for other languages.
    { reused: 'inline' },
  );
  withIntegerFormats(document);
  for (const [name, example] of Object.entries(REQUEST_EXAMPLES)) {
    const schema = document.components?.schemas?.[name];
    if (schema && !('$ref' in schema)) schema.example = example;
  }
  return document;
};
