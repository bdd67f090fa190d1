// HttpError: failures that only exist over HTTP (a 401 and its challenge, 411, 413 on a body, 429 with Retry-After).
// Services throw DomainErrors (src/platform/errors.ts); the error handler words both as the contract's body.

/** One entry of a FastAPI-shaped 422 body (docs/api.md "Conventions"). */
export interface ValidationIssue {
  loc: (string | number)[]
  msg: string
  type: string
  input?: unknown
  ctx?: Record<string, unknown>
}

export class HttpError extends Error {
  readonly status: number
  readonly detail: string | ValidationIssue[]
  readonly headers: Readonly<Record<string, string>>

  constructor(status: number, detail: string | ValidationIssue[], headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : 'Validation failed')
    this.name = 'HttpError'
    this.status = status
    this.detail = detail
    this.headers = headers
  }
}

export const notAuthenticated = (): HttpError => new HttpError(401, 'Not authenticated', { 'www-authenticate': 'Bearer' })
