// The current licence: verified on apply, cached in memory, and the source of seats, expiry and the 402 write block.
// Several instances on one database: applying a licence bumps the `license` revision in the writing transaction, and
// every instance reloads the licence when it sees the revision move (refresh(), before each request).
import type { Kysely, Transaction } from 'kysely'
import { writeAudit } from '../../platform/audit.ts'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database, LicensesTable } from '../../platform/db/schema.ts'
import { invalidInput } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { Revision } from '../../platform/revision.ts'
import { evaluationClaims, isEvaluation, isEvaluationToken } from './evaluation.ts'
import { GRACE_DAYS, licenseStatus, verifyLicenseToken, type Keyring, type LicenseClaims } from './token.ts'

export type LicenseState = 'valid' | 'grace' | 'expired'

export interface LicenseSummary {
  lic: string
  org: string
  seats: number
  seats_used: number
  features: string[]
  expires_at: string
  status: LicenseState
  /** A 30-day evaluation started at setup, not a signed licence. */
  evaluation: boolean
}

const DAY_MS = 86_400_000

/** Throws the contract's 422 on ["body","license_token"] unless the token verifies against the keyring. */
export function verifyOrReject(token: string, keyring: Keyring, nowMs: number): LicenseClaims {
  const result = verifyLicenseToken(token, keyring, nowMs)
  if (!result.ok) throw invalidInput({ loc: ['license_token'], msg: result.msg, type: result.type })
  return result.claims
}

export class LicenseService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #keyring: Keyring
  readonly #revision: Revision | null
  #current: LicensesTable | null = null
  /** The revision the kept licence was read at. */
  #loadedAt = -1

  constructor(db: Kysely<Database>, clock: Clock, keyring: Keyring, revision: Revision | null = null) {
    this.#db = db
    this.#clock = clock
    this.#keyring = keyring
    this.#revision = revision
  }

  /** Reads the newest applied licence; called at boot and after every change. */
  async load(): Promise<void> {
    this.#loadedAt = this.#revision?.value ?? -1
    this.#current = (await this.#db.selectFrom('licenses').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null
  }

  /**
   * Another instance may have applied a licence (or run setup): reads the stored revision and reloads when it moved.
   * Nothing to do with one process (SQLite), where every change went through `load` already.
   */
  async refresh(): Promise<void> {
    const pending = this.#revision?.sync?.()
    if (!pending) return
    await pending
    if (this.#revision!.value !== this.#loadedAt) await this.load()
  }

  get current(): LicensesTable | null {
    return this.#current
  }

  verify(token: string): LicenseClaims {
    return verifyOrReject(token, this.#keyring, this.#clock.now())
  }

  /**
   * At setup: the signed licence's claims, or a 30-day evaluation's when the token says `evaluation`. Only an evaluation
   * takes an organisation name (else "Evaluation"): a signed licence names its organisation, so one sent with it is a 422.
   */
  claimsForSetup(token: string, orgName?: string): LicenseClaims {
    if (isEvaluationToken(token)) return evaluationClaims(this.#clock.now(), orgName?.trim() || undefined)
    if (orgName !== undefined) {
      throw invalidInput({
        loc: ['org_name'],
        msg: 'Only an evaluation takes an organisation name: a licence names its organisation itself',
        type: 'value_error',
        input: orgName,
      })
    }
    return this.verify(token)
  }

  /** True while the instance runs on the evaluation it started at setup. */
  isEvaluation(): boolean {
    return this.#current !== null && isEvaluation(this.#current)
  }

  state(): LicenseState | null {
    return this.#current ? licenseStatus(Date.parse(this.#current.expires_at), this.#clock.now()) : null
  }

  /** Past expiry plus the grace period: reads go on, mutations answer 402. */
  isLapsed(): boolean {
    return this.state() === 'expired'
  }

  /** Milliseconds until expiry (negative once expired), or null without a licence. */
  msUntilExpiry(): number | null {
    return this.#current ? Date.parse(this.#current.expires_at) - this.#clock.now() : null
  }

  /** Stores a verified licence; setup calls it inside its own transaction. */
  async insert(trx: Transaction<Database> | Kysely<Database>, claims: LicenseClaims, token: string, appliedBy: string | null): Promise<void> {
    await trx
      .insertInto('licenses')
      .values({
        id: newId(),
        lic: claims.lic,
        customer_id: claims.sub,
        org_name: claims.org,
        seats: claims.seats,
        features: JSON.stringify(claims.features),
        issued_at: isoTime(claims.iat * 1000),
        not_before: isoTime(claims.nbf * 1000),
        expires_at: isoTime(claims.exp * 1000),
        token,
        applied_at: isoTime(this.#clock.now()),
        applied_by: appliedBy,
      })
      .execute()
    await this.#revision?.changed(trx)
  }

  /**
   * Replaces the current licence only with a valid one for the same customer. An evaluation has no customer: the
   * first signed licence names it, and the organisation takes the licence's name.
   */
  async apply(token: string, appliedBy: string, actorId: string | null = null): Promise<LicenseSummary> {
    if (isEvaluationToken(token)) {
      throw invalidInput({ loc: ['license_token'], msg: 'An evaluation can only be started at setup: apply a signed licence', type: 'license_invalid' })
    }
    const claims = this.verify(token)
    const current = this.#current
    const fromEvaluation = current !== null && isEvaluation(current)
    if (current && !fromEvaluation && current.customer_id !== claims.sub) {
      throw invalidInput({ loc: ['license_token'], msg: 'License is for a different customer', type: 'license_invalid' })
    }
    await this.#db.transaction().execute(async (trx) => {
      if (fromEvaluation) {
        await trx.updateTable('instance').set({ org_name: claims.org, customer_id: claims.sub }).execute()
        await trx
          .updateTable('users')
          .set({ name: claims.org, updated_at: isoTime(this.#clock.now()) })
          .where('kind', '=', 'organisation')
          .execute()
      }
      await this.insert(trx, claims, token, appliedBy)
      // The claims, never the token itself.
      await writeAudit(trx, this.#clock, {
        actor_id: actorId,
        action: 'license.apply',
        target_type: 'license',
        target_id: claims.lic,
        details: { seats: claims.seats, expires_at: new Date(claims.exp * 1000).toISOString(), previous: current?.lic ?? null },
      })
    })
    await this.load()
    return this.summary()
  }

  async seatsUsed(db: Kysely<Database> | Transaction<Database> = this.#db): Promise<number> {
    const row = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', 'person')
      .where('active', '=', 1)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  async summary(): Promise<LicenseSummary> {
    const current = this.#current
    if (!current) throw new Error('summary() needs a licence: the instance is not provisioned')
    return {
      lic: current.lic,
      org: current.org_name,
      seats: current.seats,
      seats_used: await this.seatsUsed(),
      features: JSON.parse(current.features) as string[],
      expires_at: current.expires_at,
      status: this.state()!,
      evaluation: isEvaluation(current),
    }
  }

  /** When health should warn: in grace, or fewer than 14 days left. */
  needsAttention(): boolean {
    const left = this.msUntilExpiry()
    return left !== null && left < GRACE_DAYS * DAY_MS
  }
}
