// The secrets vault: every sealed secret of the instance in one table (sealed_secrets), one keyring, one revision.
// A kind of secret is a namespace declared here; since values can only be stored through a namespace, into that
// table, key rotation and backups reach every one of them without a list to keep up to date.
import { recordFingerprint } from '../cluster/shared-keys.ts'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock.ts'
import type { Leases } from '../cluster/leases.ts'
import type { Database } from '../db/schema.ts'
import { KeyedLock } from '../keyed-lock.ts'
import type { SafeFetch } from '../outbound/safe-fetch.ts'
import { LocalRevision, type Revision } from '../revision.ts'
import { associatedDataOf, SecretNamespace, type SecretNamespaceDefinition } from './namespace.ts'
import { SecretBox, SecretBoxError } from './secret-box.ts'
import type { SecretStore } from './secret-files.ts'

const NAMESPACE_NAME = /^[a-z][a-z0-9_]{0,47}$/
/** The lease every rotation holds, on whichever instance it runs. */
export const ROTATION_LEASE = 'secrets_rotation'
/** Rows re-encrypted per transaction, with a turn of the event loop between. */
const ROTATION_CHUNK = 200

export interface SecretVaultOptions {
  readonly db: Kysely<Database>
  /** Where the keyring lives (<data>/secrets). */
  readonly files: SecretStore
  /** Several instances share the keyring: a rotation records the new key id every instance must then hold. */
  readonly sharedKeyring?: boolean
  readonly clock: Clock
  /** The guarded outbound client: OAuth 2 refreshes go through it like every other call leaving the machine. */
  readonly fetch: SafeFetch
  /** What caches of opened secrets watch; in memory unless given (several instances will pass a stored one). */
  readonly revision?: Revision
  /**
   * Runs work under a key once at a time across every instance on the database (Cluster.leases): key rotations, and
   * each secret's OAuth 2 refresh. In memory (one process) unless given.
   */
  readonly leases?: Pick<Leases, 'run'>
}

/** One namespace's share of a rotation. */
export interface NamespaceRotation {
  readonly namespace: string
  /** Stored values of this namespace. */
  readonly values: number
  readonly reencrypted: number
  /** Values whose key is missing (restored without the keys file): left as they are, still not connected. */
  readonly unreadable: number
}

export interface KeyRotationResult {
  /** The new current key. */
  readonly key_id: string
  readonly reencrypted: number
  readonly unreadable: number
  /** Keys no stored value uses any more, removed from the keyring. */
  readonly retired_key_ids: string[]
  /** Every namespace declared or found in the table, by name. */
  readonly namespaces: NamespaceRotation[]
}

/** The key id of a stored value; null for one that is not a sealed value at all (counted unreadable, kept as it is). */
function keyIdOrNull(box: SecretBox, sealed: string): string | null {
  try {
    return box.keyIdOf(sealed)
  } catch (error) {
    if (error instanceof SecretBoxError) return null
    throw error
  }
}

interface Counts {
  values: number
  reencrypted: number
  unreadable: number
}

export class SecretVault {
  readonly #options: SecretVaultOptions
  readonly #box: SecretBox
  readonly #revision: Revision
  readonly #namespaces = new Map<string, SecretNamespace>()
  readonly #leases: Pick<Leases, 'run'>

  constructor(options: SecretVaultOptions) {
    this.#options = options
    this.#leases = options.leases ?? new KeyedLock()
    this.#box = new SecretBox(options.files, { clock: options.clock })
    this.#revision = options.revision ?? new LocalRevision()
  }

  /** Moves with every write to any sealed secret (set, clear, refresh, rotation). */
  get revision(): Revision {
    return this.#revision
  }

  /** The id of the key new values are sealed with; null until the first value is sealed. */
  get currentKeyId(): string | null {
    return this.#box.currentKeyId
  }

