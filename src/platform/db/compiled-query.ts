// Queries built and compiled by Kysely once, then run with new parameter values: building and compiling a query costs
// tens of microseconds, more than SQLite takes to answer a lookup by key. Still Kysely's SQL for the dialect in use.
import type { Compilable, CompiledQuery, Kysely } from 'kysely'

const MARK = '\u0000agentbox-parameter:'

/**
 * `build` receives a marker for each named parameter and must use each where a value goes (`where('id', '=', p.id)`),
 * never inside an expression Kysely would rewrite. It is compiled on the first run, with that run's database (every
 * database and transaction of one instance speaks one dialect); later runs only swap the values.
 */
export function compileOnce<DB, Names extends string, Row>(
  names: readonly Names[],
  build: (db: Kysely<DB>, parameters: Record<Names, string>) => Compilable<Row>,
): (db: Kysely<DB>, values: Record<Names, unknown>) => Promise<Row[]> {
  let compiled: { query: CompiledQuery<Row>; order: Names[] } | null = null
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
    compiled ??= compile(db)
    const { query, order } = compiled
    return (await db.executeQuery<Row>({ ...query, parameters: order.map((name) => values[name]) })).rows
  }
}
