import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { AuditAction } from '../audit/actions.js';
import type { PermissionId } from '../domain/permission-catalogue.js';
import { identifier, MAX_PAGE_SIZE, pagingQuery } from '../schemas/common.js';
import * as z from '../zod.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
export type UserType = 'STANDARD' | 'RESTRICTED';
export const ALL_USER_TYPES: readonly UserType[] = ['STANDARD', 'RESTRICTED'];

/** One Lambda function per group; the CDK stack and the local server both read this. */
export const ENDPOINT_GROUPS = [
  'oauth',
  'openapi',
  'permissions',
  'organizations',
  'users',
  'user-pictures',
  'user-passwords',
  'user-groups',
  'roles',
  'policies',
  'clients',
  'sso',
  'signin',
  'accounts',
  'passkeys',
  'console',
  'federation',
  'cors',
  'audit',
  'scim-tokens',
  'scim',
] as const;
export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

/**
 * - `management`: an `/idp` operation behind the JWT authorizer, rate limited, permission checked.
 * - `public`: no token (the OpenAPI document, discovery documents, JWKS).
 * - `oauth`: the token endpoint; client authentication in the request, RFC 6749 error bodies.
 * - `page`: a hosted page people see in their browser (HTML, forms, cookies; no token yet).
 * - `preflight`: a browser's CORS preflight (`OPTIONS`), which carries no credentials.
 * - `scim`: SCIM 2.0 provisioning (RFC 7644) at `/scim/v2`: a directory's bearer secret or an OAuth
 *   token with `SCIM.PROVISION`, checked by the function; rate limited; SCIM's error shape.
 */
export type RouteKind = 'management' | 'public' | 'oauth' | 'page' | 'preflight' | 'scim';

export type ZodObjectSchema = z.ZodMiniObject<z.core.$ZodShape>;

export interface RouteDefinition {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Full path as API Gateway sees it, e.g. `/idp/permissions/{id}`. */
  readonly path: string;
  readonly group: EndpointGroup;
  readonly kind: RouteKind;
  readonly summary: string;
  /**
   * A sentence or two for callers, in the OpenAPI document and the typed client: what it does and
   * what is notable (idempotency, paging, 404 for another organization's ids). Who may call a
   * management operation is added from `permissions`, `subject` and `userTypes`.
   */
  readonly description: string;
  /** Every one of these is required. */
  readonly permissions: readonly PermissionId[];
  readonly userTypes: readonly UserType[];
  /**
   * Acting on `/{id}`: `self` lets only the principal with that id call it; `self-or-permissions`
   * lets that principal, or anyone holding `permissions`. Without it, `permissions` decide alone.
   */
  readonly subject?: 'self' | 'self-or-permissions';
  readonly request: {
    readonly path?: ZodObjectSchema;
    readonly query?: ZodObjectSchema;
    readonly body?: z.ZodMiniType;
    /** A multipart/form-data upload with one binary part of this name, instead of JSON. */
    readonly multipartFile?: { readonly field: string; readonly maxBytes: number };
  };
  readonly response: {
    readonly status: number;
    readonly description: string;
    readonly body?: z.ZodMiniType;
    /** The answer's `Location` header names the resource it created. */
    readonly location?: boolean;
    /** A binary answer of one of these media types, of at most `maxBytes`, instead of JSON. */
    readonly binary?: { readonly types: readonly string[]; readonly maxBytes: number };
    /**
     * A body field holding a secret that lives only in its owner's item: `Idempotency-Key`
     * records keep the response without it, and a replay reads it from the owner again.
     */
    readonly secretField?: string;
  };
  /** Error statuses this operation documents beyond the ones every management route has. */
  readonly errors?: readonly number[];
  /**
   * Repeating the request gives the same result by itself (uploads, setting a secret): no
   * `Idempotency-Key` records, which would keep (a hash of) the request body.
   */
  readonly idempotentByNature?: boolean;
  /**
   * The request body is secrets (passwords): no `Idempotency-Key` records either, as a record
   * would keep a fast hash of them (ASVS 2.4.1); a repeat runs again.
   */
  readonly bodyIsSecret?: boolean;
  /** Not in the specification; documented with `x-idp-extension`. */
  readonly extension?: boolean;
  /**
   * The audit actions a successful call records, each in the same write as its change; a refused
   * call (403, 404, 409, 422) records the first, `denied` or `failure`. Every route that is not a
   * GET names its actions (a test walks the table); `[]` for one that changes nothing.
   */
  readonly audit?: readonly AuditAction[];
}

/** A response without a body: 204 and what it means. */
export const noContent = (description: string) => ({ status: 204 as const, description });

/** A 200 response with a body. */
export const ok = <B extends z.ZodMiniType>(description: string, body: B) => ({
  status: 200 as const,
  description,
  body,
});

