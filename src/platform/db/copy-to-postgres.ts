// Copies an instance's SQLite database into an empty PostgreSQL database migrated with the same migration set: every
// table, every row, the same ids, in batches inside one transaction, then verified by row counts and checksums that
// are computed from the source rows as read and from the target rows as read back.
import { Database as Sqlite } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { openDatabase, type PostgresHandle } from './database.ts'
import { migrateToLatest } from './migrate.ts'
import { MIGRATIONS } from './migrations/index.ts'
import { DAILY_USAGE_BY_MONTH_TABLES, DAY_COLUMNS, fillDailyUsageByMonth } from './migrations/0030_daily_usage_by_month.ts'
import { foldSqliteFile } from './rollup-folder.ts'
import { redactedUrl } from './target.ts'

export class CopyError extends Error {}

/** Tables are named at run time (every table the source holds), so the copy speaks to Kysely without the schema's types. */
// biome-ignore lint/suspicious/noExplicitAny: table names known only at run time
type AnyDb = Kysely<any>

export interface TableReport {
  readonly table: string
  readonly rows: number
  /** The checksum both sides agreed on (hex). */
  readonly checksum: string
}

export interface CopyReport {
  readonly tables: readonly TableReport[]
  readonly rows: number
  /** Migrations run on the target before the copy. */
  readonly migrated: readonly string[]
}

export interface CopyOptions {
  /** Told as each table is copied and verified (for the command's progress lines). */
  readonly onTable?: (report: TableReport) => void
  /** Rows per INSERT at most (fewer for wide tables: a statement holds at most 65,535 parameters). */
  readonly batchRows?: number
}

/** Kysely's own bookkeeping: the target's migrations write it, so it is never copied. */
const isBookkeeping = (table: string) => table.startsWith('kysely_')
/**
 * SQLite's own: the rollups' watermark (migration 0029). The copy counts every row into the rollups first and copies
 * those; PostgreSQL counts each batch as it inserts it and has no watermark.
 */
const SQLITE_ONLY: ReadonlySet<string> = new Set(['interaction_rollup_watermark'])
/** Tables whose rows a migration writes (one counter per cached kind): the target holds them once migrated, so they do
 * not make it "not empty", and the source's rows replace them. */
const SEEDED_BY_MIGRATIONS: ReadonlySet<string> = new Set(['cluster_revisions'])

/** A batch is sent once it holds this many bytes of values, whatever its row count (documents and bundles are large). */
const BATCH_BYTES = 4 * 1024 * 1024
const MAX_PARAMETERS = 30_000

type ColumnKind = 'integer' | 'float' | 'text' | 'bytes'

interface TargetColumn {
  readonly name: string
  readonly kind: ColumnKind
}

/**
 * Steps performed:
 * 1. open the source read-only and check it was migrated by exactly this binary's migrations; count every interaction
 *    into the rollups (SQLite counts them after the rows are committed: platform/db/rollup-folder.ts);
 * 2. check the target is empty (no tables, or only agentbox's with no rows: a copy that failed before), migrate it;
 * 3. in one transaction, with the tables' own triggers switched off (the rollups are copied, not recounted; immutable
 *    rows are written once), copy table by table in foreign-key order, in batches, summing a checksum of each row;
 * 4. in the same transaction, read every table back, count it and checksum it, and compare: any difference rolls the
 *    whole copy back;
 * 5. still in it, fill PostgreSQL's own rollups (migration 0030) from the copied daily usage, checked to hold its calls.
 */
