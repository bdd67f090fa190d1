// Admin user management: create within the licence's seats, list, update, deactivate (docs/api.md "Sign-in, tokens and roles").
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import type { Kysely } from 'kysely'
import { writeAudit } from '../../platform/audit.ts'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database, UserRole, UsersTable } from '../../platform/db/schema.ts'
import { conflict, notFound, paymentRequired } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { Passwords } from '../auth/index.ts'
import type { LicenseService } from '../license/index.ts'

export const SEAT_LIMIT_REACHED = 'Seat limit reached'
export const EMAIL_TAKEN = 'A user with this e-mail already exists'
export const LAST_ADMIN = 'The last active admin cannot be demoted or deactivated'

export interface UserRecord {
  id: string
  email: string
  name: string
  role: UserRole
  active: boolean
  created_at: string
  updated_at: string
}

export interface NewUser {
  email: string
  name: string
  password: string
  role: UserRole
}

export interface UserChanges {
  name?: string
  role?: UserRole
  password?: string
  active?: boolean
}

const toRecord = (row: Pick<UsersTable, 'id' | 'email' | 'name' | 'role' | 'active' | 'created_at' | 'updated_at'>): UserRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  active: row.active === 1,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

const RECORD_COLUMNS = ['id', 'email', 'name', 'role', 'active', 'created_at', 'updated_at'] as const

export class UsersService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #license: LicenseService
  readonly #passwords: Passwords

  constructor(db: Kysely<Database>, clock: Clock, license: LicenseService, passwords: Passwords) {
    this.#db = db
    this.#clock = clock
    this.#license = license
    this.#passwords = passwords
  }

  async #assertSeatFree(db: Kysely<Database>): Promise<void> {
    const seats = this.#license.current?.seats ?? 0
    if ((await this.#license.seatsUsed(db)) >= seats) throw paymentRequired(SEAT_LIMIT_REACHED)
  }

  /** Seat check and insert share one transaction, so two concurrent creates cannot both take the last seat. */
  async create(input: NewUser, actorId: string | null = null): Promise<UserRecord> {
    const passwordHash = await this.#passwords.hash(input.password)
    const now = isoTime(this.#clock.now())
    const row = {
      id: newId(),
      kind: 'person' as const,
      email: input.email.trim().toLowerCase(),
      name: input.name,
      role: input.role,
      password_hash: passwordHash,
      active: 1,
      session_version: 0,
      created_at: now,
      updated_at: now,
    }
    try {
      await this.#db.transaction().execute(async (trx) => {
        if (await trx.selectFrom('users').select('id').where('email', '=', row.email).executeTakeFirst()) throw conflict(EMAIL_TAKEN)
        await this.#assertSeatFree(trx)
        await trx.insertInto('users').values(row).execute()
        await writeAudit(trx, this.#clock, {
          actor_id: actorId,
          action: 'user.create',
          target_type: 'user',
          target_id: row.id,
          details: { email: row.email, role: row.role },
        })
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(EMAIL_TAKEN)
      throw error
    }
    return toRecord(row)
  }

  /** People only: the organisation's own account is not a user an admin manages. */
  async list(): Promise<UserRecord[]> {
    const rows = await this.#db.selectFrom('users').select(RECORD_COLUMNS).where('kind', '=', 'person').orderBy('created_at').orderBy('id').execute()
    return rows.map(toRecord)
  }

  async #find(db: Kysely<Database>, id: string) {
    const user = await db
      .selectFrom('users')
      .select([...RECORD_COLUMNS, 'session_version'])
      .where('id', '=', id)
      .where('kind', '=', 'person')
      .executeTakeFirst()
    if (!user) throw notFound('User not found')
    return user
  }

  async get(id: string): Promise<UserRecord> {
    return toRecord(await this.#find(this.#db, id))
  }

  /**
   * Deactivation and password changes bump session_version, which revokes every access token at once.
   * Deactivation also revokes the user's personal API tokens for good: reactivating an account must not bring back
   * tokens issued before it was closed. A password change keeps them (they are separate credentials, often in
   * scripts); DELETE /api/users/{id}/tokens or /api/auth/tokens revokes them all.
   */
  async update(id: string, changes: UserChanges, actorId: string | null = null): Promise<UserRecord> {
    const passwordHash = changes.password !== undefined ? await this.#passwords.hash(changes.password) : undefined
    return this.#db.transaction().execute(async (trx) => {
      const user = await this.#find(trx, id)
      const demoting = changes.role === 'member' && user.role === 'admin'
      const deactivating = changes.active === false && user.active === 1
      if ((demoting || deactivating) && user.role === 'admin' && user.active === 1) {
        const admins = await trx
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('kind', '=', 'person')
          .where('role', '=', 'admin')
          .where('active', '=', 1)
          .executeTakeFirstOrThrow()
        if (Number(admins.n) <= 1) throw conflict(LAST_ADMIN)
      }
      if (changes.active === true && user.active === 0) await this.#assertSeatFree(trx)
      const revokeSessions = deactivating || passwordHash !== undefined
      const updated = await trx
        .updateTable('users')
        .set({
          ...(changes.name !== undefined && { name: changes.name }),
          ...(changes.role !== undefined && { role: changes.role }),
          ...(changes.active !== undefined && { active: changes.active ? 1 : 0 }),
          ...(passwordHash !== undefined && { password_hash: passwordHash }),
          ...(revokeSessions && { session_version: user.session_version + 1 }),
          updated_at: isoTime(this.#clock.now()),
        })
        .where('id', '=', id)
        .returning(RECORD_COLUMNS)
        .executeTakeFirstOrThrow()
      if (deactivating)
        await trx
          .updateTable('api_tokens')
          .set({ revoked_at: isoTime(this.#clock.now()) })
          .where('user_id', '=', id)
          .where('revoked_at', 'is', null)
          .execute()
      await auditUserChanges(trx, this.#clock, actorId, user, changes, passwordHash !== undefined)
      return toRecord(updated)
    })
  }

  /** DELETE deactivates: the user's data stays, their tokens stop working. */
  deactivate(id: string, actorId: string | null = null): Promise<UserRecord> {
    return this.update(id, { active: false }, actorId)
  }
}

/** One entry per kind of change an admin made: access (role, active) and credentials are what an auditor looks for. */
async function auditUserChanges(
  db: Kysely<Database>,
  clock: Clock,
  actorId: string | null,
  before: { id: string; email: string; role: string; active: number; name: string },
  changes: UserChanges,
  passwordChanged: boolean,
): Promise<void> {
  const entry = (action: string, details: Record<string, unknown>) =>
    writeAudit(db, clock, { actor_id: actorId, action, target_type: 'user', target_id: before.id, details: { email: before.email, ...details } })
  if (changes.role !== undefined && changes.role !== before.role) await entry('user.role_change', { from: before.role, to: changes.role })
  if (changes.active === false && before.active === 1) await entry('user.deactivate', {})
  if (changes.active === true && before.active === 0) await entry('user.reactivate', {})
  if (passwordChanged) await entry('user.password_reset', {})
  if (changes.name !== undefined && changes.name !== before.name) await entry('user.rename', { from: before.name, to: changes.name })
}