/** A listing paged by `page` and `pageSize`: one page of items; `Link rel="next"` while more exist. */
export const pagedListing = <B extends z.ZodMiniType>(items: string, body: B) => ({
  request: { query: pagingQuery },
  response: ok(
    `One page of ${items}; Link rel="next" while more exist`,
    z.array(body).check(z.maxLength(MAX_PAGE_SIZE)),
  ),
});

/** `METHOD /path`, as API Gateway writes a route key. */
export type RouteKey = `${HttpMethod} /${string}`;

/** A route as a route file writes it: its operationId is its key, its group the file's. */
export type RouteEntry = Omit<
  RouteDefinition,
  'operationId' | 'group' | 'kind' | 'userTypes' | 'permissions' | 'request' | 'method' | 'path'
> & {
  readonly route: RouteKey;
  /** @default 'management' */
  readonly kind?: RouteKind;
  /** @default every user type, or the group's */
  readonly userTypes?: readonly UserType[];
  /** @default none: any authenticated caller */
  readonly permissions?: readonly PermissionId[];
  /** @default no parameters and no body */
  readonly request?: RouteDefinition['request'];
};

/** The names of a path template's parameters: `/idp/users/{id}` -> `'id'`. */
export type ParameterNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParameterNames<Rest>
  : never;

/** Path parameters are ids unless a route says otherwise: letters, digits and `. _ : @ -`. */
type IdentifierPath<Path extends string> = [ParameterNames<Path>] extends [never]
  ? undefined
  : z.ZodMiniObject<{ [Name in ParameterNames<Path>]: typeof identifier }, z.core.$strict>;

const identifierPathOf = (path: string): ZodObjectSchema | undefined => {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  return names.length > 0
    ? z.strictObject(Object.fromEntries(names.map((name) => [name, identifier])))
    : undefined;
};

type RequestOf<E extends RouteEntry> = E extends { readonly request: infer Request }
  ? Request
  : Record<never, never>;

type MethodOf<Key extends RouteKey> = Key extends `${infer Method extends HttpMethod} ${string}`
  ? Method
  : never;
type PathOf<Key extends RouteKey> = Key extends `${HttpMethod} ${infer Path}` ? Path : never;

type CompletedRoute<G extends EndpointGroup, K extends string, E extends RouteEntry> = Omit<
  E,
  'request' | 'route'
> & {
  readonly method: MethodOf<E['route']>;
  readonly path: PathOf<E['route']>;
  readonly operationId: K;
  readonly group: G;
  readonly kind: E extends { readonly kind: infer Kind extends RouteKind } ? Kind : 'management';
  readonly userTypes: readonly UserType[];
  readonly permissions: readonly PermissionId[];
  readonly request: Omit<RequestOf<E>, 'path'> & {
    readonly path: RequestOf<E> extends { readonly path: infer Path }
      ? Path
      : IdentifierPath<PathOf<E['route']>>;
  };
};

/**
 * The routes of one endpoint group (one Lambda function), keyed by operationId: a function imports
 * its own group's routes only, and an operationId is written once, as the key. Unless a route says
 * otherwise it is a management route for every user type that needs no permission, and its path
 * parameters are ids.
 */
export const routeGroup =
  <G extends EndpointGroup>(group: G, defaults: { userTypes?: readonly UserType[] } = {}) =>
  <const T extends Record<string, RouteEntry>>(
    entries: T,
  ): { readonly [K in keyof T & string]: CompletedRoute<G, K, T[K]> } =>
    Object.fromEntries(
      Object.entries(entries).map(([operationId, { route, ...entry }]) => {
        const [method, path] = route.split(' ') as [HttpMethod, string];
        const pathSchema = entry.request?.path ?? identifierPathOf(path);
        return [
          operationId,
          {
            kind: 'management',
            userTypes: defaults.userTypes ?? ALL_USER_TYPES,
            permissions: [],
            ...entry,
            method,
            path,
            request: { ...entry.request, ...(pathSchema ? { path: pathSchema } : {}) },
            operationId,
            group,
          },
        ];
      }),
    ) as never;

type Infer<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

export interface RouteInput<R extends RouteDefinition> {
  path: Infer<R['request']['path']>;
  query: Infer<R['request']['query']>;
  body: Infer<R['request']['body']>;
}

export interface RouteResult<R extends RouteDefinition> {
  body?: R['response']['body'] extends z.ZodMiniType ? z.input<R['response']['body']> : never;
  headers?: Record<string, string>;
  /** A complete response, for the OAuth routes whose bodies follow RFC 6749/OIDC, not the table. */
  raw?: R['response']['body'] extends z.ZodMiniType ? never : APIGatewayProxyStructuredResultV2;
}

export const routeKey = (route: Pick<RouteDefinition, 'method' | 'path'>): string =>
  `${route.method} ${route.path}`;
