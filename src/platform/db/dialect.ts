// What differs between SQLite and PostgreSQL, in one place: which one a Kysely instance speaks, how migrations' column
// types read on PostgreSQL, and the pieces of SQL that have no common form (triggers, case-insensitive names).
import {
  type ColumnDefinitionNode,
  type CreateTableNode,
  DataTypeNode,
  type KyselyPlugin,
  type Kysely,
  OperationNodeTransformer,
  PostgresAdapter,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  RawNode,
  type RootOperationNode,
  sql,
  type UnknownRow,
  type QueryId,
} from 'kysely'
import type { DatabaseKind } from './target.ts'

/** The database a Kysely instance (or transaction) runs on. */
export function kindOf<DB>(db: Kysely<DB>): DatabaseKind {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/**
 * Column types as the migrations write them (SQLite's) → PostgreSQL's, so that one migration set serves both:
 * - `text` is compared byte by byte (COLLATE "C"), as SQLite's BINARY collation does: ORDER BY, unique keys and range
 *   reads give the same answers whatever the server's default locale;
 * - `integer` is a 64-bit integer in SQLite, `bigint` in PostgreSQL (its `integer` has 4 bytes: a version number of
 *   3,000,000,000 in a request would be an out-of-range error there instead of "not found"); read back as numbers;
 * - `real` is an 8-byte float in SQLite, `double precision` in PostgreSQL (its `real` has 4 bytes);
 * - `blob` is `bytea`;
 * - a table's `without rowid` (a SQLite storage choice) is dropped.
 */
class PostgresSchemaTransformer extends OperationNodeTransformer {
  protected override transformColumnDefinition(node: ColumnDefinitionNode, queryId?: QueryId): ColumnDefinitionNode {
    const column = super.transformColumnDefinition(node, queryId)
    if (!DataTypeNode.is(column.dataType)) return column
    const replacement = POSTGRES_TYPES[column.dataType.dataType]
    return replacement ? { ...column, dataType: RawNode.createWithSql(replacement) } : column
  }

  protected override transformCreateTable(node: CreateTableNode, queryId?: QueryId): CreateTableNode {
    const table = super.transformCreateTable(node, queryId)
    const endModifiers = table.endModifiers?.filter((modifier) => !(RawNode.is(modifier) && /^\s*without rowid\s*$/i.test(modifier.sqlFragments.join(''))))
    return { ...table, endModifiers }
  }
}

const POSTGRES_TYPES: Record<string, string> = { text: 'text collate "C"', integer: 'bigint', real: 'double precision', blob: 'bytea' }

/** Applied to the Kysely instance migrations run on, for PostgreSQL only (SQLite runs them as written). */
export class PostgresSchemaPlugin implements KyselyPlugin {
  readonly #transformer = new PostgresSchemaTransformer()
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId)
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

/**
 * The Kysely a migration runs on: `db` itself on SQLite, and on PostgreSQL `db` reading the migrations' column types as
 * PostgreSQL's (the migrator's, and a test's that runs one migration again).
 */
export function forMigrations<DB>(db: Kysely<DB>): Kysely<DB> {
  return kindOf(db) === 'postgres' ? db.withPlugin(new PostgresSchemaPlugin()) : db
}

export interface RowTrigger {
  readonly name: string
  readonly table: string
  readonly timing: 'before' | 'after'
  readonly event: 'insert' | 'update' | 'delete'
  /**
   * The statements run for each row, in SQL both databases read (`new.` and `old.` name the row). An upsert's SET must
   * name the target table's columns with the table (`n = t.n + 1`): PostgreSQL finds a bare `n` ambiguous.
   */
  readonly statements: readonly string[]
}

/** A row trigger: SQLite's `create trigger … begin … end`; PostgreSQL's trigger function and trigger. */
export async function createRowTrigger(db: Kysely<unknown>, trigger: RowTrigger): Promise<void> {
  const { name, table, timing, event, statements } = trigger
  if (kindOf(db) === 'sqlite') {
    await sql.raw(`create trigger ${name} ${timing} ${event} on ${table} begin\n${statements.map((s) => `${s};`).join('\n')}\nend`).execute(db)
    return
  }
  // An AFTER trigger's result is ignored; a BEFORE trigger that returns null skips the row, so it returns the row.
  const result = timing === 'before' ? (event === 'delete' ? 'old' : 'new') : 'null'
  await sql
    .raw(
      `create function ${name}() returns trigger language plpgsql as $trigger$ begin\n${statements.map((s) => `${s};`).join('\n')}\nreturn ${result};\nend $trigger$`,
    )
    .execute(db)
  await sql.raw(`create trigger ${name} ${timing} ${event} on ${table} for each row execute function ${name}()`).execute(db)
}

/** Drops a trigger made by createRowTrigger (and its function on PostgreSQL). */
export async function dropRowTrigger(db: Kysely<unknown>, name: string, table: string): Promise<void> {
  if (kindOf(db) === 'sqlite') {
    await sql.raw(`drop trigger if exists ${name}`).execute(db)
    return
  }
  await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db)
  await sql.raw(`drop function if exists ${name}()`).execute(db)
}

/**
 * A name compared without ASCII case, as SQLite's NOCASE collation compares: "Invoice" and "invoice" are one name, and
 * lists sort by the folded name. On PostgreSQL, `lower()` of a COLLATE "C" column folds ASCII letters only, the same.
 */
export function caselessName(kind: DatabaseKind, column: string) {
  return kind === 'sqlite' ? sql.ref(column) : sql`lower(${sql.ref(column)})`
}

/** The ISO week (`2026-W05`) of a `YYYY-MM-DD` text column, as modules/interactions/buckets.ts computes it. */
export function isoWeekOfDay(kind: DatabaseKind, column: string) {
  return kind === 'sqlite' ? sql<string>`strftime('%G-W%V', ${sql.ref(column)})` : sql<string>`to_char(cast(${sql.ref(column)} as date), 'IYYY-"W"IW')`
}
