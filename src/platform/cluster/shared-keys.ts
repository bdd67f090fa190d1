// What every instance's secrets directory must match, recorded in the database (`shared_keys`): the key id the keyring
// seals with and a SHA-256 of the access-token signing key (never a key itself). The first instance records what its
// directory holds; every later boot compares, so an instance whose directory is not the shared one (a key missing, a
// directory of its own) refuses to start with a sentence saying so, instead of answering `connected: false` or
// signing tokens no other instance accepts.
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.ts'

export type SharedKeyName = 'keyring' | 'access_token_key'

/** The secrets directory of this instance does not hold what the others use: an operator's situation, one sentence. */
export class SharedKeyError extends Error {}

/** How a directory's key is named in the database: a short SHA-256, from which the key cannot be had. */
export function keyFingerprint(key: Uint8Array | string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32)
}

export async function storedFingerprint(db: Kysely<Database>, name: SharedKeyName): Promise<string | null> {
  return (await db.selectFrom('shared_keys').select('fingerprint').where('name', '=', name).executeTakeFirst())?.fingerprint ?? null
}

/** Records `fingerprint` unless some instance recorded one first; returns the one that stands. */
export async function agreeOnFingerprint(db: Kysely<Database>, name: SharedKeyName, fingerprint: string): Promise<string> {
  await db
    .insertInto('shared_keys')
    .values({ name, fingerprint })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  return (await storedFingerprint(db, name)) ?? fingerprint
}

/** A change every instance shares (the keyring rotated, setup made the signing key). */
export async function recordFingerprint(db: Kysely<Database>, name: SharedKeyName, fingerprint: string): Promise<void> {
  await db
    .insertInto('shared_keys')
    .values({ name, fingerprint })
    .onConflict((oc) => oc.column('name').doUpdateSet({ fingerprint }))
    .execute()
}

/** The sentence for an instance whose secrets directory is not the shared one. */
export function notSharedDirectory(directory: string, what: string): SharedKeyError {
  return new SharedKeyError(
    `The secrets directory ${directory} ${what}: every instance on one database must read the same secrets directory ` +
      '(AGENTBOX_SECRETS_DIR or --secrets-dir, on shared storage, or a copy of it made after the last key rotation)',
  )
}
