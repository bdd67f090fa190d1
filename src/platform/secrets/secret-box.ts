// The secret box: values we must replay later (application credentials, git and MCP server tokens) sealed with
// AES-256-GCM under a key kept outside the database, in <data>/secrets/credentials.key. Only the secrets subsystem
// (this folder) uses it: every sealed value lives in its one table, so key rotation and backups reach them all.
//
// A sealed value is `v1:<key id>:<nonce>:<ciphertext and tag>` (base64url): the key id says which key of the
// keyring opens it, so keys can be rotated while old values still open; the associated data the caller passes
// (e.g. `app_credential:<api>:<owner>:<scheme>`) is authenticated with it, so a value copied onto another row
// or owner does not open. A database without its key file (restored without FILE.keys) gives `key_missing`
// errors the caller reports as "not connected", never a crash.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { isoTime, systemClock, type Clock } from '../clock.ts'
import type { SecretStore } from './secret-files.ts'

export const CREDENTIALS_KEY_FILE = 'credentials.key'
const KEY_FILE_LABEL = `secrets/${CREDENTIALS_KEY_FILE}`
const VERSION = 'v1'
const NONCE_BYTES = 12
const TAG_BYTES = 16
const KEY_BYTES = 32

/**
 * - `key_missing`: the key that sealed the value is not in the keyring (or there is no keyring).
 * - `undecryptable`: the key is there but the value does not authenticate: altered, or sealed for other
 *   associated data (another owner or purpose). GCM cannot tell these apart, and neither do we.
 * - `malformed`: not a sealed value of a version we know.
 * - `keyring_unreadable`: the key file exists but cannot be read or is not a keyring; it is never overwritten.
 */
export type SecretBoxErrorCode = 'key_missing' | 'undecryptable' | 'malformed' | 'keyring_unreadable'

/** The message is a sentence fit for a `connected: false` reason: it names a key id or the key file, never a secret. */
export class SecretBoxError extends Error {
  readonly code: SecretBoxErrorCode

  constructor(code: SecretBoxErrorCode, message: string) {
    super(message)
    this.name = 'SecretBoxError'
    this.code = code
  }
}

interface StoredKey {
  readonly kid: string
  /** base64url of 32 random bytes. */
  readonly key: string
  readonly created_at: string
}

/** The key file: JSON, so an operator can see which key ids exist and which one seals. */
interface Keyring {
  readonly version: 1
  readonly current: string
  readonly keys: readonly StoredKey[]
}

interface LoadedKeyring {
  readonly stored: Keyring
  readonly keys: ReadonlyMap<string, Buffer>
}

interface Envelope {
  readonly kid: string
  readonly nonce: Buffer
  readonly sealed: Buffer
}

/** base64url that decodes and re-encodes to itself: Buffer.from alone skips characters it does not know. */
function strictBase64url(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64url')
  return bytes.toString('base64url') === text ? bytes : null
}

function parseEnvelope(envelope: string): Envelope {
  const parts = envelope.split(':')
  const malformed = () => new SecretBoxError('malformed', 'the stored value is not a sealed secret this version can read')
  if (parts.length !== 4 || parts[0] !== VERSION || !parts[1]) throw malformed()
  const nonce = strictBase64url(parts[2]!)
  const sealed = strictBase64url(parts[3]!)
  if (nonce?.length !== NONCE_BYTES || !sealed || sealed.length < TAG_BYTES) throw malformed()
  return { kid: parts[1], nonce, sealed }
}

function readKeyring(text: string): LoadedKeyring | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  const ring = parsed as Partial<Keyring> | null
  if (ring?.version !== 1 || typeof ring.current !== 'string' || !Array.isArray(ring.keys)) return null
  const keys = new Map<string, Buffer>()
  for (const entry of ring.keys as unknown[]) {
    const { kid, key } = (entry ?? {}) as Partial<StoredKey>
    const bytes = typeof key === 'string' ? strictBase64url(key) : null
    if (typeof kid !== 'string' || !/^[\w-]+$/.test(kid) || bytes?.length !== KEY_BYTES || keys.has(kid)) return null
    keys.set(kid, bytes)
  }
  if (!keys.has(ring.current)) return null
  return { stored: ring as Keyring, keys }
}

