// A unique key refused an insert or update: told by the driver's error code, never by the wording of its message.

/** SQLite's extended result codes for a UNIQUE or PRIMARY KEY constraint (bun:sqlite sets them as `code`). */
const SQLITE_UNIQUE = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY'])
/** PostgreSQL's SQLSTATE unique_violation (pg sets it as `code`). */
const POSTGRES_UNIQUE = '23505'

/**
 * True when `error` is a unique-key conflict on either database. Callers use it around a write whose only unique key
 * that a caller can collide with is the one they mean (ids are generated, so a primary key never collides), which is
 * why no constraint name is compared: SQLite does not report one.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false
  const code = (error as { code: unknown }).code
  return code === POSTGRES_UNIQUE || (typeof code === 'string' && SQLITE_UNIQUE.has(code))
}
