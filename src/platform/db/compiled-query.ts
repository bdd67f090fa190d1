// Queries built and compiled by Kysely once, then run with new parameter values: building and compiling a query costs
// tens of microseconds, more than SQLite takes to answer a lookup by key. Still Kysely's SQL for the dialect in use.
import type { Compilable, CompiledQuery, Kysely } from 'kysely'
import { kindOf } from './dialect.ts'
import type { DatabaseKind } from './target.ts'

const MARK = '\u0000agentbox-parameter:'

/**
 * `build` receives a marker for each named parameter and must use each where a value goes (`where('id', '=', p.id)`),
 * never inside an expression Kysely would rewrite. It is compiled on the first run on each kind of database (SQLite or
 * PostgreSQL: an instance speaks one, a test process may open both); later runs only swap the values.
 */
export function compileOnce<DB, Names extends string, Row>(
  names: readonly Names[],
  build: (db: Kysely<DB>, parameters: Record<Names, string>) => Compilable<Row>,
): (db: Kysely<DB>, values: Record<Names, unknown>) => Promise<Row[]> {
  const compiled = new Map<DatabaseKind, { query: CompiledQuery<Row>; order: Names[] }>()
  const compile = (db: Kysely<DB>) => {
    const markers = Object.fromEntries(names.map((name) => [name, `${MARK}${name}`])) as Record<Names, string>
    const query = build(db, markers).compile()
    const order = query.parameters.map((parameter) => {
      const name = typeof parameter === 'string' && parameter.startsWith(MARK) ? (parameter.slice(MARK.length) as Names) : null
      if (name === null || !names.includes(name)) throw new Error(`compileOnce: a parameter is not one of the markers (${String(parameter)})`)
      return name
    })
    return { query, order }
  }
  return async (db, values) => {
    const kind = kindOf(db)
    let entry = compiled.get(kind)
    if (entry === undefined) compiled.set(kind, (entry = compile(db)))
    const { query, order } = entry
    return (await db.executeQuery<Row>({ ...query, parameters: order.map((name) => values[name]) })).rows
  }
}
