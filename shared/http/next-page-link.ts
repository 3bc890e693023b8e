import { routeUrl } from '../api/route-url.js';

/**
 * `Link: <...>; rel="next"` for the page after `query.page` of a listing route, starting after the
 * entry `after` (the page's `nextAfter`) when the listing knows it.
 */
export const nextPageLink = (
  route: { readonly path: string },
  query: { page: number; pageSize: number; [flag: string]: number | boolean | undefined },
  after?: number,
) => {
  const next = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    // Flags that are off are the defaults: left out.
    if (value !== undefined && value !== false) next.set(name, String(value));
  }
  next.set('page', String(query.page + 1));
  if (after !== undefined) next.set('after', String(after));
  return { link: `<${routeUrl(route, {} as never, next)}>; rel="next"` };
};

/** `Link: <...>; rel="next"` for the page after a cursor-paged one: the same parameters, its `cursor`. */
export const nextCursorLink = (
  route: { readonly path: string },
  parameters: Record<string, string | number | undefined>,
  cursor: string,
) => {
  const next = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    if (value !== undefined) next.set(name, String(value));
  next.set('cursor', cursor);
  return { link: `<${routeUrl(route, {} as never, next)}>; rel="next"` };
};
