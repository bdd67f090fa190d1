// Who a /api/gpt_public request is: the GPT whose key it carries (`x-api-key`, or `Authorization: Bearer`), acting as the
// organisation's account. Only GPT keys are accepted here, and a GPT key nowhere else (the auth module knows only
// api_tokens). A key is found by its SHA-256 and the stored hash compared in constant time; what a key resolves to is
// kept until a GPT is created, rotated or uninstalled on any instance (the `gpts` cluster revision, read before each
// lookup on PostgreSQL), so a rotated or uninstalled key fails on the very next request, wherever it comes. Failed attempts count against the client's address (key-throttle.ts).
import { sql, type Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import { compileOnce } from '../../platform/db/compiled-query.ts'
import type { Database } from '../../platform/db/schema.ts'
import { throttleKey, UNKNOWN_ADDRESS } from '../../platform/http/client-address.ts'
import { HttpError, notAuthenticated } from '../../platform/http/http-error.ts'
import { requestContext } from '../../platform/http/request-context.ts'
import { sha256Hex } from '../../platform/ids.ts'
import type { Revision } from '../../platform/revision.ts'
import type { FailedKeyAttempts } from './key-throttle.ts'
import { isGptKey, sameHash } from './keys.ts'

export const TOO_MANY_KEY_ATTEMPTS = 'Too many failed GPT key attempts from this address; try again later'

/** An authenticated GPT: what its actions need of its record, and the principal its calls run and are recorded as. */
export interface GptCaller {
  readonly id: string
  readonly name: string
  readonly instructions: string
  readonly applications: readonly string[]
  readonly agentName: string | null
  /** The organisation's account (what the org token acts as), with `via: 'gpt_key'` and the GPT's id as `tokenId`. */
  readonly principal: Principal
}

interface KeyRow {
  id: string
  name: string
  instructions: string
  applications: string
  agent_name: string | null
  key_hash: string
}

interface OrgAccountRow {
  id: string
  email: string
  name: string
  role: Principal['role']
  kind: Principal['kind']
  active: number
}

// Every GPT request runs this lookup (when the key is not kept yet); compiled once.
const byKeyHash = compileOnce<Database, 'hash', KeyRow>(['hash'], (db, p) =>
  db
    .selectFrom('gpt_keys')
    .innerJoin('gpts', 'gpts.id', 'gpt_keys.gpt_id')
    .select(['gpts.id', 'gpts.name', 'gpts.instructions', 'gpts.applications', 'gpts.agent_name', 'gpt_keys.key_hash'])
    .where('gpt_keys.key_hash', '=', p.hash)
    .where('gpt_keys.revoked_at', 'is', null)
    .where('gpts.installed', '=', sql.lit(1)),
)

const KEPT_KEYS = 10_000

export interface GptKeyAuthenticatorOptions {
  readonly db: Kysely<Database>
  readonly clock: Clock
  /** Moved by every write to GPTs or their keys, on any instance. */
  readonly revision: Pick<Revision, 'value' | 'sync'>
  readonly attempts: FailedKeyAttempts
}

/** The key a request carries: `x-api-key`, else a bearer token; null when neither. */
function keyOf(request: Request): string | null {
  const header = request.headers.get('x-api-key')
  if (header !== null) return header.trim()
  const authorization = request.headers.get('authorization')
  if (authorization === null) return null
  const space = authorization.indexOf(' ')
  if (space < 0 || authorization.slice(0, space).toLowerCase() !== 'bearer') return null
  return authorization.slice(space + 1).trim()
}

export class GptKeyAuthenticator {
  readonly #o: GptKeyAuthenticatorOptions
  readonly #kept = new Map<string, GptCaller>()
  #keptAt = -1
  #orgAccount: OrgAccountRow | null = null

  constructor(options: GptKeyAuthenticatorOptions) {
    this.#o = options
  }

  /** The GPT calling, or a 401 (no key, not a GPT key, unknown, rotated or uninstalled) or a 429 once its address failed too often. */
  async authenticate(request: Request): Promise<GptCaller> {
    const client = throttleKey(requestContext(request)?.clientAddress ?? UNKNOWN_ADDRESS)
    const now = this.#o.clock.now()
    const wait = await this.#o.attempts.retryAfter(client, now)
    if (wait > 0) throw new HttpError(429, TOO_MANY_KEY_ATTEMPTS, { 'retry-after': String(wait) })
    const key = keyOf(request)
    const caller = key !== null && isGptKey(key) ? await this.#find(sha256Hex(key)) : null
    if (!caller) {
      await this.#o.attempts.failed(client, now)
      throw notAuthenticated()
    }
    return caller
  }

  async #find(hash: string): Promise<GptCaller | null> {
    // A GPT uninstalled or its key rotated on another instance before this call: what was kept before it is dropped.
    const syncing = this.#o.revision.sync?.()
    if (syncing) await syncing
    const revision = this.#o.revision.value
    if (revision !== this.#keptAt) {
      this.#kept.clear()
      this.#keptAt = revision
    }
    const kept = this.#kept.get(hash)
    if (kept) return kept
    const [row] = await byKeyHash(this.#o.db, { hash })
    if (!row || !sameHash(row.key_hash, hash)) return null
    const org = await this.#organisationAccount()
    if (!org) return null
    const caller: GptCaller = {
      id: row.id,
      name: row.name,
      instructions: row.instructions,
      applications: JSON.parse(row.applications) as string[],
      agentName: row.agent_name,
      principal: { userId: org.id, email: org.email, name: org.name, role: org.role, kind: org.kind, via: 'gpt_key', tokenId: row.id },
    }
    // Only what was read before any write since is kept (a rotation while this lookup ran must not be undone).
    if (this.#o.revision.value === revision) {
      if (this.#kept.size >= KEPT_KEYS) this.#kept.clear()
      this.#kept.set(hash, caller)
    }
    return caller
  }

  /** The account GPTs act as; set once at setup and never replaced, so it is read once. */
  async #organisationAccount(): Promise<OrgAccountRow | null> {
    if (this.#orgAccount) return this.#orgAccount
    const row = await this.#o.db
      .selectFrom('instance')
      .innerJoin('users', 'users.id', 'instance.org_user_id')
      .select(['users.id', 'users.email', 'users.name', 'users.role', 'users.kind', 'users.active'])
      .executeTakeFirst()
    if (row?.active !== 1) return null
    this.#orgAccount = row
    return row
  }
}