export async function copySqliteToPostgres(sourcePath: string, url: string, options: CopyOptions = {}): Promise<CopyReport> {
  const source = openSource(sourcePath)
  let target: PostgresHandle | null = null
  try {
    // The rollups are copied as stored: first every row is counted into them (SQLite counts recorded rows a little
    // after they are committed; a server stopped by a crash may have left some). Nothing else writes the file now.
    await foldSqliteFile(sourcePath)
    const sourceTables = sourceTablesOf(source)
    target = openDatabase({ kind: 'postgres', url }) as PostgresHandle
    await reachable(target, url)
    await checkEmpty(target.db, 'before')
    const { applied } = await migrateToLatest(target, '/nonexistent', Date.now())
    await checkEmpty(target.db, 'after')
    const columns = await targetColumns(target.db, sourceTables, source)
    const order = await foreignKeyOrder(target.db, sourceTables)

    // One snapshot of the source for the whole copy (nothing else writes it: the command holds the data dir's lock).
    source.run('BEGIN')
    const tables: TableReport[] = []
    await target.db.transaction().execute(async (trx) => {
      for (const table of order) await sql`alter table ${sql.table(table)} disable trigger user`.execute(trx)
      for (const table of order) {
        if (SEEDED_BY_MIGRATIONS.has(table)) await trx.deleteFrom(table as never).execute()
        const copied = await copyTable(source, trx, table, columns.get(table)!, options.batchRows ?? 1000)
        const readBack = await checksumTarget(trx, table, columns.get(table)!)
        if (readBack.rows !== copied.rows)
          throw new CopyError(`table ${table}: ${copied.rows} rows read from SQLite, ${readBack.rows} found in PostgreSQL; nothing was kept`)
        if (readBack.checksum !== copied.checksum)
          throw new CopyError(`table ${table}: the rows read back from PostgreSQL differ from SQLite's (checksum mismatch); nothing was kept`)
        const report = { table, rows: copied.rows, checksum: copied.checksum }
        tables.push(report)
        options.onTable?.(report)
      }
      await fillPostgresRollups(trx)
      for (const table of order) await sql`alter table ${sql.table(table)} enable trigger user`.execute(trx)
    })
    return { tables, rows: tables.reduce((n, t) => n + t.rows, 0), migrated: applied }
  } finally {
    if (source.inTransaction) source.run('ROLLBACK')
    source.close()
    await target?.close()
  }
}

/**
 * PostgreSQL's own rollups (migration 0030: the daily usage a row per month, the organisation's and each user's) have
 * no SQLite source: they are filled from the copied daily usage, and must then hold every call it holds.
 */
async function fillPostgresRollups(trx: AnyDb): Promise<void> {
  await fillDailyUsageByMonth(trx)
  const days = sql.raw(DAY_COLUMNS.join(' + '))
  for (const { table, from } of DAILY_USAGE_BY_MONTH_TABLES) {
    const { rows } = await sql<{ by_day: string | null; by_month: string | null }>`select
      (select sum(n)::text from ${sql.table(from)}) as by_day,
      (select sum(${days})::text from ${sql.table(table)}) as by_month`.execute(trx)
    const { by_day: byDay, by_month: byMonth } = rows[0]!
    if ((byDay ?? '0') !== (byMonth ?? '0'))
      throw new CopyError(`table ${table}: filled with ${byMonth ?? 0} calls, ${from} holds ${byDay ?? 0}; nothing was kept`)
  }
}

