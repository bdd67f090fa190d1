// The client name a legacy (2025-era) caller gave in its initialize, kept for its later requests: stateless legacy
// requests do not carry clientInfo again, and every recorded tool call should still say which client made it. Kept in
// the database (`mcp_client_names`), because behind a load balancer the caller's next request may reach another
// instance. Each instance memoises what it read or wrote for CLIENT_NAME_MEMO_MS only: a caller's name changes only at
// its initialize, and one re-set on another instance is seen here within that time (docs/decisions.md).
import type { Clock } from '../../platform/clock.ts'
import type { DatabaseHandle, ReadStatement } from '../../platform/db/database.ts'
import { writeTransaction } from '../../platform/db/write-transaction.ts'
import { sha256Hex } from '../../platform/ids.ts'

/** Names not set again by an initialize for this long are deleted. */
export const CLIENT_NAME_RETENTION_MS = 30 * 24 * 60 * 60 * 1000
/** How long an instance uses a name it read or wrote before reading it again. */
export const CLIENT_NAME_MEMO_MS = 60 * 1000
/** Callers memoised per instance at most (the oldest entry goes first). */
const MEMO_LIMIT = 10_000

export class ClientNames {
  readonly #database: DatabaseHandle
  readonly #clock: Clock
  readonly #read: ReadStatement<{ client_name: string }>
  readonly #memo = new Map<string, { name: string; until: number }>()

  constructor(database: DatabaseHandle, clock: Clock) {
    this.#database = database
    this.#clock = clock
    // On the read connections: a lookup never waits behind the writer.
    this.#read = database.readStatement(database.db.selectFrom('mcp_client_names').select('client_name').where('caller_hash', '=', '?').compile())
  }

  /**
   * `caller` is the user and their bearer token (stored only as a hash), so two clients of one user stay apart when
   * their tokens differ. Resolves once every instance can read the name.
   */
  async set(caller: string, name: string): Promise<void> {
    const hash = sha256Hex(caller)
    const now = this.#clock.now()
    const upsert = this.#database.db
      .insertInto('mcp_client_names')
      .values({ caller_hash: hash, client_name: name, updated_at: now })
      .onConflict((oc) => oc.column('caller_hash').doUpdateSet({ client_name: name, updated_at: now }))
      .compile()
    // No cache reads this table: an initialize must not make the authenticator forget the principals it remembers.
    await writeTransaction(this.#database.db, async (run) => void (await run(upsert)), { unstamped: true })
    this.#remember(hash, name, now)
  }

  async get(caller: string): Promise<string | undefined> {
    const hash = sha256Hex(caller)
    const now = this.#clock.now()
    const memo = this.#memo.get(hash)
    if (memo && memo.until > now) return memo.name
    // A miss is not memoised: an initialize on another instance is seen by this caller's very next request.
    const row = await this.#read([hash])
    if (!row) {
      this.#memo.delete(hash)
      return undefined
    }
    this.#remember(hash, row.client_name, now)
    return row.client_name
  }

  /** Housekeeping: names no initialize has set for CLIENT_NAME_RETENTION_MS. */
  async prune(): Promise<void> {
    await this.#database.db
      .deleteFrom('mcp_client_names')
      .where('updated_at', '<', this.#clock.now() - CLIENT_NAME_RETENTION_MS)
      .execute()
  }

  #remember(hash: string, name: string, now: number): void {
    this.#memo.delete(hash)
    if (this.#memo.size >= MEMO_LIMIT) this.#memo.delete(this.#memo.keys().next().value!)
    this.#memo.set(hash, { name, until: now + CLIENT_NAME_MEMO_MS })
  }
}
