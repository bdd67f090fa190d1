// ExpressionError: why an expression could not be parsed or evaluated, as one sentence a workflow author can act on.

export class ExpressionError extends Error {
  /** `expression_syntax` at parse time, `expression_forbidden` for a blocked construct, `expression_error` at run time. */
  readonly code: string
  constructor(message: string, code = 'expression_error') {
    super(message)
    this.name = 'ExpressionError'
    this.code = code
  }
}

/** Keys that reach an object's prototype machinery; refused by every path (dot, bracket, computed, literal, set, merge). */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

export const isReservedKey = (key: unknown): boolean => typeof key === 'string' && RESERVED_KEYS.has(key)
