import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '../api/route-definition.js';
import { isSecretField } from '../audit/changes.js';
import * as z from '../zod.js';
import { ApiError, badRequest, type ErrorDetail, notFound } from './errors.js';
import { requestState } from './request-state.js';

type Location = 'body' | 'query' | 'path';

const valueAt = (input: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (current, segment) =>
      current !== null && typeof current === 'object'
        ? (current as Record<PropertyKey, unknown>)[segment]
        : undefined,
    input,
  );

const fieldName = (location: Location, path: readonly PropertyKey[]): string =>
  [location, ...path.map(String)].join('.');

/**
 * Never echo what may be a secret back to the caller: a value under a name like a password, a
 * secret or a token (also a misspelt, unknown key such as `client_secret`; the audit log's rule,
 * `isSecretField`), an object or a list (one may hold a secret deeper down: a body wrapped once
 * too often), nor a whole body.
 */
const echoable = (path: readonly PropertyKey[], value: unknown): boolean =>
  path.length > 0 &&
  !path.some((segment) => isSecretField(String(segment))) &&
  (value === null || typeof value !== 'object');

/** One error detail per offending field (its first issue), named `body.foo`, `query.pageSize`, `path.id`. */
export const zodIssuesToDetails = (
  error: z.core.$ZodError,
  location: Location,
  input?: unknown,
  /** The input is secrets (`bodyIsSecret`): a refused value under any name, a typo's too, is not repeated. */
  secret = false,
): ErrorDetail[] => {
  const details = error.issues.flatMap((issue): ErrorDetail[] => {
    const paths =
      issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    return paths.map((path) => {
      const value = secret ? undefined : valueAt(input, path);
      const rejectedValue = echoable(path, value) ? value : undefined;
      return {
        message: issue.code === 'unrecognized_keys' ? 'Unrecognized key' : issue.message,
        field: fieldName(location, path),
        ...(rejectedValue === undefined ? {} : { rejectedValue }),
      };
    });
  });
  // A closed schema sent a megabyte of unknown keys has one issue naming each: linear, not a
  // search of the list for every key (which took half a minute of CPU for 110,000 keys).
  const seen = new Set<string | undefined>();
  return details.filter((detail) => !seen.has(detail.field) && seen.add(detail.field));
};

const EMPTY = z.strictObject({});
/**
 * A SCIM route without query parameters of its own ignores any it is sent: Microsoft Entra ID
 * adds a bare `?aadOptscim062020` to every request, writes and discovery included (docs/scim.md).
 */
const SCIM_IGNORED_QUERY = z.looseObject({});

const parse = (schema: z.ZodMiniType, input: unknown, location: Location, secret = false): unknown => {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw badRequest(`Invalid ${location === 'path' ? 'path parameter' : location}`, [
      ...zodIssuesToDetails(result.error, location, input, secret),
    ]);
  }
  return result.data;
};

/**
 * `?page=` says nothing: a parameter of the route named without a value is refused rather than
 * taken as absent. One the route does not name is refused by its closed schema, or ignored by an
 * open one (SCIM's: Entra ID adds a bare `?aadOptscim062020` to every request).
 */
const refuseEmptyQueryValues = (query: Record<string, string | undefined>, route: RouteDefinition) => {
  const named = route.request.query?.shape ?? {};
  const empty = Object.keys(query).filter((name) => query[name] === '' && name in named);
  if (empty.length > 0) {
    throw badRequest(
      'Invalid query',
      empty.map((name) => ({ message: 'Must not be empty', field: `query.${name}` })),
    );
  }
};

/**
 * A SCIM path names a resource: one whose id could not be stored names nothing, and is 404 like an
 * unknown one (RFC 7644 section 3.12), not a refusal of the request's syntax.
 */
const parsePath = (route: RouteDefinition, input: Record<string, string | undefined>): unknown => {
  try {
    return parse(route.request.path ?? EMPTY, input, 'path');
  } catch (error) {
    if (route.kind === 'scim' && error instanceof ApiError) throw notFound('Resource');
    throw error;
  }
};

/** Validates path, query and body against the route's closed schemas; stores the parsed values. */
export const validateRequest = (
  route: RouteDefinition,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error> => ({
  before: (request) => {
    const state = requestState(request);
    const event = request.event;
    refuseEmptyQueryValues(event.queryStringParameters ?? {}, route);
    state.input = {
      path: parsePath(route, event.pathParameters ?? {}),
      query: parse(
        route.request.query ?? (route.kind === 'scim' ? SCIM_IGNORED_QUERY : EMPTY),
        event.queryStringParameters ?? {},
        'query',
      ),
      body: route.request.body
        ? parse(route.request.body, event.body, 'body', route.bodyIsSecret === true)
        : undefined,
    };
  },
});
