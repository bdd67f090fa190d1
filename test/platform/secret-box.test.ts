// The secret box (src/platform/secrets/secret-box.ts): AES-256-GCM values under a key file in <data>/secrets, bound to
// their owner by associated data, with key ids for rotation and typed errors for tampering and missing keys.
import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, linkSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CREDENTIALS_KEY_FILE, credentialKeyFiles, SecretBox, SecretBoxError, type SecretBoxErrorCode } from '../../src/platform/secrets/secret-box.ts'
import { SecretStore } from '../../src/platform/secrets/secret-files.ts'

const tmp = mkdtempSync(join(tmpdir(), 'agentbox-secret-box-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

let dirs = 0
function freshBox() {
  const dataDir = join(tmp, `data-${++dirs}`)
  const store = new SecretStore(dataDir)
  return { dataDir, store, box: new SecretBox(store), keyFile: join(dataDir, 'secrets', CREDENTIALS_KEY_FILE) }
}

const AAD = 'app_credential:petstore:user:0190a7e2:bearer'
const mode = (path: string) => statSync(path).mode & 0o777

function boxError(run: () => unknown, code: SecretBoxErrorCode): SecretBoxError {
  let caught: unknown = null
  try {
    run()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(SecretBoxError)
  expect((caught as SecretBoxError).code).toBe(code)
  return caught as SecretBoxError
}

/** The envelope with one bit of one of its base64url parts flipped, re-encoded so only the bytes differ. */
function flipBit(envelope: string, part: 2 | 3, byte = 0): string {
  const parts = envelope.split(':')
  const bytes = Buffer.from(parts[part]!, 'base64url')
  bytes[byte]! ^= 0x01
  parts[part] = bytes.toString('base64url')
  return parts.join(':')
}

describe('sealing and opening', () => {
  test('a value opens with the same associated data, and two seals of it differ (fresh nonce)', () => {
    const { box } = freshBox()
    const first = box.seal('{"token":"s3cr3t"}', AAD)
    const second = box.seal('{"token":"s3cr3t"}', AAD)
    expect(first).not.toBe(second)
    expect(box.open(first, AAD)).toBe('{"token":"s3cr3t"}')
    expect(box.open(second, AAD)).toBe('{"token":"s3cr3t"}')
    expect(box.seal('', AAD)).toMatch(/^v1:/)
    expect(box.open(box.seal('', AAD), AAD)).toBe('')
    expect(box.open(box.seal('ünïcødé ✓', AAD), AAD)).toBe('ünïcødé ✓')
  })

  test('the envelope is v1:<key id>:<12-byte nonce>:<ciphertext+16-byte tag>, base64url, with no plaintext in it', () => {
    const { box } = freshBox()
    const envelope = box.seal('hunter2-hunter2', AAD)
    const [version, kid, nonce, sealed] = envelope.split(':')
    expect([version, kid]).toEqual(['v1', box.currentKeyId!])
    expect(Buffer.from(nonce!, 'base64url')).toHaveLength(12)
    expect(Buffer.from(sealed!, 'base64url')).toHaveLength('hunter2-hunter2'.length + 16)
    expect(envelope).toMatch(/^[\w:-]+$/)
    expect(envelope).not.toContain('hunter2')
    expect(box.keyIdOf(envelope)).toBe(kid!)
  })

  test('the key file is created by the first seal: 0600 in a 0700 secrets dir, a JSON keyring of one 32-byte key', () => {
    const { box, keyFile, dataDir } = freshBox()
    expect(credentialKeyFiles(dataDir)).toEqual([])
    expect(box.currentKeyId).toBeNull()
    const previous = process.umask(0o000)
    try {
      box.seal('x', AAD)
    } finally {
      process.umask(previous)
    }
    expect(mode(keyFile)).toBe(0o600)
    expect(mode(join(dataDir, 'secrets'))).toBe(0o700)
    const ring = JSON.parse(readFileSync(keyFile, 'utf8'))
    expect(ring.version).toBe(1)
    expect(ring.keys).toHaveLength(1)
    expect(ring.current).toBe(ring.keys[0].kid)
    expect(Buffer.from(ring.keys[0].key, 'base64url')).toHaveLength(32)
    expect(credentialKeyFiles(dataDir)).toEqual([keyFile])
  })

  test('another box on the same data dir (a restart) opens what the first sealed', () => {
    const { box, store } = freshBox()
    const envelope = box.seal('kept across restarts', AAD)
    expect(new SecretBox(store).open(envelope, AAD)).toBe('kept across restarts')
  })

  test('the box shows no key material when logged or serialised', () => {
    const { box, keyFile } = freshBox()
    box.seal('x', AAD)
    const key = JSON.parse(readFileSync(keyFile, 'utf8')).keys[0].key
    expect(`${Bun.inspect(box)} ${JSON.stringify(box)}`).not.toContain(key)
  })
})

describe('tampering and misuse', () => {
  test('a flipped bit in the ciphertext, the tag or the nonce is undecryptable', () => {
    const { box } = freshBox()
    const envelope = box.seal('{"password":"pw"}', AAD)
    const tagStart = Buffer.from(envelope.split(':')[3]!, 'base64url').length - 16
    for (const tampered of [flipBit(envelope, 3, 0), flipBit(envelope, 3, tagStart), flipBit(envelope, 3, tagStart + 15), flipBit(envelope, 2, 5)]) {
      expect(boxError(() => box.open(tampered, AAD), 'undecryptable').message).toBe(
        'the stored secret does not decrypt: it was altered, or it belongs to another owner',
      )
    }
  })

  test('a value copied onto another owner or purpose does not open (wrong associated data)', () => {
    const { box } = freshBox()
    const envelope = box.seal('{"token":"t"}', AAD)
    for (const other of ['app_credential:petstore:user:0190a7e3:bearer', 'app_credential:petstore:org::bearer', '', `${AAD} `]) {
      boxError(() => box.open(envelope, other), 'undecryptable')
    }
  })

  test('a changed key id names a key that is not there', () => {
    const { box } = freshBox()
    const [, , nonce, sealed] = box.seal('x', AAD).split(':')
    const error = boxError(() => box.open(`v1:notakey:${nonce}:${sealed}`, AAD), 'key_missing')
    expect(error.message).toContain('"notakey"')
  })

  test.each([
    '',
    'plain text',
    'v2:k:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA',
    'v1:k:AAAA:AAAAAAAAAAAAAAAAAAAAAA',
    'v1:k:AAAAAAAAAAAAAAAA:AAAA',
    'v1::AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA',
    'v1:k:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA:extra',
    'v1:k:AAAAAAAAAAAA!AAA:AAAAAAAAAAAAAAAAAAAAAA',
  ])('%p is malformed', (value) => {
    const { box } = freshBox()
    box.seal('x', AAD)
    boxError(() => box.open(value, AAD), 'malformed')
  })
})

describe('a missing or damaged key file', () => {
  test('a database restored without its key file: values report key_missing with a reason, and new values still seal', () => {
    const { box, store, keyFile } = freshBox()
    const old = box.seal('{"token":"t"}', AAD)
    rmSync(keyFile)
    const restored = new SecretBox(store)
    const error = boxError(() => restored.open(old, AAD), 'key_missing')
    expect(error.message).toBe(`the key "${box.keyIdOf(old)}" that sealed this secret is not in secrets/credentials.key (restored without its keys file?)`)
    expect(restored.checkKey(old)?.code).toBe('key_missing')
    const fresh = restored.seal('new', AAD)
    expect(restored.keyIdOf(fresh)).not.toBe(box.keyIdOf(old))
    expect(restored.open(fresh, AAD)).toBe('new')
    expect(restored.checkKey(fresh)).toBeNull()
  })

  test('a key file that is not a keyring is reported, never overwritten, and read again once repaired', () => {
    const { box, store, keyFile } = freshBox()
    const envelope = box.seal('x', AAD)
    const good = readFileSync(keyFile, 'utf8')
    writeFileSync(keyFile, '{"key": not-json-SECRETKEYMATERIAL')
    const damaged = new SecretBox(store)
    const error = boxError(() => damaged.open(envelope, AAD), 'keyring_unreadable')
    expect(error.message).toBe('secrets/credentials.key is not a keyring this version can read')
    boxError(() => damaged.seal('y', AAD), 'keyring_unreadable')
    boxError(() => damaged.rotate(), 'keyring_unreadable')
    expect(damaged.checkKey(envelope)?.code).toBe('keyring_unreadable')
    expect(readFileSync(keyFile, 'utf8')).toBe('{"key": not-json-SECRETKEYMATERIAL')
    writeFileSync(keyFile, good)
    expect(damaged.open(envelope, AAD)).toBe('x')
  })

  test.each([
    ['a wrong version', (ring: any) => ({ ...ring, version: 2 })],
    ['a current key that is not listed', (ring: any) => ({ ...ring, current: 'gone' })],
    ['a short key', (ring: any) => ({ ...ring, keys: [{ ...ring.keys[0], key: 'AAAA' }] })],
    ['a duplicated key id', (ring: any) => ({ ...ring, keys: [ring.keys[0], ring.keys[0]] })],
  ])('a keyring with %s is unreadable', (_, damage) => {
    const { box, store, keyFile } = freshBox()
    box.seal('x', AAD)
    writeFileSync(keyFile, JSON.stringify(damage(JSON.parse(readFileSync(keyFile, 'utf8')))))
    boxError(() => new SecretBox(store).seal('x', AAD), 'keyring_unreadable')
  })

  test('a key file copied in with loose permissions is tightened to 0600 when read', () => {
    const { box, store, keyFile } = freshBox()
    const envelope = box.seal('x', AAD)
    chmodSync(keyFile, 0o644)
    expect(new SecretBox(store).open(envelope, AAD)).toBe('x')
    expect(mode(keyFile)).toBe(0o600)
  })
})

describe('rotation', () => {
  test('a new key seals from then on, old values still open, reencrypt moves them, and it all survives a restart', () => {
    const { box, store } = freshBox()
    const old = box.seal('{"token":"old"}', AAD)
    const first = box.currentKeyId!
    const second = box.rotate()
    expect(second).not.toBe(first)
    expect([box.currentKeyId, box.keyIds]).toEqual([second, [first, second]])
    expect(box.open(old, AAD)).toBe('{"token":"old"}')
    const fresh = box.seal('{"token":"new"}', AAD)
    expect(box.keyIdOf(fresh)).toBe(second)

    const moved = box.reencrypt(old, AAD)
    expect(box.keyIdOf(moved)).toBe(second)
    expect(box.open(moved, AAD)).toBe('{"token":"old"}')
    expect(box.reencrypt(fresh, AAD)).toBe(fresh)
    boxError(() => box.reencrypt(old, 'another owner'), 'undecryptable')

    const restarted = new SecretBox(store)
    expect([restarted.currentKeyId, restarted.keyIds]).toEqual([second, [first, second]])
    expect(restarted.open(old, AAD)).toBe('{"token":"old"}')
  })

  test('a retired key no longer opens its values; the current key cannot be retired', () => {
    const { box, store } = freshBox()
    const old = box.seal('x', AAD)
    const first = box.currentKeyId!
    const second = box.rotate()
    expect(() => box.retireKey(second)).toThrow('is the current key')
    expect(() => box.retireKey('nope')).toThrow('no key "nope"')
    box.retireKey(first)
    expect(box.keyIds).toEqual([second])
    boxError(() => box.open(old, AAD), 'key_missing')
    boxError(() => new SecretBox(store).open(old, AAD), 'key_missing')
  })

  test('rotate before any seal creates the first key', () => {
    const { box, keyFile } = freshBox()
    const kid = box.rotate()
    expect([box.currentKeyId, box.keyIds, mode(keyFile)]).toEqual([kid, [kid], 0o600])
  })
})

describe('SecretStore.write', () => {
  test('a stale temporary file is replaced, not written through: another link to it never sees the secret', () => {
    const { store, dataDir } = freshBox()
    const stale = join(store.dir, `setup-token.tmp-${process.pid}`)
    writeFileSync(stale, 'stale', { mode: 0o644 })
    const otherLink = join(dataDir, 'readable-by-others')
    linkSync(stale, otherLink)
    store.write('setup-token', 'fresh')
    expect([store.read('setup-token'), mode(join(store.dir, 'setup-token'))]).toEqual(['fresh', 0o600])
    expect(readFileSync(otherLink, 'utf8')).toBe('stale')
  })
})
