import { config } from '../config.js';
import type { ParameterNames } from './route-definition.js';

/**
 * The absolute URL of a route, its parameters filled in (encoded) and an optional query: every
 * `Location` and `Link` the service writes starts at the public origin and names a real route.
 */
export const routeUrl = <Path extends string>(
  route: { readonly path: Path },
  parameters: Record<ParameterNames<Path>, string>,
  query?: URLSearchParams,
): string => {
  const path = route.path.replace(/\{([^}]+)\}/g, (_template, name: string) =>
    encodeURIComponent((parameters as Record<string, string>)[name] as string),
  );
  return `${config().publicOrigin}${path}${query && query.size > 0 ? `?${query}` : ''}`;
};
