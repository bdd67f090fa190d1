// One kind of sealed secret (a namespace of the vault): store, clear, list and open credentials by subject, owner and
// name. Every write moves the vault's revision, so a changed or cleared secret is what the very next call sees.
import type { Kysely } from 'kysely'
import { isoTime, type Clock } from '../clock.ts'
import type { Leases } from '../cluster/leases.ts'
import type { Database } from '../db/schema.ts'
import type { SafeFetch } from '../outbound/safe-fetch.ts'
import { RevisionCache, type Revision } from '../revision.ts'
import { type Credential, type CredentialType, CredentialFormatError, type OAuth2Credential, parseCredential, serializeCredential } from './credential.ts'
import { CredentialRefreshError, needsRefresh, refreshOAuth2 } from './oauth-refresh.ts'
import { SecretBoxError, type SecretBox } from './secret-box.ts'

/** The owner of the organisation's own secrets (an application's shared credential, a repository token). */
export const ORG_OWNER = 'org'

export interface SecretNamespaceDefinition {
  /**
   * Stored in every row and bound into every value's associated data, so it is never renamed: lowercase letters,
   * digits and `_` (`app_credential`, `git_repository_token`, `mcp_server_token`).
   */
  readonly name: string
  /** What the values are, in a sentence fragment an operator reads ("application credentials"). */
  readonly label: string
  /** The credential types this namespace may hold; storing another is a programming error (it throws). */
  readonly types: readonly CredentialType[]
}

/** Which secret: what it belongs to, whose it is, and which of the subject's secrets. */
export interface SecretRef {
  /** An application id, a repository id, an MCP server id. */
  readonly subject: string
  /** A user id, or ORG_OWNER. */
  readonly owner: string
  /** Which of the subject's secrets (a security scheme's name); '' (the default) when the subject has one. */
  readonly name?: string
}

/** What a list shows of a stored secret: never the secret. */
export interface SecretStatus {
  readonly name: string
  readonly updated_at: string
  /** Why the value cannot be opened (its key is missing from the keyring: restored without its keys), else null. */
  readonly problem: string | null
}

/** The vault's parts a namespace works with (vault.ts owns them). */
export interface VaultParts {
  readonly db: Kysely<Database>
  readonly box: SecretBox
  readonly clock: Clock
  readonly revision: Revision
  /** The guarded outbound client, for OAuth 2 refresh. */
  readonly fetch: SafeFetch
  /** Work once at a time per key across every instance (the cluster's leases; in memory for one process). */
  readonly leases: Pick<Leases, 'run'>
}

const nameOf = (ref: SecretRef) => ref.name ?? ''

/** What a value of (namespace, subject, owner, name) is sealed for; key rotation re-seals every row with it. */
export const associatedDataOf = (namespace: string, subject: string, owner: string, name: string): string => `${namespace}:${subject}:${owner}:${name}`
const cacheKey = (subject: string, owner: string) => `${subject}\n${owner}`

export class SecretNamespace {
  readonly definition: SecretNamespaceDefinition
  readonly #parts: VaultParts
  /** Sealed values by subject and owner, for calls: emptied by any write to any namespace. */
  readonly #sealed: RevisionCache<ReadonlyMap<string, string>>
  /** Refreshes under way on this instance, by secret: concurrent callers share one (instances wait for each other's). */
  readonly #refreshing = new Map<string, Promise<Credential | null>>()

  constructor(definition: SecretNamespaceDefinition, parts: VaultParts) {
    this.definition = definition
    this.#parts = parts
    this.#sealed = new RevisionCache(parts.revision)
  }

  /** What GCM binds the value to: moving it to another namespace, subject, owner or name makes it unreadable. */
  associatedData(ref: SecretRef): string {
    return associatedDataOf(this.definition.name, ref.subject, ref.owner, nameOf(ref))
  }