/** What GCM authenticates besides the ciphertext: the envelope's header and the caller's binding. */
const associatedData = (kid: string, aad: string): Buffer => Buffer.from(`${VERSION}:${kid}:${aad}`, 'utf8')

/**
 * One per data dir (the server's). The keyring is read on first use, not at construction, so a server whose
 * key file is damaged still boots and reports the reason where a secret is needed; the key file is only
 * created by the first `seal` (or `rotate`).
 */
export class SecretBox {
  readonly #store: SecretStore
  readonly #clock: Clock
  #ring: LoadedKeyring | null = null
  /** What the key file looked like when #ring was read (inode, size, modification time): another writer changes it. */
  #seen: string | null = null

  constructor(store: SecretStore, options: { readonly clock?: Clock } = {}) {
    this.#store = store
    this.#clock = options.clock ?? systemClock
  }

  /** The id of the key new values are sealed with; null while there is no key file. */
  get currentKeyId(): string | null {
    return this.#loadFresh()?.stored.current ?? null
  }

  /** Every key id that can open values, the current one included. */
  get keyIds(): readonly string[] {
    return this.#loadFresh()?.stored.keys.map((entry) => entry.kid) ?? []
  }

  /** The current key id, the keyring made first if there is none (instances sharing a directory make it at boot). */
  ensureKeyring(): string {
    const ring = this.#loadFresh()
    if (ring) return ring.stored.current
    const made = this.#addKey(null)
    // Instances booting together on an empty shared directory: the first file made stands, the others read it.
    if (this.#store.create(CREDENTIALS_KEY_FILE, JSON.stringify(made, null, 2))) this.#keep(readKeyring(JSON.stringify(made)))
    return this.#loadFresh()!.stored.current
  }

  seal(plaintext: string, aad: string): string {
    const ring = this.#loadFresh() ?? this.#write(this.#addKey(null))
    const kid = ring.stored.current
    const nonce = randomBytes(NONCE_BYTES)
    const cipher = createCipheriv('aes-256-gcm', ring.keys.get(kid)!, nonce)
    cipher.setAAD(associatedData(kid, aad))
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
    return `${VERSION}:${kid}:${nonce.toString('base64url')}:${sealed.toString('base64url')}`
  }

  open(envelope: string, aad: string): string {
    const { kid, nonce, sealed } = parseEnvelope(envelope)
    const key = this.#keyFor(kid)
    const decipher = createDecipheriv('aes-256-gcm', key, nonce)
    decipher.setAAD(associatedData(kid, aad))
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8')
    } catch {
      throw new SecretBoxError('undecryptable', 'the stored secret does not decrypt: it was altered, or it belongs to another owner')
    }
  }

  /** Null when the key that sealed the value is at hand; else why not. Lists show `connected` without decrypting. */
  checkKey(envelope: string): SecretBoxError | null {
    try {
      this.#keyFor(parseEnvelope(envelope).kid)
      return null
    } catch (error) {
      if (error instanceof SecretBoxError) return error
      throw error
    }
  }

  /** The key id a value was sealed with (a re-encryption job selects the values not under the current key). */
  keyIdOf(envelope: string): string {
    return parseEnvelope(envelope).kid
  }

  /** The value sealed under the current key: unchanged if it already is, else opened and sealed again. */
  reencrypt(envelope: string, aad: string): string {
    if (this.keyIdOf(envelope) === this.currentKeyId) return envelope
    return this.seal(this.open(envelope, aad), aad)
  }

  /** Adds a fresh key and makes it the one that seals; older keys keep opening their values. Returns its id. */
  rotate(): string {
    return this.#write(this.#addKey(this.#loadFresh())).stored.current
  }

  /** Removes a key once no stored value uses it any more (after `reencrypt` of them all). Never the current one. */
  retireKey(kid: string): void {
    const ring = this.#loadFresh()
    if (!ring?.keys.has(kid)) throw new RangeError(`no key "${kid}" in ${KEY_FILE_LABEL}`)
    if (ring.stored.current === kid) throw new RangeError(`"${kid}" is the current key: rotate first`)
    this.#write({ ...ring.stored, keys: ring.stored.keys.filter((entry) => entry.kid !== kid) })
  }

