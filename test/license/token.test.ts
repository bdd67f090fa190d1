// Licence token verification: every way a token can be wrong must map to the right error type, never to a throw.
import { describe, expect, test } from 'bun:test'
import crypto from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import {
  GRACE_DAYS,
  generateLicenseKeyPair,
  licenseStatus,
  publicKeyX,
  signLicenseToken,
  verifyLicenseToken,
  type Keyring,
  type LicenseClaims,
} from '../../src/modules/license/token'
import { PRODUCTION_KEYRING, PRODUCTION_KID, TEST_KEYRING, TEST_KID, TEST_PUBLIC_KEY_X, keyringFor } from '../../src/modules/license/keyring'

const FIXTURES = path.join(import.meta.dir, '..', 'fixtures', 'license')
const testKey = crypto.createPrivateKey(readFileSync(path.join(FIXTURES, 'test-private.pem'), 'utf8'))
const otherKey = crypto.generateKeyPairSync('ed25519').privateKey

const NOW_MS = Date.UTC(2026, 5, 1)
const NOW = NOW_MS / 1000
const DAY = 86_400

const claims = (over: Record<string, unknown> = {}): LicenseClaims =>
  ({
    iss: 'agentbox-licensing',
    lic: 'lic_0123',
    sub: 'acme',
    org: 'Acme Inc.',
    seats: 10,
    features: ['git_sync', 'sso'],
    iat: NOW - DAY,
    nbf: NOW - DAY,
    exp: NOW + 30 * DAY,
    ...over,
  }) as LicenseClaims

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url')
const HEADER = { alg: 'EdDSA', typ: 'agentbox-license+jwt', kid: TEST_KID }

