// Domain errors: what a service says went wrong, in terms of its input, for any transport to word. HTTP maps the kind
// to a status and prefixes each issue's location with where the field came from (body, query or path); tools and
// MCP report the same error as a failed result located in the arguments.

/** One problem with the input, located relative to it (`['definition', 'nodes', 3, 'id']`). */
export interface InputIssue {
  loc: (string | number)[]
  msg: string
  /** A pydantic-style error type (`value_error`, `missing`, `license_invalid`…). */
  type: string
  input?: unknown
  ctx?: Record<string, unknown>
  /** Where an HTTP request carries this field; the body unless said otherwise. */
  in?: 'body' | 'query' | 'path'
}

export type DomainErrorKind =
  | 'invalid_input'
  | 'bad_request'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'bad_gateway'
  | 'gateway_timeout'

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly issues: readonly InputIssue[] = [],
  ) {
    super(message)
    this.name = 'DomainError'
  }
}

/** Every problem found with the input, at once (HTTP 422). */
export const invalidInput = (...issues: InputIssue[]): DomainError => new DomainError('invalid_input', issues[0]?.msg ?? 'The input is not valid', issues)

/** A request that cannot work as sent, with no field to blame (HTTP 400). */
export const badRequest = (message: string): DomainError => new DomainError('bad_request', message)

/** The licence does not allow it: seats, or the grace period is over (HTTP 402). */
export const paymentRequired = (message: string): DomainError => new DomainError('payment_required', message)

export const forbidden = (message = 'Not enough permissions'): DomainError => new DomainError('forbidden', message)

export const notFound = (message = 'Not Found'): DomainError => new DomainError('not_found', message)

export const conflict = (message: string): DomainError => new DomainError('conflict', message)

/** The result would pass a size limit (HTTP 413). */
export const tooLarge = (message: string): DomainError => new DomainError('too_large', message)

/** A call to another server failed or was refused (HTTP 502). */
export const badGateway = (message: string): DomainError => new DomainError('bad_gateway', message)

/** A call to another server took longer than allowed (HTTP 504). */
export const gatewayTimeout = (message: string): DomainError => new DomainError('gateway_timeout', message)
