// The methods a path is served with, so that a wrong method answers 405 with `Allow` (RFC 9110 §15.5.6) instead of 404.

/** What is read of an Elysia route (`app.routes`). */
export interface RouteMethod {
  readonly method: string
  readonly path: string
}

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

/** The paths an Elysia route path (`/a/:id`, `/b/*`) serves, as a regular expression; a trailing slash is the same path. */
export function routePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${source}/?$`)
}

/**
 * `routes` is read on the first call, once every module has added its routes. Only requests that matched no route
 * get here, so the linear scan costs nothing on the request path. Elysia answers HEAD wherever GET is served.
 */
export function allowedMethodsOf(routes: () => readonly RouteMethod[]): (path: string) => string[] {
  let table: { pattern: RegExp; method: string }[] | undefined
  return function allowedMethods(path) {
    table ??= routes()
      .filter((route) => HTTP_METHODS.has(route.method))
      .map((route) => ({ pattern: routePattern(route.path), method: route.method }))
    const methods = new Set(table.filter((entry) => entry.pattern.test(path)).map((entry) => entry.method))
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods].sort()
  }
}
