// The surfaces kept between requests, least recently used first out. Bounded by the tools they hold rather than by
// their count: most agents have a handful of tools, an agent over a large API a thousand (about 1 MB described).
import type { McpSurface } from './surface.ts'

/** About 20–40 MB of described tools at the most. */
export const SURFACE_TOOL_BUDGET = 20_000

export class SurfaceCache {
  readonly #entries = new Map<string, McpSurface>()
  readonly #budget: number
  #tools = 0

  constructor(budget = SURFACE_TOOL_BUDGET) {
    this.#budget = budget
  }

  get(key: string): McpSurface | undefined {
    const kept = this.#entries.get(key)
    if (kept) {
      // Map order is insertion order: moving a hit to the end makes the first entry the least recently used.
      this.#entries.delete(key)
      this.#entries.set(key, kept)
    }
    return kept
  }

  set(key: string, surface: McpSurface): void {
    const weight = (entry: McpSurface) => entry.tools.size + 1
    const previous = this.#entries.get(key)
    if (previous) {
      this.#entries.delete(key)
      this.#tools -= weight(previous)
    }
    this.#entries.set(key, surface)
    this.#tools += weight(surface)
    for (const [oldest, entry] of this.#entries) {
      if (this.#tools <= this.#budget || oldest === key) break
      this.#entries.delete(oldest)
      this.#tools -= weight(entry)
    }
  }

  get size(): number {
    return this.#entries.size
  }
}
