// Several instances on one database read one keyring. At boot (PostgreSQL) the keyring is made if no instance has one
// yet, the key id it seals with is recorded in the database by the first instance, and every instance must hold that
// key: one whose secrets directory lacks it (its own directory, a stale copy) does not start.
import type { Kysely } from 'kysely'
import { agreeOnFingerprint, notSharedDirectory, storedFingerprint } from '../cluster/shared-keys.ts'
import type { Database } from '../db/schema.ts'
import { CREDENTIALS_KEY_FILE, SecretBox } from './secret-box.ts'
import type { SecretStore } from './secret-files.ts'

export async function checkSharedKeyring(db: Kysely<Database>, store: SecretStore): Promise<void> {
  const box = new SecretBox(store)
  const required = (await storedFingerprint(db, 'keyring')) ?? (await agreeOnFingerprint(db, 'keyring', box.ensureKeyring()))
  if (!box.keyIds.includes(required))
    throw notSharedDirectory(store.dir, `does not hold the key "${required}" the other instances seal with (${CREDENTIALS_KEY_FILE})`)
}