/** Signs arbitrary header/payload text, so tests can produce tokens the real signer never would. */
function signRaw(header: string, payload: string, key: crypto.KeyObject = testKey): string {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${crypto.sign(null, Buffer.from(input), key).toString('base64url')}`
}
const signWith = (over: Record<string, unknown>, header: Record<string, unknown> = HEADER) => signRaw(JSON.stringify(header), JSON.stringify(claims(over)))

const good = signLicenseToken(claims(), testKey, TEST_KID)
const [gh, gp, gs] = good.split('.') as [string, string, string]

function flipFirstByte(seg: string): string {
  const buf = Buffer.from(seg, 'base64url')
  buf[0] = buf[0]! ^ 1
  return buf.toString('base64url')
}

describe('verifyLicenseToken', () => {
  test('a valid token verifies and returns exactly the known claims', () => {
    const res = verifyLicenseToken(signWith({ extra: 'dropped' }), TEST_KEYRING, NOW_MS)
    expect(res).toEqual({ ok: true, claims: claims() })
  })

  test('typ may be absent', () => {
    const res = verifyLicenseToken(signWith({}, { alg: 'EdDSA', kid: TEST_KID }), TEST_KEYRING, NOW_MS)
    expect(res.ok).toBe(true)
  })

  const tampered: [string, string][] = [
    ['payload swapped, signature kept', `${gh}.${b64(JSON.stringify(claims({ seats: 9999 })))}.${gs}`],
    ['payload bit flipped', `${gh}.${flipFirstByte(gp)}.${gs}`],
    ['signature bit flipped', `${gh}.${gp}.${flipFirstByte(gs)}`],
    ['signature truncated', `${gh}.${gp}.${gs.slice(0, 40)}`],
    ['signature from another token', `${gh}.${gp}.${signWith({ seats: 1 }).split('.')[2]}`],
    ['header changed (typ dropped), signature kept', `${b64(JSON.stringify({ ...HEADER, typ: undefined }))}.${gp}.${gs}`],
    ['signed by a different key with the same kid', signLicenseToken(claims(), otherKey, TEST_KID)],
  ]
  test.each(tampered)('tampering: %s → license_invalid', (_, token) => {
    expect(verifyLicenseToken(token, TEST_KEYRING, NOW_MS)).toEqual({
      ok: false,
      type: 'license_invalid',
      msg: 'License signature is invalid',
    })
  })

  const garbage: [string, unknown][] = [
    ['empty string', ''],
    ['one word', 'abc'],
    ['a.b.c', 'a.b.c'],
    ['four segments', `${good}.${gs}`],
    ['two segments', `${gh}.${gp}`],
    ['empty segments', '..'],
    ['non-base64 characters', '!!!.@@@.###'],
    ['standard base64 alphabet', `${gh}.${gp}.${gs.replace(/-/g, '+').replace(/_/g, '/')}x+/`],
    ['padding', `${gh}=.${gp}.${gs}`],
    ['whitespace', ` ${good}`],
    ['non-canonical base64url tail', `${gh}.${gp}.${gs.slice(0, -1)}${gs.endsWith('A') ? 'B' : 'A'}`],
    ['header not JSON', `${b64('not json')}.${gp}.${gs}`],
    ['header JSON array', signRaw('["EdDSA"]', JSON.stringify(claims()))],
    ['header JSON null', signRaw('null', JSON.stringify(claims()))],
    ['header JSON string', signRaw('"EdDSA"', JSON.stringify(claims()))],
    ['payload JSON array', signRaw(JSON.stringify(HEADER), '[1,2]')],
    ['payload JSON number', signRaw(JSON.stringify(HEADER), '42')],
    ['payload not JSON', signRaw(JSON.stringify(HEADER), '{oops')],
    ['payload invalid UTF-8', `${gh}.${Buffer.from([0xff, 0xfe]).toString('base64url')}.${gs}`],
    ['huge string', 'a'.repeat(2_000_000)],
    ['huge three-segment string', `${'a'.repeat(1_000_000)}.${gp}.${gs}`],
    ['number', 42],
    ['null', null],
    ['undefined', undefined],
    ['object', { token: good }],
  ]
  test.each(garbage)('garbage: %s → license_invalid', (_, token) => {
    expect(verifyLicenseToken(token as string, TEST_KEYRING, NOW_MS)).toMatchObject({
      ok: false,
      type: 'license_invalid',
    })
  })

  const hmac = (input: string) => crypto.createHmac('sha256', Buffer.from(TEST_PUBLIC_KEY_X, 'base64url')).update(input).digest('base64url')
  const ALG = 'License uses an unsupported signature algorithm'
  const TYP = 'License has the wrong token type'
  const KID = 'License is signed by an unknown key'
  const hs256 = (() => {
    const input = `${b64(JSON.stringify({ ...HEADER, alg: 'HS256' }))}.${gp}`
    return `${input}.${hmac(input)}`
  })()
  const headerAttacks: [string, string, string][] = [
    ['alg none, empty signature', `${b64(JSON.stringify({ ...HEADER, alg: 'none' }))}.${gp}.`, 'License is malformed'],
    ['alg none, real signature', signWith({}, { ...HEADER, alg: 'none' }), ALG],
    ['alg HS256 keyed with the public key', hs256, ALG],
    ['alg lower-case eddsa', signWith({}, { ...HEADER, alg: 'eddsa' }), ALG],
    ['alg Ed25519', signWith({}, { ...HEADER, alg: 'Ed25519' }), ALG],
    ['alg missing', signWith({}, { typ: HEADER.typ, kid: TEST_KID }), ALG],
    ['typ JWT', signWith({}, { ...HEADER, typ: 'JWT' }), TYP],
    ['typ null', signWith({}, { ...HEADER, typ: null }), TYP],
    ['unknown kid', signWith({}, { ...HEADER, kid: 'nope' }), KID],
    ['kid missing', signWith({}, { alg: 'EdDSA', typ: HEADER.typ }), KID],
    ['kid a number', signWith({}, { ...HEADER, kid: 1 }), KID],
    ['kid __proto__', signWith({}, { ...HEADER, kid: '__proto__' }), KID],
    ['kid toString', signWith({}, { ...HEADER, kid: 'toString' }), KID],
    ['production kid on a test-signed token', signWith({}, { ...HEADER, kid: PRODUCTION_KID }), KID],
  ]
  test.each(headerAttacks)('header: %s → license_invalid', (_, token, msg) => {
    expect(verifyLicenseToken(token, TEST_KEYRING, NOW_MS)).toEqual({ ok: false, type: 'license_invalid', msg })
  })

  const badClaims: [string, Record<string, unknown>][] = [
    ['wrong iss', { iss: 'someone-else' }],
    ['missing iss', { iss: undefined }],
    ['seats 0', { seats: 0 }],
    ['seats -1', { seats: -1 }],
    ['seats 1.5', { seats: 1.5 }],
    ['seats "3"', { seats: '3' }],
    ['seats missing', { seats: undefined }],
    ['lic empty', { lic: '' }],
    ['sub missing', { sub: undefined }],
    ['org a number', { org: 123 }],
    ['features not an array', { features: 'sso' }],
    ['features with a number', { features: ['sso', 1] }],
    ['iat a string', { iat: String(NOW) }],
    ['nbf missing', { nbf: undefined }],
    ['exp null', { exp: null }],
  ]
  test.each(badClaims)('claims: %s → license_invalid', (_, over) => {
    expect(verifyLicenseToken(signWith(over), TEST_KEYRING, NOW_MS)).toMatchObject({
      ok: false,
      type: 'license_invalid',
    })
  })

  test('wrong iss says so', () => {
    expect(verifyLicenseToken(signWith({ iss: 'x' }), TEST_KEYRING, NOW_MS)).toMatchObject({
      msg: 'License issuer is not agentbox-licensing',
    })
  })

  test('exp of 1e999 (parses to Infinity) is not a finite number → license_invalid', () => {
    const payload = JSON.stringify(claims()).replace(/"exp":\d+/, '"exp":1e999')
    expect(verifyLicenseToken(signRaw(JSON.stringify(HEADER), payload), TEST_KEYRING, NOW_MS)).toMatchObject({
      type: 'license_invalid',
    })
  })

  const timing: [string, Record<string, unknown>, true | string][] = [
    ['expired a day ago', { exp: NOW - DAY }, 'license_expired'],
    ['expiring exactly now', { exp: NOW }, 'license_expired'],
    ['expiring in one second', { exp: NOW + 1 }, true],
    ['nbf 10 minutes ahead', { nbf: NOW + 600 }, 'license_not_yet_valid'],
    ['nbf 5 min + 1 s ahead', { nbf: NOW + 301 }, 'license_not_yet_valid'],
    ['nbf exactly 5 min ahead', { nbf: NOW + 300 }, true],
    ['nbf 4 minutes ahead', { nbf: NOW + 240 }, true],
    ['nbf 30 days ahead', { nbf: NOW + 30 * DAY, exp: NOW + 60 * DAY }, 'license_not_yet_valid'],
  ]
  test.each(timing)('time: %s', (_, over, expected) => {
    const res = verifyLicenseToken(signWith(over), TEST_KEYRING, NOW_MS)
    if (expected === true) expect(res.ok).toBe(true)
    else expect(res).toMatchObject({ ok: false, type: expected })
  })

  test('messages are the documented sentences', () => {
    expect(verifyLicenseToken(signWith({ exp: NOW - 1 }), TEST_KEYRING, NOW_MS)).toMatchObject({ msg: 'License has expired' })
    expect(verifyLicenseToken(signWith({ nbf: NOW + DAY }), TEST_KEYRING, NOW_MS)).toMatchObject({ msg: 'License is not valid yet' })
    expect(verifyLicenseToken(`${gh}.${gp}.${flipFirstByte(gs)}`, TEST_KEYRING, NOW_MS)).toMatchObject({ msg: 'License signature is invalid' })
    expect(verifyLicenseToken('abc', TEST_KEYRING, NOW_MS)).toMatchObject({ msg: 'License is malformed' })
  })

  test('a NaN clock fails closed', () => {
    expect(verifyLicenseToken(good, TEST_KEYRING, Number.NaN)).toMatchObject({ ok: false, type: 'license_invalid' })
  })

  test('a broken keyring entry gives license_invalid, not a throw', () => {
    const broken: Keyring = { [TEST_KID]: 'not-a-key' }
    expect(verifyLicenseToken(good, broken, NOW_MS)).toMatchObject({ ok: false, type: 'license_invalid' })
    expect(verifyLicenseToken(good, null as unknown as Keyring, NOW_MS)).toMatchObject({ ok: false, type: 'license_invalid' })
  })

  test('the same kid in two keyrings is resolved per keyring, not from a stale cache', () => {
    const other: Keyring = { [TEST_KID]: publicKeyX(otherKey) }
    expect(verifyLicenseToken(good, TEST_KEYRING, NOW_MS).ok).toBe(true)
    expect(verifyLicenseToken(good, other, NOW_MS).ok).toBe(false)
    expect(verifyLicenseToken(signLicenseToken(claims(), otherKey, TEST_KID), other, NOW_MS).ok).toBe(true)
  })

  test('the header we produce is exactly alg/typ/kid', () => {
    expect(JSON.parse(Buffer.from(gh, 'base64url').toString())).toEqual(HEADER)
  })
})

describe('signLicenseToken', () => {
  test('refuses non-Ed25519 and public keys', () => {
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    expect(() => signLicenseToken(claims(), rsa, 'k')).toThrow()
    expect(() => signLicenseToken(claims(), crypto.createPublicKey(testKey), 'k')).toThrow()
  })
})

describe('licenseStatus', () => {
  const exp = NOW_MS
  const GRACE_MS = GRACE_DAYS * DAY * 1000
  const cases: [string, number, 'valid' | 'grace' | 'expired'][] = [
    ['a day before exp → valid', exp - DAY * 1000, 'valid'],
    ['1 ms before exp → valid', exp - 1, 'valid'],
    ['exactly at exp → grace', exp, 'grace'],
    ['exp + 14 d − 1 ms → grace', exp + GRACE_MS - 1, 'grace'],
    ['exp + 14 d → expired', exp + GRACE_MS, 'expired'],
    ['a year later → expired', exp + 365 * DAY * 1000, 'expired'],
  ]
  test.each(cases)('%s', (_, now, expected) => {
    expect(licenseStatus(exp, now)).toBe(expected)
  })
  test('grace is 14 days', () => expect(GRACE_DAYS).toBe(14))
})

describe('keys and keyrings', () => {
  const fixtureJwk = JSON.parse(readFileSync(path.join(FIXTURES, 'test-public.jwk.json'), 'utf8'))

  test('the embedded test key equals the committed fixture', () => {
    expect(fixtureJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: TEST_PUBLIC_KEY_X, kid: TEST_KID })
    expect(TEST_KEYRING).toEqual({ [fixtureJwk.kid]: fixtureJwk.x })
  })

  test('the committed test private key matches the committed public key', () => {
    expect(publicKeyX(testKey)).toBe(fixtureJwk.x)
  })

  test('the production key is a usable Ed25519 key distinct from the test key', () => {
    const x = PRODUCTION_KEYRING[PRODUCTION_KID]!
    expect(Buffer.from(x, 'base64url')).toHaveLength(32)
    expect(() => crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' })).not.toThrow()
    expect(x).not.toBe(TEST_PUBLIC_KEY_X)
  })

  test('a test licence is rejected by the production keyring', () => {
    expect(verifyLicenseToken(good, PRODUCTION_KEYRING, NOW_MS)).toMatchObject({ ok: false, type: 'license_invalid' })
  })

  test('keyringFor picks by mode and keyrings are frozen', () => {
    expect(keyringFor('test')).toBe(TEST_KEYRING)
    expect(keyringFor('production')).toBe(PRODUCTION_KEYRING)
    expect(Object.isFrozen(TEST_KEYRING) && Object.isFrozen(PRODUCTION_KEYRING)).toBe(true)
  })

  test('generateLicenseKeyPair round-trips', () => {
    const { privateKeyPem, publicKeyX: x } = generateLicenseKeyPair()
    const token = signLicenseToken(claims(), crypto.createPrivateKey(privateKeyPem), 'k1')
    expect(verifyLicenseToken(token, { k1: x }, NOW_MS).ok).toBe(true)
  })
})
