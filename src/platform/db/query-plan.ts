// EXPLAIN QUERY PLAN on a live connection without pinning it to an old snapshot (tests and benchmarks check that
// queries use their indexes; SQLite-only, so it lives beside the dialect).
import type { Database } from 'bun:sqlite'

/**
 * The `detail` lines of SQLite's query plan for `sql`. With bun 1.4.5, an EXPLAIN QUERY PLAN statement read with
 * `.all()` keeps its read transaction open until the statement is finalized, and a cached `query()` statement never
 * is: every later read on that connection then sees the database as it was, and the server's read connection is the
 * one that authenticates requests. So the statement is prepared, read and finalized here.
 */
export function queryPlan(connection: Database, sql: string, parameters: readonly unknown[] = []): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: bind parameters of any SQL
  const statement = connection.prepare<{ detail: string }, any[]>(`EXPLAIN QUERY PLAN ${sql}`)
  try {
    return statement.all(...parameters).map((row) => row.detail)
  } finally {
    statement.finalize()
  }
}