  /** The namespaces declared so far, in declaration order. */
  get namespaces(): readonly SecretNamespaceDefinition[] {
    return [...this.#namespaces.values()].map((namespace) => namespace.definition)
  }

  /**
   * Declares a kind of secret and answers the handle that stores and opens it: the only way to store one. A name is
   * declared once per vault (a second declaration is a programming error and throws).
   */
  namespace(definition: SecretNamespaceDefinition): SecretNamespace {
    if (!NAMESPACE_NAME.test(definition.name)) throw new RangeError(`secret namespace "${definition.name}" must match ${NAMESPACE_NAME}`)
    if (this.#namespaces.has(definition.name)) throw new RangeError(`secret namespace "${definition.name}" is already declared`)
    if (definition.types.length === 0) throw new RangeError(`secret namespace "${definition.name}" must hold at least one credential type`)
    const { db, clock, fetch } = this.#options
    const box = this.#box
    const parts = { db, box, clock, fetch, revision: this.#revision, leases: this.#leases }
    const namespace = new SecretNamespace(Object.freeze({ ...definition, types: [...definition.types] }), parts)
    this.#namespaces.set(definition.name, namespace)
    return namespace
  }

  /**
   * Steps performed (one rotation at a time across every instance: a second waits for the first, then rotates again
   * from the keyring and rows the first left):
   * 1. the keyring is read from its file (another instance may have rotated), a new key is added to it and becomes the
   *    one that seals;
   * 2. every row of sealed_secrets, whatever its namespace (declared or not), is read in key order, 200 at a time, and
   *    each value not under the new key is opened and sealed again, written only if the row still holds what was
   *    read (a value changed meanwhile was sealed with the new key already);
   * 3. keys no value uses any more are removed from the keyring, after checking once more that none appeared.
   */
  rotateKey(): Promise<KeyRotationResult> {
    return this.#leases.run(ROTATION_LEASE, async () => {
      const { db } = this.#options
      const box = this.#box
      const keyId = box.rotate()
      if (this.#options.sharedKeyring) await recordFingerprint(db, 'keyring', keyId)
      const inUse = new Set<string>([keyId])
      const counts = new Map<string, Counts>(this.namespaces.map((definition) => [definition.name, { values: 0, reencrypted: 0, unreadable: 0 }]))
      let after: readonly [string, string, string, string] | null = null
      for (;;) {
        let query = db.selectFrom('sealed_secrets').select(['namespace', 'subject', 'owner', 'name', 'sealed'])
        if (after) {
          const [namespace, subject, owner, name] = after
          query = query.where((eb) => eb(eb.refTuple('namespace', 'subject', 'owner', 'name'), '>', eb.tuple(namespace, subject, owner, name)))
        }
        const rows = await query.orderBy('namespace').orderBy('subject').orderBy('owner').orderBy('name').limit(ROTATION_CHUNK).execute()
        if (rows.length === 0) break
        await db.transaction().execute(async (trx) => {
          for (const row of rows) {
            let count = counts.get(row.namespace)
            if (!count) counts.set(row.namespace, (count = { values: 0, reencrypted: 0, unreadable: 0 }))
            count.values++
            let sealed = row.sealed
            try {
              sealed = box.reencrypt(row.sealed, associatedDataOf(row.namespace, row.subject, row.owner, row.name))
            } catch (error) {
              if (!(error instanceof SecretBoxError)) throw error
              count.unreadable++
            }
            const kid = keyIdOrNull(box, sealed)
            if (kid) inUse.add(kid)
            if (sealed === row.sealed) continue
            const written = await trx
              .updateTable('sealed_secrets')
              .set({ sealed })
              .where('namespace', '=', row.namespace)
              .where('subject', '=', row.subject)
              .where('owner', '=', row.owner)
              .where('name', '=', row.name)
              .where('sealed', '=', row.sealed)
              .executeTakeFirst()
            if (written.numUpdatedRows > 0n) count.reencrypted++
          }
          await this.#revision.changed(trx)
        })
        const last = rows[rows.length - 1]!
        after = [last.namespace, last.subject, last.owner, last.name]
        await new Promise((resolve) => setImmediate(resolve))
      }
      const retired: string[] = []
      for (const kid of box.keyIds) {
        if (inUse.has(kid) || (await this.#keyStillUsed(kid))) continue
        box.retireKey(kid)
        retired.push(kid)
      }
      const namespaces = [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([namespace, count]) => ({ namespace, ...count }))
      return {
        key_id: keyId,
        reencrypted: namespaces.reduce((sum, entry) => sum + entry.reencrypted, 0),
        unreadable: namespaces.reduce((sum, entry) => sum + entry.unreadable, 0),
        retired_key_ids: retired,
        namespaces,
      }
    })
  }

  /** A value sealed with `kid` stored after the scan passed its row (sealed before the rotation, written after). */
  async #keyStillUsed(kid: string): Promise<boolean> {
    // `_` in a key id is LIKE's one-character wildcard: at worst a key is kept one rotation longer.
    const row = await this.#options.db.selectFrom('sealed_secrets').select('namespace').where('sealed', 'like', `v1:${kid}:%`).limit(1).executeTakeFirst()
    return row !== undefined
  }
}
