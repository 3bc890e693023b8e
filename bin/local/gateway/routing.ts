/**
 * Route matching as API Gateway HTTP APIs do it, as pure functions: the local server routes with
 * them and the tests' OpenAPI validator finds a response's operation with them.
 *
 * API Gateway percent-decodes the request path (twice, as observed on live HTTP APIs: `%252F`
 * arrives as `/`), answers 400 when that fails, and then matches the decoded path segment by
 * segment; it does not resolve dot segments, so `..` is an ordinary segment value.
 */

export interface RouteTemplate {
  readonly method: string;
  readonly path: string;
}

export interface RouteMatch<R> {
  route: R;
  pathParameters: Record<string, string>;
}

const decodeOnce = (value: string): string | undefined => {
  try {
    return decodeURIComponent(value);
  } catch {
    // Malformed escapes (`%ZZ`, a lone `%`) and invalid UTF-8 (`%FF`, overlong `%C0%AE`).
    return undefined;
  }
};

/**
 * Splits a request target (`/a/b?x=1`, or absolute-form `http://host/a/b?x=1`) into the decoded
 * path and the raw query string; `undefined` when the path cannot be decoded (API Gateway: 400).
 */
export const parseRequestTarget = (
  target: string,
): { rawPath: string; rawQueryString: string } | undefined => {
  const withoutOrigin = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  const [encodedPath = '', ...query] = withoutOrigin.split('#')[0]?.split('?') ?? [];
  const once = decodeOnce(encodedPath);
  const twice = once === undefined ? undefined : decodeOnce(once);
  if (twice === undefined) return undefined;
  // A `?` that only decoding revealed ends the path there, as on API Gateway.
  return { rawPath: twice.split('?')[0] as string, rawQueryString: query.join('?') };
};

/** A path segment of a route: literal, `{name}`, or the greedy `{name+}` that takes the rest. */
type Segment = { literal: string } | { parameter: string; greedy: boolean };

const segmentsOf = (path: string): Segment[] =>
  path
    .split('/')
    .slice(1)
    .map((segment) => {
      const [, parameter, plus] = /^\{([^}+]+)(\+?)\}$/.exec(segment) ?? [];
      return parameter ? { parameter, greedy: plus === '+' } : { literal: segment };
    });

/** Literal before parameter before greedy parameter, at the first place two routes differ. */
const specificity = (segments: readonly Segment[]): string =>
  segments.map((segment) => ('literal' in segment ? '0' : segment.greedy ? '2' : '1')).join('');

export interface CompiledRoutes<R extends RouteTemplate> {
  match(method: string, rawPath: string): RouteMatch<R> | undefined;
  /** Some route has this path, whatever its method. */
  hasPath(rawPath: string): boolean;
}

export const compileRoutes = <R extends RouteTemplate>(routes: readonly R[]): CompiledRoutes<R> => {
  const compiled = routes
    .map((route) => ({ route, segments: segmentsOf(route.path) }))
    .sort((a, b) => specificity(a.segments).localeCompare(specificity(b.segments)));
  type Compiled = (typeof compiled)[number];
  const matchOne = ({ route, segments }: Compiled, parts: readonly string[]): RouteMatch<R> | undefined => {
    const last = segments.at(-1);
    const greedy = last !== undefined && 'greedy' in last && last.greedy;
    const fits = greedy ? parts.length >= segments.length : parts.length === segments.length;
    if (!fits) return undefined;
    const pathParameters: Record<string, string> = {};
    for (const [index, segment] of segments.entries()) {
      const part = segment === last && greedy ? parts.slice(index).join('/') : (parts[index] as string);
      if ('literal' in segment) {
        if (segment.literal !== part) return undefined;
      } else {
        if (part === '') return undefined;
        pathParameters[segment.parameter] = part;
      }
    }
    return { route, pathParameters };
  };
  const partsOf = (rawPath: string) => (rawPath.startsWith('/') ? rawPath.split('/').slice(1) : undefined);
  return {
    // The first route of the method that fits, in order of specificity; no list of all that fit.
    match: (method, rawPath) => {
      const parts = partsOf(rawPath);
      if (!parts) return undefined;
      for (const candidate of compiled) {
        if (candidate.route.method !== method) continue;
        const matched = matchOne(candidate, parts);
        if (matched) return matched;
      }
      return undefined;
    },
    hasPath: (rawPath) => {
      const parts = partsOf(rawPath);
      return parts !== undefined && compiled.some((candidate) => matchOne(candidate, parts) !== undefined);
    },
  };
};
