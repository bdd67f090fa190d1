// Query plans for tests and benchmarks (they check that queries use their indexes): SQLite's EXPLAIN QUERY PLAN on a
// live connection without pinning it to an old snapshot, PostgreSQL's EXPLAIN, and neutral checks of what they say.
import type { Database } from 'bun:sqlite'
import type { DatabaseHandle } from './database.ts'

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

/**
 * The query plan of `sql` (compiled by Kysely for this handle's dialect) on either database, one line per step. On
 * PostgreSQL, sequential scans, bitmap scans (which lose the index order) and sorts are disabled for the EXPLAIN (in a
 * transaction rolled back after it): test tables are tiny and never analysed, where the planner rightly prefers
 * reading the whole table and sorting it, and the question is whether an index can serve the query in its order. A
 * disabled step is still taken when nothing else can answer, so a query no index orders still shows its Sort.
 */
export async function explain(handle: DatabaseHandle, sql: string, parameters: readonly unknown[] = []): Promise<string[]> {
  if (handle.kind === 'sqlite') return queryPlan(handle.reader, sql, parameters)
  const client = await handle.pool.connect()
  try {
    await client.query('BEGIN')
    for (const step of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) await client.query(`SET LOCAL ${step} = off`)
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, parameters as unknown[])
    return rows.map((row) => row['QUERY PLAN'])
  } finally {
    await client.query('ROLLBACK').catch(() => {})
    client.release()
  }
}

/** Whether a plan from explain() reads `index` (and, with `covering`, only the index), on either database. */
export function planUsesIndex(plan: readonly string[], index: string, options: { covering?: boolean } = {}): boolean {
  const text = plan.join('\n')
  const sqlite = options.covering ? new RegExp(`USING COVERING INDEX ${index}\\b`) : new RegExp(`USING (COVERING )?INDEX ${index}\\b`)
  const postgres = options.covering
    ? new RegExp(`Index Only Scan (Backward )?using ${index}\\b`)
    : new RegExp(`(Index (Only )?Scan (Backward )?using|Bitmap Index Scan on) ${index}\\b`)
  return sqlite.test(text) || postgres.test(text)
}

/** Whether a plan from explain() sorts rows (SQLite's temporary B-tree, PostgreSQL's Sort node). */
export function planSorts(plan: readonly string[]): boolean {
  return plan.some((line) => line.includes('TEMP B-TREE') || /(^|\s|->\s*)(Incremental )?Sort\b/.test(line.trim()))
}
