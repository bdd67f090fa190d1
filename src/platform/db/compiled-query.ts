// Queries built and compiled by Kysely once, then run with new parameter values: building and compiling a query costs
// tens of microseconds, more than SQLite takes to answer a lookup by key. Still Kysely's SQL for the dialect in use.
import { type Compilable, CompiledQuery, type Kysely } from 'kysely'
import { kindOf } from './dialect.ts'
import { decodeText, nameByText } from './postgres.ts'
import type { DatabaseKind } from './target.ts'

const MARK = '\u0000agentbox-parameter:'

/** A compiled query's runner; `query` gives the same statement with the values bound, to run with others (readTogether). */
export interface CompiledRead<DB, Names extends string, Row> {
  (db: Kysely<DB>, values: Record<Names, unknown>): Promise<Row[]>
  query(db: Kysely<DB>, values: Record<Names, unknown>): CompiledQuery<Row>
}

/**
 * `build` receives a marker for each named parameter and must use each where a value goes (`where('id', '=', p.id)`),
 * never inside an expression Kysely would rewrite. It is compiled on the first run on each kind of database (SQLite or
 * PostgreSQL: an instance speaks one, a test process may open both); later runs only swap the values.
 */
export function compileOnce<DB, Names extends string, Row>(
  names: readonly Names[],
  build: (db: Kysely<DB>, parameters: Record<Names, string>) => Compilable<Row>,
): CompiledRead<DB, Names, Row> {
  const compiled = new Map<DatabaseKind, { query: CompiledQuery<Row>; order: Names[] }>()
  const compile = (db: Kysely<DB>) => {
    const markers = Object.fromEntries(names.map((name) => [name, `${MARK}${name}`])) as Record<Names, string>
    const compiledQuery = build(db, markers).compile()
    // On PostgreSQL a named statement: parsed once per connection and, after a few runs, planned no more.
    const query = kindOf(db) === 'postgres' ? nameByText(compiledQuery) : compiledQuery
    const order = query.parameters.map((parameter) => {
      const name = typeof parameter === 'string' && parameter.startsWith(MARK) ? (parameter.slice(MARK.length) as Names) : null
      if (name === null || !names.includes(name)) throw new Error(`compileOnce: a parameter is not one of the markers (${String(parameter)})`)
      return name
    })
    return { query, order }
  }
  const bound = (db: Kysely<DB>, values: Record<Names, unknown>): CompiledQuery<Row> => {
    const kind = kindOf(db)
    let entry = compiled.get(kind)
    if (entry === undefined) compiled.set(kind, (entry = compile(db)))
    const { query, order } = entry
    return { ...query, parameters: order.map((name) => values[name]) }
  }
  const run = async (db: Kysely<DB>, values: Record<Names, unknown>) => (await db.executeQuery<Row>(bound(db, values))).rows
  return Object.assign(run, { query: bound })
}

type RowsOf<Queries extends readonly CompiledQuery[]> = { [K in keyof Queries]: Queries[K] extends CompiledQuery<infer Row> ? Row[] : never }

/**
 * The rows of several read queries, in one round trip on PostgreSQL: each query's rows come back as one JSON array
 * (json_agg over it as a subquery, in its own order), all in one row, so a request that needs a handful of small reads
 * waits for the server once instead of once per read. Their parameters are renumbered into one list. On SQLite (in
 * the same process, no round trip) they simply run one after another. Values come back as JSON gives them: numbers
 * (counts and sums, as the pool reads them anyway), strings (unescaped as every string read from PostgreSQL), null.
 */
export async function readTogether<DB, const Queries extends readonly CompiledQuery[]>(db: Kysely<DB>, queries: Queries): Promise<RowsOf<Queries>> {
  if (kindOf(db) === 'sqlite' || queries.length <= 1) {
    const results: unknown[][] = []
    for (const query of queries) results.push((await db.executeQuery(query)).rows)
    return results as RowsOf<Queries>
  }
  const parameters: unknown[] = []
  const parts = queries.map((query, i) => {
    const offset = parameters.length
    parameters.push(...query.parameters)
    // Kysely's PostgreSQL placeholders are $1…$n; literals in these queries never hold a dollar sign.
    const text = query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)
    return `(select coalesce(json_agg(q), '[]') from (${text}) q) as r${i}`
  })
  // Named: which reads go together is fixed by the code (a few dozen combinations), and planning the combined
  // statement cost ~0.3 ms a time, more than running it.
  const { rows } = await db.executeQuery<Record<string, unknown[]>>(nameByText(CompiledQuery.raw(`select ${parts.join(', ')}`, parameters)))
  const row = rows[0]!
  return queries.map((_, i) => decodeStrings(row[`r${i}`]!)) as RowsOf<Queries>
}

/** Unescapes the strings of rows parsed from JSON (the pool unescapes top-level columns only). */
function decodeStrings(rows: unknown[]): unknown[] {
  for (const row of rows) {
    const record = row as Record<string, unknown>
    for (const key in record) {
      const value = record[key]
      if (typeof value === 'string') record[key] = decodeText(value)
    }
  }
  return rows
}