  #keyFor(kid: string): Buffer {
    let key = this.#load()?.keys.get(kid)
    if (!key && this.#ring) {
      // Another instance sharing the secrets directory may have added the key (a rotation, the first sealed secret):
      // read the file again before calling the key missing.
      this.#forget()
      key = this.#load()?.keys.get(kid)
    }
    if (!key) {
      throw new SecretBoxError('key_missing', `the key "${kid}" that sealed this secret is not in ${KEY_FILE_LABEL} (restored without its keys file?)`)
    }
    return key
  }

  #addKey(ring: LoadedKeyring | null): Keyring {
    let kid: string
    do kid = randomBytes(6).toString('base64url')
    while (ring?.keys.has(kid))
    const key: StoredKey = { kid, key: randomBytes(KEY_BYTES).toString('base64url'), created_at: isoTime(this.#clock.now()) }
    return { version: 1, current: kid, keys: [...(ring?.stored.keys ?? []), key] }
  }

  /** The keyring is on disk (flushed) before any value sealed with a new key leaves this object. */
  #write(stored: Keyring): LoadedKeyring {
    this.#store.write(CREDENTIALS_KEY_FILE, JSON.stringify(stored, null, 2))
    return this.#keep(readKeyring(JSON.stringify(stored)))!
  }

  /** `stamp`: the file's, taken before it was read (a change made meanwhile then shows as one at the next look). */
  #keep(ring: LoadedKeyring | null, stamp: string | null = this.#fileStamp()): LoadedKeyring | null {
    this.#ring = ring
    this.#seen = ring ? stamp : null
    return ring
  }

  #forget(): void {
    this.#ring = null
    this.#seen = null
  }

  /** Null when the key file cannot be looked at (missing, a shared mount away): the kept keyring then stands. */
  #fileStamp(): string | null {
    try {
      const stat = statSync(join(this.#store.dir, CREDENTIALS_KEY_FILE), { bigint: true })
      return `${stat.ino}:${stat.size}:${stat.mtimeNs}`
    } catch {
      return null
    }
  }

  /**
   * The keyring as the file holds it now, for whatever seals or writes the keyring: another instance sharing the
   * secrets directory may have rotated since it was read, and a value sealed with (or a keyring written from) a stale
   * copy would name a key the others retired, or drop the key they added. Opening needs no such check (a key not
   * found makes it read the file again), so reads cost no file system call.
   */
  #loadFresh(): LoadedKeyring | null {
    if (this.#ring) {
      const stamp = this.#fileStamp()
      if (stamp === null || stamp === this.#seen) return this.#ring
      this.#forget()
    }
    return this.#load()
  }

  /** Null when there is no key file yet; a damaged one throws (and is read again next time, once repaired). */
  #load(): LoadedKeyring | null {
    if (this.#ring) return this.#ring
    const file = join(this.#store.dir, CREDENTIALS_KEY_FILE)
    const stamp = this.#fileStamp()
    let text: string | null
    try {
      // A key file copied in with a loose umask (a restore) is tightened, as the store would have created it.
      if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
      text = this.#store.read(CREDENTIALS_KEY_FILE)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error'
      throw new SecretBoxError('keyring_unreadable', `${KEY_FILE_LABEL} cannot be read (${code})`)
    }
    if (text === null) return null
    const ring = readKeyring(text)
    // The parser's message would quote the file's content: keep to a fixed sentence.
    if (!ring) throw new SecretBoxError('keyring_unreadable', `${KEY_FILE_LABEL} is not a keyring this version can read`)
    return this.#keep(ring, stamp)
  }
}

/**
 * The files that must travel with a backup of the database for its sealed secrets to open: the one keyring,
 * `<data>/secrets/credentials.key`, or none if no secret was ever sealed. `agentbox backup FILE` writes a copy of it
 * as `FILE.keys` (0600); restoring is copying it back to `secrets/credentials.key`.
 */
export function credentialKeyFiles(dataDir: string, secretsDir: string = join(dataDir, 'secrets')): string[] {
  const file = join(secretsDir, CREDENTIALS_KEY_FILE)
  return existsSync(file) ? [file] : []
}

/** The key ids a keyring file holds, or null when it is not a keyring this version reads (for the backup's check). */
export function keyIdsInKeyring(text: string): string[] | null {
  const ring = readKeyring(text)
  return ring ? [...ring.keys.keys()] : null
}
