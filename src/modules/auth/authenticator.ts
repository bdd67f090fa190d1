// Resolves a bearer token to a principal on every request, fast: principals remembered until the next write, else cached statements on the read connection.
import { type CompiledQuery, sql, type Kysely } from 'kysely'
import type { Authenticate, Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import type { ReadStatement } from '../../platform/db/database.ts'
import type { Database, UserKind, UserRole } from '../../platform/db/schema.ts'
import { notAuthenticated } from '../../platform/http/http-error.ts'
import { sha256Hex } from '../../platform/ids.ts'
import { verifyAccessToken, type AccessClaims } from './access-tokens.ts'
import { isApiToken } from './api-tokens.ts'

interface UserRow {
  id: string
  email: string
  name: string
  role: UserRole
  kind: UserKind
  active: number
  session_version: number
}

interface TokenRow extends UserRow {
  token_id: string
  token_kind: 'org' | 'pat'
}

/** Verified signatures are remembered so a busy client pays the HMAC once; expiry is still checked every time. */
const VERIFIED_CACHE_LIMIT = 10_000
/** Principals remembered per bearer token; the map is emptied by any write, so this only bounds a quiet spell. */
const PRINCIPAL_CACHE_LIMIT = 10_000

export interface AuthenticatorOptions {
  readonly db: Kysely<Database>
  /** A statement on the database's read connection (DatabaseHandle.readStatement). */
  readonly readStatement: <Row>(query: CompiledQuery) => ReadStatement<Row>
  /**
   * What remembered principals live by: they are kept only while it stands still. On SQLite the database's change stamp
   * (DatabaseHandle.changeStamp); on PostgreSQL the `sign_ins` cluster revision, which every instance's changes to
   * users, API tokens and session ends move (stored triggers, in the writing transaction).
   */
  readonly changeStamp: () => number | null
  /**
   * Brings the stamp up to date with what other instances committed before the call, or before `since` (the request's
   * arrival) when given (PostgreSQL: the revision's sync); undefined when there is nothing to wait for.
   */
  readonly sync?: (since?: number) => Promise<void> | undefined
  readonly clock: Clock
  /** The instance's signing key, null until setup has made one. */
  readonly accessTokenSecret: () => Buffer | null
}

/**
 * A principal found for a bearer token is remembered until the database's change stamp moves, that is until any row
 * is written (or while a write transaction is open, when nothing is remembered). Revoking a token, deactivating a
 * user, changing a role or a password are writes, so each is seen by the very next request; a read-only request
 * stream pays one Map lookup instead of a SQLite read (~3 µs, most of it the WAL read lock; docs/benchmarks.md).
 *
 * On a miss the statements are built with Kysely (typed, parameterised) and compiled once, then run on the read
 * connection, which sees only committed rows: synchronously on SQLite (bun:sqlite caches the prepared statement), as a
 * promise on PostgreSQL. There a principal is remembered only if the stamp taken before the read still stands after it.
 */
export function createAuthenticator({ db, readStatement, changeStamp, sync, clock, accessTokenSecret }: AuthenticatorOptions): Authenticate {
  const userColumns = ['users.id', 'users.email', 'users.name', 'users.role', 'users.kind', 'users.active', 'users.session_version'] as const
  let userById: ReadStatement<UserRow> | undefined
  let liveSession: ReadStatement<{ id: string }> | undefined
  let userByTokenHash: ReadStatement<TokenRow> | undefined
  const verified = new Map<string, AccessClaims>()
  let verifiedWith: Buffer | null = null
  const principals = new Map<string, Principal>()
  let principalsStamp: number | null = null

  /** The remembered principal, after emptying the map if anything was written since it was filled. */
  function remembered(bearer: string): Principal | undefined {
    const stamp = changeStamp()
    if (stamp !== principalsStamp) {
      principals.clear()
      principalsStamp = stamp
    }
    return stamp === null ? undefined : principals.get(bearer)
  }

  /**
   * `stamp` is the one remembered() saw before the read: if a write started since (the read awaited on PostgreSQL), the
   * row may predate it and is not kept. On SQLite both run in the same synchronous turn.
   */
  function remember(bearer: string, principal: Principal, stamp: number | null): Principal {
    if (stamp === null || principalsStamp !== stamp || changeStamp() !== stamp) return principal
    if (principals.size >= PRINCIPAL_CACHE_LIMIT) principals.clear()
    principals.set(bearer, principal)
    return principal
  }

  const prepareLiveSession = () =>
    readStatement<{ id: string }>(db.selectFrom('auth_sessions').select('id').where('id', '=', '?').where('revoked_at', 'is', null).compile())
  const prepareUserById = () => readStatement<UserRow>(db.selectFrom('users').select(userColumns).where('users.id', '=', '?').compile())
  // The token row is found in a LIMIT 1 subquery, then joined: written as a plain two-table join the statement
  // cost ~8 µs more per run on bun's SQLite (docs/benchmarks.md), and LIMIT 1 keeps SQLite from flattening it back.
  const prepareUserByTokenHash = () =>
    readStatement<TokenRow>(
      db
        .selectFrom((eb) =>
          eb
            .selectFrom('api_tokens')
            .select(['id', 'kind', 'user_id'])
            .where('token_hash', '=', '?')
            .where('revoked_at', 'is', null)
            .limit(sql.lit(1))
            .as('token'),
        )
        .innerJoin('users', 'users.id', 'token.user_id')
        .select([...userColumns, 'token.id as token_id', 'token.kind as token_kind'])
        .compile(),
    )

  const toPrincipal = (row: UserRow, via: Principal['via'], tokenId: string | null): Principal => ({
    userId: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    kind: row.kind,
    via,
    tokenId,
  })

  function fromApiToken(bearer: string): Principal | Promise<Principal> {
    const known = remembered(bearer)
    if (known) return known
    const stamp = principalsStamp
    userByTokenHash ??= prepareUserByTokenHash()
    const found = (row: TokenRow | null) => {
      if (row?.active !== 1) throw notAuthenticated()
      return remember(bearer, toPrincipal(row, row.token_kind === 'org' ? 'org_token' : 'pat', row.token_id), stamp)
    }
    return then(userByTokenHash([sha256Hex(bearer)]), found)
  }

  function fromAccessToken(bearer: string): Principal | Promise<Principal> {
    const secret = accessTokenSecret()
    if (!secret) throw notAuthenticated()
    if (verifiedWith !== secret) {
      verified.clear()
      verifiedWith = secret
    }
    const now = clock.now()
    let claims = verified.get(bearer)
    if (claims === undefined) {
      const checked = verifyAccessToken(secret, bearer, now)
      if (!checked) throw notAuthenticated()
      if (verified.size >= VERIFIED_CACHE_LIMIT) verified.clear()
      verified.set(bearer, checked)
      claims = checked
    } else if (claims.exp * 1000 <= now) {
      verified.delete(bearer)
      throw notAuthenticated()
    }
    const known = remembered(bearer)
    if (known) return known
    const stamp = principalsStamp
    const sessionId = claims.sid
    const sessionVersion = claims.sv
    userById ??= prepareUserById()
    return then(userById([claims.sub]), (row) => {
      if (row?.active !== 1 || row.session_version !== sessionVersion) throw notAuthenticated()
      const principal = toPrincipal(row, 'access_token', null)
      // A console session's token ends with its session (sign-out in any tab); the session's end time caps its exp.
      if (sessionId === undefined) return remember(bearer, principal, stamp)
      liveSession ??= prepareLiveSession()
      return then(liveSession([sessionId]), (session) => {
        if (session === null) throw notAuthenticated()
        return remember(bearer, principal, stamp)
      })
    })
  }

  return function authenticate(authorization, arrivedAt) {
    if (!authorization) throw notAuthenticated()
    const space = authorization.indexOf(' ')
    if (space < 0 || authorization.slice(0, space).toLowerCase() !== 'bearer') throw notAuthenticated()
    const bearer = authorization.slice(space + 1).trim()
    if (bearer.length === 0 || bearer.length > 4096) throw notAuthenticated()
    const resolve = () => (isApiToken(bearer) ? fromApiToken(bearer) : fromAccessToken(bearer))
    // Another instance's revocation committed before this request must empty what this one remembered.
    const syncing = sync?.(arrivedAt)
    return syncing ? syncing.then(resolve) : resolve()
  }
}

/** Continues with `next` at once for a value, after it for a promise: SQLite's reads stay synchronous. */
function then<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value)
}
