// The part of js-yaml 4.3 (which ships no types) that reading API descriptions uses.
declare module 'js-yaml' {
  export interface Schema {
    readonly __schema: unique symbol
  }
  export const CORE_SCHEMA: Schema
  export interface LoadOptions {
    /** YAML 1.2 core types only (no timestamps or binary). */
    schema?: Schema
    /** Duplicate keys take the last value, as JSON.parse does, instead of failing. */
    json?: boolean
    /** Collections nested deeper than this fail to load (default 100). */
    maxDepth?: number
    /** Keys merged by `<<` across one load (default 10,000). */
    maxTotalMergeKeys?: number
    /** Called as each node opens and closes; it cannot change what is loaded. */
    listener?: (event: 'open' | 'close') => void
  }
  export function load(text: string, options?: LoadOptions): unknown
  export class YAMLException extends Error {}
}
