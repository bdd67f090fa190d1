// Several instances on one database read one keyring. At boot (PostgreSQL) the key id the keyring seals with is
// recorded in the database by the first instance that has one (a fresh database: the keyring is made then, so every
// later instance must hold it), and every instance must hold the recorded key: one whose secrets directory lacks it
// (a directory of its own, a copy older than the last rotation) does not start.
import type { Kysely } from 'kysely'
import { agreeOnFingerprint, notSharedDirectory, storedFingerprint } from '../cluster/shared-keys.ts'
import type { Database } from '../db/schema.ts'
import { CREDENTIALS_KEY_FILE, SecretBox } from './secret-box.ts'
import type { SecretStore } from './secret-files.ts'

export async function checkSharedKeyring(db: Kysely<Database>, store: SecretStore): Promise<void> {
  const box = new SecretBox(store)
  const missing = (kid: string) => notSharedDirectory(store.dir, `does not hold the key "${kid}" the other instances seal with (${CREDENTIALS_KEY_FILE})`)
  const stored = await storedFingerprint(db, 'keyring')
  if (stored !== null) {
    if (!box.keyIds.includes(stored)) throw missing(stored)
    return
  }
  let current = box.currentKeyId
  if (current === null) {
    // Values sealed before anything was recorded (a database restored or upgraded without its keys file): a keyring
    // made now would not open them. Left as one instance leaves it: each such secret says its key is missing.
    if (await db.selectFrom('sealed_secrets').select('namespace').limit(1).executeTakeFirst()) return
    current = box.ensureKeyring()
  }
  const agreed = await agreeOnFingerprint(db, 'keyring', current)
  if (!box.keyIds.includes(agreed)) throw missing(agreed)
}
