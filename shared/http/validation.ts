import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type ZodError, z } from 'zod';
import type { RouteDefinition } from '../api/route-definition.js';
import { badRequest, type ErrorDetail } from './errors.js';
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

/** One error detail per offending field (its first issue), named `body.foo`, `query.pageSize`, `path.id`. */
export const zodIssuesToDetails = (error: ZodError, location: Location, input?: unknown): ErrorDetail[] => {
  const details = error.issues.flatMap((issue): ErrorDetail[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((unknownKey) => ({
        message: 'Unrecognized key',
        field: fieldName(location, [...issue.path, unknownKey]),
        rejectedValue: valueAt(input, [...issue.path, unknownKey]),
      }));
    }
    // Never echo what may be a secret (passwords, client secrets) back to the caller.
    const isSecret = issue.path.some((segment) => /password|secret/i.test(String(segment)));
    const rejectedValue = isSecret ? undefined : valueAt(input, issue.path);
    return [
      {
        message: issue.message,
        field: fieldName(location, issue.path),
        ...(rejectedValue === undefined ? {} : { rejectedValue }),
      },
    ];
  });
  return details.filter(
    (detail, index) => details.findIndex((other) => other.field === detail.field) === index,
  );
};

const EMPTY = z.strictObject({});

const parse = (schema: z.ZodType, input: unknown, location: Location): unknown => {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw badRequest(`Invalid ${location === 'path' ? 'path parameter' : location}`, [
      ...zodIssuesToDetails(result.error, location, input),
    ]);
  }
  return result.data;
};

/** Validates path, query and body against the route's closed schemas; stores the parsed values. */
export const validateRequest = (
  route: RouteDefinition,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error> => ({
  before: (request) => {
    const state = requestState(request);
    const event = request.event;
    state.input = {
      path: parse(route.request.path ?? EMPTY, event.pathParameters ?? {}, 'path'),
      query: parse(route.request.query ?? EMPTY, event.queryStringParameters ?? {}, 'query'),
      body: route.request.body ? parse(route.request.body, event.body, 'body') : undefined,
    };
  },
});
