// The tool sets kept between requests, least recently used first out. Bounded by the bytes they hold (ToolSet.weight)
// rather than by their count: most agents have a handful of tools, an agent over a large API thousands, and an agent
// with many skills holds their bodies.
import type { ToolSet } from './tool-set.ts'

/** About 32 MiB of kept sets at the most (some 20,000 described tools). */
export const SET_BYTE_BUDGET = 32 * 1024 * 1024

export class ToolSetCache {
  readonly #entries = new Map<string, ToolSet>()
  readonly #budget: number
  #held = 0

  constructor(budget = SET_BYTE_BUDGET) {
    this.#budget = budget
  }

  get(key: string): ToolSet | undefined {
    const kept = this.#entries.get(key)
    if (kept) {
      // Map order is insertion order: moving a hit to the end makes the first entry the least recently used.
      this.#entries.delete(key)
      this.#entries.set(key, kept)
    }
    return kept
  }

  set(key: string, set: ToolSet): void {
    const previous = this.#entries.get(key)
    if (previous) {
      this.#entries.delete(key)
      this.#held -= previous.weight
    }
    this.#entries.set(key, set)
    this.#held += set.weight
    for (const [oldest, entry] of this.#entries) {
      if (this.#held <= this.#budget || oldest === key) break
      this.#entries.delete(oldest)
      this.#held -= entry.weight
    }
  }

  get size(): number {
    return this.#entries.size
  }
}
