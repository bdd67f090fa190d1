// HttpError: the one exception services throw for expected failures; the error handler turns it into the contract's body.

/** One entry of a FastAPI-shaped 422 body (CONTRACT §0). */
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

/** 422 for problems a schema cannot express (a taken name checked in code, a licence that does not verify…). */
export const validationFailed = (...issues: ValidationIssue[]): HttpError => new HttpError(422, issues)

export const notAuthenticated = (): HttpError =>
  new HttpError(401, 'Not authenticated', { 'www-authenticate': 'Bearer' })

export const forbidden = (detail = 'Not enough permissions'): HttpError => new HttpError(403, detail)

export const notFound = (detail = 'Not Found'): HttpError => new HttpError(404, detail)

export const conflict = (detail: string): HttpError => new HttpError(409, detail)
