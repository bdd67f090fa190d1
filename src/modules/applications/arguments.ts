// Arguments checked against an operation's input schema before anything is sent, with every problem reported in the
// contract's 422 shape (located under the arguments). The check itself (checks/json-schema.ts) interprets the schema
// with bounded work, so no uploaded description can stall the request thread, overflow the stack or blow up the
// error; this file keeps parsed schemas for the operations called most recently.
import type { InputIssue } from '../../platform/errors.ts'
import { type CheckLimits, checkAgainstSchema, DEFAULT_LIMITS } from './checks/json-schema.ts'

const CACHE_SIZE = 256
/** Parsed schemas kept at once, by the length of their JSON: a few huge enums must not hold the memory of 256. */
const CACHE_CHARS = 16 * 1024 * 1024

/** Parsed input schemas by operation (and application revision), kept for the operations called most recently. */
export class ArgumentChecker {
  readonly #schemas = new Map<string, { schema: Record<string, unknown>; chars: number }>()
  readonly #limits: CheckLimits
  #chars = 0

  constructor(limits: CheckLimits = DEFAULT_LIMITS) {
    this.#limits = limits
  }

  /** Every problem with `args` (located relative to the arguments), or none. A cut list ends with `too_many_errors`. */
  check(cacheKey: string, inputSchema: string, args: unknown): InputIssue[] {
    return checkAgainstSchema(this.#schema(cacheKey, inputSchema), args, this.#limits).issues
  }

  #schema(cacheKey: string, inputSchema: string): Record<string, unknown> {
    const kept = this.#schemas.get(cacheKey)
    if (kept) {
      // Most recently used last: eviction takes from the front.
      this.#schemas.delete(cacheKey)
      this.#schemas.set(cacheKey, kept)
      return kept.schema
    }
    const parsed: unknown = JSON.parse(inputSchema)
    const schema = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
    const chars = inputSchema.length
    if (chars > CACHE_CHARS) return schema
    while (this.#schemas.size > 0 && (this.#schemas.size >= CACHE_SIZE || this.#chars + chars > CACHE_CHARS)) {
      const [oldest, entry] = this.#schemas.entries().next().value!
      this.#schemas.delete(oldest)
      this.#chars -= entry.chars
    }
    this.#schemas.set(cacheKey, { schema, chars })
    this.#chars += chars
    return schema
  }
}