  /**
   * Stores (or replaces) a secret, in `db`'s transaction if it is one. Answers the stored time. The value is sealed
   * here, just before the write, so a key rotation running meanwhile never misses it.
   */
  async put(db: Kysely<Database>, ref: SecretRef, credential: Credential, actorId: string): Promise<string> {
    if (!this.definition.types.includes(credential.type))
      throw new CredentialFormatError(`the ${this.definition.name} namespace holds ${this.definition.types.join(', ')} credentials, not ${credential.type}`)
    const now = isoTime(this.#parts.clock.now())
    const sealed = this.#parts.box.seal(serializeCredential(credential), this.associatedData(ref))
    await db
      .insertInto('sealed_secrets')
      .values({ namespace: this.definition.name, subject: ref.subject, owner: ref.owner, name: nameOf(ref), sealed, updated_at: now, updated_by: actorId })
      .onConflict((oc) => oc.columns(['namespace', 'subject', 'owner', 'name']).doUpdateSet({ sealed, updated_at: now, updated_by: actorId }))
      .execute()
    await this.#parts.revision.changed(db)
    return now
  }

  /** Clears one secret; true when there was one. */
  async remove(db: Kysely<Database>, ref: SecretRef): Promise<boolean> {
    const result = await db
      .deleteFrom('sealed_secrets')
      .where('namespace', '=', this.definition.name)
      .where('subject', '=', ref.subject)
      .where('owner', '=', ref.owner)
      .where('name', '=', nameOf(ref))
      .executeTakeFirst()
    await this.#parts.revision.changed(db)
    return result.numDeletedRows > 0n
  }

  /**
   * Clears the subject's secrets that `drop` picks (all of them without it): its deletion, or a change that makes some
   * of them meaningless. Answers how many went.
   */
  async removeOf(db: Kysely<Database>, subject: string, drop?: (owner: string, name: string) => boolean): Promise<number> {
    if (!drop) {
      const result = await db.deleteFrom('sealed_secrets').where('namespace', '=', this.definition.name).where('subject', '=', subject).executeTakeFirst()
      await this.#parts.revision.changed(db)
      return Number(result.numDeletedRows)
    }
    const rows = await db
      .selectFrom('sealed_secrets')
      .select(['owner', 'name'])
      .where('namespace', '=', this.definition.name)
      .where('subject', '=', subject)
      .execute()
    let removed = 0
    for (const row of rows) {
      if (!drop(row.owner, row.name)) continue
      await db
        .deleteFrom('sealed_secrets')
        .where('namespace', '=', this.definition.name)
        .where('subject', '=', subject)
        .where('owner', '=', row.owner)
        .where('name', '=', row.name)
        .execute()
      removed++
    }
    await this.#parts.revision.changed(db)
    return removed
  }

  /** The owner's stored secrets of a subject by name, without opening them (lists say connected or why not). */
  async status(subject: string, owner: string): Promise<Map<string, SecretStatus>> {
    const rows = await this.#parts.db
      .selectFrom('sealed_secrets')
      .select(['name', 'sealed', 'updated_at'])
      .where('namespace', '=', this.definition.name)
      .where('subject', '=', subject)
      .where('owner', '=', owner)
      .execute()
    return new Map(
      rows.map((row) => [row.name, { name: row.name, updated_at: row.updated_at, problem: this.#parts.box.checkKey(row.sealed)?.message ?? null }]),
    )
  }

  /** The subjects for which `owner` has a secret here (one person's connections), sorted. */
  async subjectsOf(owner: string): Promise<string[]> {
    const rows = await this.#parts.db
      .selectFrom('sealed_secrets')
      .select('subject')
      .distinct()
      .where('namespace', '=', this.definition.name)
      .where('owner', '=', owner)
      .orderBy('subject')
      .execute()
    return rows.map((row) => row.subject)
  }

  /**
   * Reads go through the vault's own connection: never call `open` or `openForUse` inside a transaction you hold (its
   * queries would wait for it). Writes take the caller's `db`, a transaction or not.
   *
   * The stored credential, or null when none is stored. Throws SecretBoxError when it cannot be opened (its key is
   * missing, or the value was altered): callers treat that as not connected, with the error's message as the reason.
   */
  async open(ref: SecretRef): Promise<Credential | null> {
    const sealed = await this.#sealedValue(ref)
    return sealed === undefined ? null : this.#openSealed(ref, sealed)
  }

  /**
   * Like `open`, ready to send: an OAuth 2 access token that expires within a minute is refreshed first (once, however
   * many callers ask at the same time, on any instance) and the new tokens stored. A refresh that fails throws
   * CredentialRefreshError; a secret cleared while it was refreshed answers null.
   */
  async openForUse(ref: SecretRef): Promise<Credential | null> {
    const sealed = await this.#sealedValue(ref)
    if (sealed === undefined) return null
    const credential = this.#openSealed(ref, sealed)
    if (credential.type !== 'oauth2' || !needsRefresh(credential, this.#parts.clock.now())) return credential
    const key = `${ref.subject}\n${ref.owner}\n${nameOf(ref)}`
    let refresh = this.#refreshing.get(key)
    if (!refresh) {
      const lease = `secret_refresh:${this.associatedData(ref)}`
      refresh = this.#parts.leases.run(lease, () => this.#refreshOnce(ref, sealed, credential)).finally(() => this.#refreshing.delete(key))
      this.#refreshing.set(key, refresh)
    }
    return refresh
  }

  /**
   * Holding the secret's lease. Two instances sending one refresh token at once would have the second refused by a
   * server that rotates refresh tokens (and one that detects reuse revokes both): so another instance's refresh, done
   * while this one waited for the lease, is used as it stored it.
   */
  async #refreshOnce(ref: SecretRef, sealedBefore: string, credential: OAuth2Credential): Promise<Credential | null> {
    const stored = await this.#storedValue(ref)
    if (stored === undefined) return null
    if (stored === sealedBefore) return this.#refresh(ref, sealedBefore, credential)
    const current = this.#openSealed(ref, stored)
    if (current.type !== 'oauth2' || !needsRefresh(current, this.#parts.clock.now())) return current
    return this.#refresh(ref, stored, current)
  }

  async #refresh(ref: SecretRef, sealedBefore: string, credential: OAuth2Credential): Promise<Credential | null> {
    let next: OAuth2Credential
    try {
      next = await refreshOAuth2(this.#parts.fetch, this.#parts.clock, credential)
    } catch (error) {
      // Another instance (or a reconnect) may have stored new tokens meanwhile, and a rotating server refuses the old
      // refresh token once it was used: what is stored now wins if it changed.
      if (!(error instanceof CredentialRefreshError)) throw error
      const stored = await this.#storedValue(ref)
      if (stored === undefined) return null
      if (stored === sealedBefore) throw error
      const current = this.#openSealed(ref, stored)
      if (current.type === 'oauth2' && needsRefresh(current, this.#parts.clock.now())) throw error
      return current
    }
    const sealed = this.#parts.box.seal(serializeCredential(next), this.associatedData(ref))
    const written = await this.#parts.db
      .updateTable('sealed_secrets')
      .set({ sealed, updated_at: isoTime(this.#parts.clock.now()) })
      .where('namespace', '=', this.definition.name)
      .where('subject', '=', ref.subject)
      .where('owner', '=', ref.owner)
      .where('name', '=', nameOf(ref))
      .where('sealed', '=', sealedBefore)
      .executeTakeFirst()
    await this.#parts.revision.changed(this.#parts.db)
    if (written.numUpdatedRows > 0n) return next
    // Cleared or replaced while the refresh was out: a cleared secret stays cleared, a replaced one is used as it is now.
    const stored = await this.#storedValue(ref)
    return stored === undefined ? null : this.#openSealed(ref, stored)
  }

  #openSealed(ref: SecretRef, sealed: string): Credential {
    const json = this.#parts.box.open(sealed, this.associatedData(ref))
    try {
      return parseCredential(json)
    } catch (error) {
      if (!(error instanceof CredentialFormatError)) throw error
      throw new SecretBoxError('malformed', 'the stored secret is not a credential this version can read')
    }
  }

  async #sealedValue(ref: SecretRef): Promise<string | undefined> {
    const byName = await this.#sealed.get(cacheKey(ref.subject, ref.owner), async () => {
      const rows = await this.#parts.db
        .selectFrom('sealed_secrets')
        .select(['name', 'sealed'])
        .where('namespace', '=', this.definition.name)
        .where('subject', '=', ref.subject)
        .where('owner', '=', ref.owner)
        .execute()
      return new Map(rows.map((row) => [row.name, row.sealed]))
    })
    return byName.get(nameOf(ref))
  }

  async #storedValue(ref: SecretRef): Promise<string | undefined> {
    const row = await this.#parts.db
      .selectFrom('sealed_secrets')
      .select('sealed')
      .where('namespace', '=', this.definition.name)
      .where('subject', '=', ref.subject)
      .where('owner', '=', ref.owner)
      .where('name', '=', nameOf(ref))
      .executeTakeFirst()
    return row?.sealed
  }
}

export { SecretBoxError }
