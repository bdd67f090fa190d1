// scripts/license.ts end to end: the tokens it prints must verify with the keyrings the server uses.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { verifyLicenseToken, type LicenseVerification } from '../../src/modules/license/token'
import { TEST_KEYRING } from '../../src/modules/license/keyring'

const ROOT = path.join(import.meta.dir, '..', '..')
const DAY_MS = 86_400_000

function run(...args: string[]) {
  const r = Bun.spawnSync([process.execPath, 'scripts/license.ts', ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const stdout = r.stdout.toString()
  return { code: r.exitCode, stdout, stderr: r.stderr.toString(), last: stdout.trimEnd().split('\n').at(-1) ?? '' }
}

function issueOk(...args: string[]) {
  const r = run('issue', ...args)
  expect(r.stderr).not.toContain('error')
  expect(r.code).toBe(0)
  return r.last
}

function claimsOf(v: LicenseVerification) {
  if (!v.ok) throw new Error(`expected a valid licence, got ${v.type}: ${v.msg}`)
  return v.claims
}

const tmp = mkdtempSync(path.join(tmpdir(), 'agentbox-license-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('issue --test', () => {
  test('prints a token that verifies with TEST_KEYRING, with a kebab-case customer by default', () => {
    const token = issueOk('--test', '--org', '  Acme  Widgets, Inc.!', '--seats', '7', '--days', '30')
    const c = claimsOf(verifyLicenseToken(token, TEST_KEYRING, Date.now()))
    expect(c).toMatchObject({ iss: 'agentbox-licensing', org: 'Acme  Widgets, Inc.!', sub: 'acme-widgets-inc', seats: 7, features: [] })
    expect(c.lic).toMatch(/^lic_[0-9a-f]+$/)
    expect(c.exp - c.nbf).toBe(30 * 86_400)
    expect(Math.abs(c.iat * 1000 - Date.now())).toBeLessThan(60_000)
  })

  test('each licence gets a fresh lic id', () => {
    const a = claimsOf(verifyLicenseToken(issueOk('--test', '--org', 'A', '--seats', '1', '--days', '1'), TEST_KEYRING, Date.now()))
    const b = claimsOf(verifyLicenseToken(issueOk('--test', '--org', 'A', '--seats', '1', '--days', '1'), TEST_KEYRING, Date.now()))
    expect(a.lic).not.toBe(b.lic)
  })

  test('--customer and --features', () => {
    const token = issueOk('--test', '--org', 'Acme', '--seats', '3', '--days', '5', '--customer', 'cus_42', '--features', 'sso, git_sync,,sso')
    expect(claimsOf(verifyLicenseToken(token, TEST_KEYRING, Date.now()))).toMatchObject({ sub: 'cus_42', features: ['sso', 'git_sync'] })
  })

  test('--expired expired yesterday and is in grace', () => {
    const token = issueOk('--test', '--org', 'Acme', '--seats', '3', '--days', '10', '--expired')
    expect(verifyLicenseToken(token, TEST_KEYRING, Date.now())).toMatchObject({ ok: false, type: 'license_expired' })
    const c = claimsOf(verifyLicenseToken(token, TEST_KEYRING, Date.now() - 2 * DAY_MS))
    expect(Math.abs(c.exp * 1000 - (Date.now() - DAY_MS))).toBeLessThan(60_000)
  })

  test('--not-before-days is not valid yet, then valid from that day', () => {
    const token = issueOk('--test', '--org', 'Acme', '--seats', '3', '--days', '10', '--not-before-days', '3')
    expect(verifyLicenseToken(token, TEST_KEYRING, Date.now())).toMatchObject({ ok: false, type: 'license_not_yet_valid' })
    expect(verifyLicenseToken(token, TEST_KEYRING, Date.now() + 3 * DAY_MS + 60_000).ok).toBe(true)
  })

  const bad: [string, string[]][] = [
    ['missing --org', ['issue', '--test', '--seats', '3', '--days', '10']],
    ['missing --seats', ['issue', '--test', '--org', 'A', '--days', '10']],
    ['seats 0', ['issue', '--test', '--org', 'A', '--seats', '0', '--days', '10']],
    ['seats 1.5', ['issue', '--test', '--org', 'A', '--seats', '1.5', '--days', '10']],
    ['missing --days', ['issue', '--test', '--org', 'A', '--seats', '3']],
    ['neither --test nor --key', ['issue', '--org', 'A', '--seats', '3', '--days', '10']],
    ['both --test and --key', ['issue', '--test', '--key', 'x.pem', '--org', 'A', '--seats', '3', '--days', '10']],
    ['unknown flag', ['issue', '--test', '--org', 'A', '--seats', '3', '--days', '10', '--bogus']],
    ['flag without value', ['issue', '--test', '--org']],
    ['unknown command', ['frobnicate']],
    ['no command', []],
    ['keygen without DIR', ['keygen']],
  ]
  test.each(bad)('%s → usage on stderr, exit 2, nothing on stdout', (_, args) => {
    const r = run(...args)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('usage:')
    expect(r.stdout).toBe('')
  })
})

describe('keygen and issue --key', () => {
  const dir = path.join(tmp, 'keys')
  const priv = path.join(dir, 'agentbox-license-private.pem')

  test('keygen writes a 0600 private key and a public JWK, and prints x', () => {
    const r = run('keygen', dir, '--kid', 'acme-2026-02')
    expect(r.code).toBe(0)
    expect(statSync(priv).mode & 0o777).toBe(0o600)
    const jwk = JSON.parse(readFileSync(path.join(dir, 'agentbox-license-public.jwk.json'), 'utf8'))
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: 'acme-2026-02' })
    expect(r.last).toBe(jwk.x)
  })

  test('keygen refuses to overwrite an existing key', () => {
    expect(run('keygen', dir).code).toBe(1)
  })

  test('issue --key signs with the generated key and the sibling JWK kid', () => {
    const x = JSON.parse(readFileSync(path.join(dir, 'agentbox-license-public.jwk.json'), 'utf8')).x
    const token = issueOk('--key', priv, '--org', 'Acme', '--seats', '2', '--days', '1')
    expect(verifyLicenseToken(token, { 'acme-2026-02': x }, Date.now()).ok).toBe(true)
    expect(verifyLicenseToken(token, TEST_KEYRING, Date.now())).toMatchObject({ ok: false, type: 'license_invalid' })
    const withKid = issueOk('--key', priv, '--kid', 'other', '--org', 'Acme', '--seats', '2', '--days', '1')
    expect(verifyLicenseToken(withKid, { other: x }, Date.now()).ok).toBe(true)
  })
})