function openSource(path: string): Sqlite {
  let source: Sqlite
  try {
    // Integers as bigint: a 64-bit value SQLite holds is copied exactly, not through a double.
    source = new Sqlite(path, { readonly: true, safeIntegers: true })
    source.run('PRAGMA busy_timeout = 10000')
  } catch (error) {
    throw new CopyError(`cannot open the SQLite database ${path}: ${(error as Error).message}`)
  }
  try {
    const bookkeeping = source.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get()
    const done = bookkeeping ? (source.query('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((r) => r.name) : []
    const known = Object.keys(MIGRATIONS).sort()
    const unknown = done.filter((name) => !known.includes(name))
    if (unknown.length > 0)
      throw new CopyError(
        `the SQLite database was migrated by a newer agentbox (unknown migrations: ${unknown.join(', ')}); run migrate-to-postgres of that version`,
      )
    if (done.length !== known.length)
      throw new CopyError(
        `the SQLite database is not at this version's schema (${known.length - done.length} migrations pending); start this version of agentbox on the data directory once (it migrates and keeps a copy), stop it, then migrate`,
      )
  } catch (error) {
    source.close()
    throw error
  }
  return source
}

function sourceTablesOf(source: Sqlite): string[] {
  return (source.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[])
    .map((row) => row.name)
    .filter((name) => !isBookkeeping(name) && !SQLITE_ONLY.has(name))
}

async function reachable(target: PostgresHandle, url: string): Promise<void> {
  try {
    await target.ping()
  } catch (error) {
    throw new CopyError(`cannot reach PostgreSQL at ${redactedUrl(url)}: ${(error as Error).message}`)
  }
}

/**
 * Empty: no tables at all, or only tables agentbox's migrations made (its bookkeeping says so) with no rows in them, as
 * a copy that failed leaves the database. Anything else may be someone's data and is refused.
 */
async function checkEmpty(db: AnyDb, when: 'before' | 'after'): Promise<void> {
  const tables = (
    await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(db)
  ).rows.map((row) => row.name)
  if (tables.length === 0) return
  if (when === 'before') {
    if (!tables.includes('kysely_migration'))
      throw new CopyError(`the target database is not empty (it holds tables, e.g. ${tables[0]}, that agentbox did not make); give an empty database`)
    const done = (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((row) => row.name)
    const unknown = done.filter((name) => !(name in MIGRATIONS))
    if (unknown.length > 0) throw new CopyError(`the target database was migrated by a newer agentbox (unknown migrations: ${unknown.join(', ')})`)
  }
  for (const table of tables) {
    if (isBookkeeping(table) || SEEDED_BY_MIGRATIONS.has(table)) continue
    const { rows } = await sql<{ present: boolean }>`select exists (select 1 from ${sql.table(table)}) as present`.execute(db)
    if (rows[0]?.present)
      throw new CopyError(`the target database is not empty (table ${table} holds rows); migrate-to-postgres copies into an empty database only`)
  }
}

const KINDS: Record<string, ColumnKind> = {
  bigint: 'integer',
  integer: 'integer',
  smallint: 'integer',
  'double precision': 'float',
  real: 'float',
  text: 'text',
  'character varying': 'text',
  bytea: 'bytes',
}

/** The target's columns of every source table, checked to be the source's, with how each value is carried. */
async function targetColumns(db: AnyDb, tables: readonly string[], source: Sqlite): Promise<Map<string, TargetColumn[]>> {
  const { rows } = await sql<{ table: string; name: string; type: string }>`
    select table_name as "table", column_name as name, data_type as type from information_schema.columns
    where table_schema = current_schema() order by table_name, ordinal_position`.execute(db)
  const byTable = new Map<string, TargetColumn[]>()
  for (const row of rows) {
    const kind = KINDS[row.type]
    if (!kind) throw new CopyError(`column ${row.table}.${row.name} has a type (${row.type}) the copy does not carry`)
    byTable.set(row.table, [...(byTable.get(row.table) ?? []), { name: row.name, kind }])
  }
  for (const table of tables) {
    const target = byTable.get(table)
    if (!target) throw new CopyError(`table ${table} of the SQLite database has no counterpart in PostgreSQL after migrating`)
    const sourceColumns = (source.query(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((r) => r.name).sort()
    const targetNames = target.map((c) => c.name).sort()
    if (sourceColumns.join(',') !== targetNames.join(','))
      throw new CopyError(`table ${table} has columns ${sourceColumns.join(', ')} in SQLite and ${targetNames.join(', ')} in PostgreSQL`)
  }
  return byTable
}

/** Tables ordered so that every table comes after those its foreign keys point to. */
async function foreignKeyOrder(db: AnyDb, tables: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent from pg_constraint k
    join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    join pg_namespace n on n.oid = c.relnamespace
    where k.contype = 'f' and n.nspname = current_schema()`.execute(db)
  const parents = new Map<string, Set<string>>(tables.map((t) => [t, new Set()]))
  for (const { child, parent } of rows) if (child !== parent) parents.get(child)?.add(parent)
  const order: string[] = []
  const placed = new Set<string>()
  const visit = (table: string, path: Set<string>) => {
    if (placed.has(table)) return
    if (path.has(table)) throw new CopyError(`tables ${[...path].join(', ')} refer to each other; no order copies them`)
    path.add(table)
    for (const parent of parents.get(table) ?? []) if (parents.has(parent)) visit(parent, path)
    path.delete(table)
    placed.add(table)
    order.push(table)
  }
  for (const table of tables) visit(table, new Set())
  return order
}

/**
 * A row's checksum contribution: SHA-256 of its values in column-name order, each typed and length-prefixed, read as a
 * 128-bit number. Tables sum their rows' (mod 2^128), so the order rows are read in does not matter, and a row missing,
 * doubled or changed changes the sum.
 */
class Checksum {
  #sum = 0n
  rows = 0
  add(values: readonly string[]): void {
    const hash = createHash('sha256')
    for (const value of values) hash.update(`${value.length}:${value}`)
    this.#sum = (this.#sum + BigInt(`0x${hash.digest('hex').slice(0, 32)}`)) & ((1n << 128n) - 1n)
    this.rows++
  }
  get hex(): string {
    return this.#sum.toString(16).padStart(32, '0')
  }
}

/** A value as the checksum reads it, the same on both sides: its column's kind decides, not the driver's JS type. */
function canonical(kind: ColumnKind, value: unknown): string {
  if (value === null || value === undefined) return 'n'
  switch (kind) {
    case 'integer':
      return `i${BigInt(value as bigint | number | string).toString()}`
    case 'float':
      return `f${String(Number(value))}`
    case 'text':
      return `s${String(value)}`
    case 'bytes':
      return `b${Buffer.from(value as Uint8Array).toString('base64')}`
  }
}

/** A value as PostgreSQL receives it; a text, float or integer where SQLite's loose typing kept another kind is refused. */
function forTarget(table: string, column: TargetColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null
  const ok =
    column.kind === 'integer'
      ? typeof value === 'bigint'
      : column.kind === 'float'
        ? typeof value === 'number' || typeof value === 'bigint'
        : column.kind === 'text'
          ? typeof value === 'string'
          : value instanceof Uint8Array
  if (!ok)
    throw new CopyError(
      `table ${table}, column ${column.name}: a row holds a ${typeof value === 'object' ? 'blob' : typeof value} where PostgreSQL's column is ${column.kind}`,
    )
  if (column.kind === 'float' && typeof value === 'bigint') return Number(value)
  if (column.kind === 'bytes') return Buffer.from(value as Uint8Array)
  return value
}

const sizeOf = (value: unknown) => (typeof value === 'string' ? value.length * 2 : value instanceof Uint8Array ? value.byteLength : 8)

async function copyTable(source: Sqlite, trx: AnyDb, table: string, columns: readonly TargetColumn[], batchRows: number) {
  const sorted = [...columns].sort((a, b) => (a.name < b.name ? -1 : 1))
  const names = sorted.map((c) => c.name)
  const perBatch = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMETERS / names.length)))
  const checksum = new Checksum()
  let batch: Record<string, unknown>[] = []
  let bytes = 0
  const flush = async () => {
    if (batch.length === 0) return
    await trx.insertInto(table).values(batch).execute()
    batch = []
    bytes = 0
  }
  const select = `SELECT ${names.map((n) => `"${n.replaceAll('"', '""')}"`).join(', ')} FROM "${table.replaceAll('"', '""')}"`
  for (const row of source.query(select).iterate() as IterableIterator<Record<string, unknown>>) {
    const values: Record<string, unknown> = {}
    const canonicalValues: string[] = []
    for (const column of sorted) {
      const value = row[column.name]
      values[column.name] = forTarget(table, column, value)
      canonicalValues.push(canonical(column.kind, value))
      bytes += sizeOf(value)
    }
    checksum.add(canonicalValues)
    batch.push(values)
    if (batch.length >= perBatch || bytes >= BATCH_BYTES) await flush()
  }
  await flush()
  return { rows: checksum.rows, checksum: checksum.hex }
}

/** Reads a table back through a cursor, integers as text (exact past 2^53), and checksums it as the source was. */
async function checksumTarget(trx: AnyDb, table: string, columns: readonly TargetColumn[]) {
  const sorted = [...columns].sort((a, b) => (a.name < b.name ? -1 : 1))
  const selected = sorted.map((c) => (c.kind === 'integer' ? sql`${sql.ref(c.name)}::text as ${sql.ref(c.name)}` : sql.ref(c.name)))
  const checksum = new Checksum()
  await sql`declare agentbox_copy_check no scroll cursor for select ${sql.join(selected)} from ${sql.table(table)}`.execute(trx)
  for (;;) {
    const { rows } = await sql<Record<string, unknown>>`fetch 2000 from agentbox_copy_check`.execute(trx)
    for (const row of rows) checksum.add(sorted.map((column) => canonical(column.kind, row[column.name])))
    if (rows.length < 2000) break
  }
  await sql`close agentbox_copy_check`.execute(trx)
  return { rows: checksum.rows, checksum: checksum.hex }
}
