// A read-only Kysely of its own on the instance database, for a worker thread (the insights worker): it never shares
// the server's connections, so its reads neither wait for the writer nor make the writer wait.
import { Database as Sqlite } from 'bun:sqlite'
import { Kysely } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import { createPool, TrackedPostgresDialect } from './postgres.ts'
import type { Database } from './schema.ts'
import type { DatabaseTarget } from './target.ts'

export function openReadOnly(target: DatabaseTarget): Kysely<Database> {
  if (target.kind === 'sqlite') {
    const connection = new Sqlite(target.path, { readonly: true, strict: true })
    connection.run('PRAGMA busy_timeout = 1000')
    // bun:sqlite's cached statements, as the server's own connections use them (database.ts).
    return new Kysely<Database>({
      dialect: new BunSqliteDialect({ database: { prepare: (sql: string) => connection.query(sql), close: () => connection.close() } as unknown as Sqlite }),
    })
  }
  // One connection: the worker runs one job at a time, one query after another.
  const pool = createPool(target.url, { max: 1, readOnly: true, applicationName: 'agentbox-worker', onError: () => {} })
  return new Kysely<Database>({ dialect: new TrackedPostgresDialect(pool, null) })
}
