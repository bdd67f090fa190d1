// Lexical search over a tool set's operations for find_operations: BM25F over the operation's name (its id, split into
// words), summary, tags and path, with no model and no network. Built on first use in slices, with the event loop turning
// between them, so an application of tens of thousands of operations does not stall the server.
import type { OperationInfo } from '../applications/index.ts'

/** How much a word found in each field counts. */
const FIELD_WEIGHTS = { name: 3, summary: 2, tags: 2, path: 1 } as const
const K1 = 1.2
const B = 0.75
/** Operations indexed between two turns of the event loop. */
const SLICE = 500
const STOP_WORDS = new Set(['a', 'an', 'the', 'of', 'to', 'for', 'in', 'on', 'by', 'with', 'and', 'or', 'is', 'are', 'be', 'it', 'its', 'this', 'that'])

/** Words of `text`: camelCase and digits split, lower case, plural `s` dropped, stop words out. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])/g, ' ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word))
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

export class OperationSearch {
  /** term → [operation index, weighted frequency] pairs, flattened. */
  readonly #postings = new Map<string, number[]>()
  readonly #lengths: Float64Array
  #averageLength = 1

  private constructor(readonly operations: readonly OperationInfo[]) {
    this.#lengths = new Float64Array(operations.length)
  }

  static async build(operations: readonly OperationInfo[]): Promise<OperationSearch> {
    const search = new OperationSearch(operations)
    let total = 0
    for (let start = 0; start < operations.length; start += SLICE) {
      if (start > 0) await nextTurn()
      for (let i = start; i < Math.min(start + SLICE, operations.length); i++) total += search.#add(i, operations[i]!)
    }
    search.#averageLength = operations.length > 0 ? total / operations.length || 1 : 1
    return search
  }

  #add(index: number, op: OperationInfo): number {
    const weighted = new Map<string, number>()
    let length = 0
    const fields: [keyof typeof FIELD_WEIGHTS, string][] = [
      ['name', op.operationId],
      ['summary', op.summary],
      ['tags', op.tags.join(' ')],
      ['path', op.path],
    ]
    for (const [field, text] of fields) {
      const weight = FIELD_WEIGHTS[field]
      for (const word of words(text)) {
        weighted.set(word, (weighted.get(word) ?? 0) + weight)
        length += weight
      }
    }
    for (const [word, frequency] of weighted) {
      const list = this.#postings.get(word)
      if (list) list.push(index, frequency)
      else this.#postings.set(word, [index, frequency])
    }
    this.#lengths[index] = length
    return length
  }

  /**
   * The best `limit` operations for `query`, best first (ties in the set's order); an exact operation id ranks first.
   * `only` keeps those of one application.
   */
  find(query: string, limit: number, only?: (op: OperationInfo) => boolean): OperationInfo[] {
    const total = this.operations.length
    const scores = new Map<number, number>()
    for (const term of new Set(words(query))) {
      const list = this.#postings.get(term)
      if (!list) continue
      const frequencyOfDocuments = list.length / 2
      const idf = Math.log(1 + (total - frequencyOfDocuments + 0.5) / (frequencyOfDocuments + 0.5))
      for (let i = 0; i < list.length; i += 2) {
        const index = list[i]!
        const tf = list[i + 1]!
        const norm = K1 * (1 - B + (B * this.#lengths[index]!) / this.#averageLength)
        scores.set(index, (scores.get(index) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm))
      }
    }
    const exact = query.trim().toLowerCase()
    const ranked: [number, number][] = []
    for (const [index, score] of scores) {
      const op = this.operations[index]!
      if (only && !only(op)) continue
      ranked.push([index, op.operationId.toLowerCase() === exact ? Number.POSITIVE_INFINITY : score])
    }
    ranked.sort((a, b) => b[1] - a[1] || a[0] - b[0])
    return ranked.slice(0, limit).map(([index]) => this.operations[index]!)
  }
}
