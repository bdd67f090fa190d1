// Which routes take multipart/form-data: those whose body schema has a file (the OpenAPI document says the same).
import { routePattern } from './allowed-methods.ts'
import { isMultipartBody } from './openapi-schema.ts'

/** What is read of an Elysia route (`app.routes`). */
export interface RouteBody {
  readonly method: string
  readonly path: string
  readonly hooks: { readonly body?: unknown }
}

/**
 * `/a/` and `/a` are one route to the router, so they are one path here too. `routes` is read on the first call, once
 * every module has added its routes; only multipart requests ask, so the other requests pay nothing.
 */
export function multipartRoutesOf(routes: () => readonly RouteBody[]): (method: string, path: string) => boolean {
  let uploads: { pattern: RegExp; method: string }[] | undefined
  return function acceptsMultipart(method, path) {
    uploads ??= routes()
      .filter((route) => isMultipartBody(route.hooks.body))
      .map((route) => ({ pattern: routePattern(route.path.replace(/(.)\/+$/, '$1')), method: route.method }))
    return uploads.some((upload) => upload.method === method && upload.pattern.test(path))
  }
}
