// Telling "the database cannot be reached" from every other failure, so a request answers 503 with a sentence (and the
// process carries on, reconnecting on the next query) instead of a 500. Only PostgreSQL is ever away: SQLite is a file.

/** SQLSTATE classes and codes of a server that is gone, shutting down or not yet accepting connections. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300'])
/** Socket errors of a connection that could not be made or was cut. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
/**
 * pg reports a cut connection or a full pool without a code, in these fixed sentences (pg 8: client.js, pg-pool), and
 * our own deadlines (database.ts, cluster/) in theirs.
 */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'the database did not answer within',
]

export const DATABASE_UNAVAILABLE = 'The database cannot be reached; try again in a few seconds'

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_STATES.has(code) || SOCKET_CODES.has(code))) return true
    if (DRIVER_MESSAGES.some((message) => cause instanceof Error && cause.message.startsWith(message))) return true
    // AggregateError: every address of the host refused.
    if (cause instanceof AggregateError && cause.errors.some((inner) => isDatabaseUnavailable(inner))) return true
  }
  return false
}
