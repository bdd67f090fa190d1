// Licence CLI (CONTRACT §2): issue tokens with the public test key or a real key file, and make new key pairs.
import crypto from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { generateLicenseKeyPair, publicKeyX, signLicenseToken, type LicenseClaims } from '../src/modules/license/token'
import { PRODUCTION_KID, TEST_KID } from '../src/modules/license/keyring'

const USAGE = `usage:
  bun scripts/license.ts issue (--test | --key FILE [--kid KID]) --org NAME --seats N --days D
        [--customer ID] [--features a,b] [--expired] [--not-before-days N]
  bun scripts/license.ts keygen DIR [--kid KID]`

const DAY_S = 86_400
const TEST_PRIVATE_KEY = path.join(import.meta.dir, '..', 'test', 'fixtures', 'license', 'test-private.pem')

class UsageError extends Error {}

function usage(msg: string): never {
  throw new UsageError(msg)
}

function intFlag(name: string, raw: string | undefined, min: number): number {
  if (raw === undefined) usage(`--${name} is required`)
  if (!/^\d+$/.test(raw) || Number(raw) < min) usage(`--${name} must be an integer ≥ ${min}`)
  return Number(raw)
}

export function kebab(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/** `foo-private.pem` → kid from `foo-public.jwk.json`, so a keygen'd pair signs with its own kid by default. */
function siblingKid(keyFile: string): string | undefined {
  if (!keyFile.endsWith('-private.pem')) return undefined
  const jwkFile = keyFile.slice(0, -'-private.pem'.length) + '-public.jwk.json'
  if (!existsSync(jwkFile)) return undefined
  const kid = (JSON.parse(readFileSync(jwkFile, 'utf8')) as { kid?: unknown }).kid
  return typeof kid === 'string' && kid ? kid : undefined
}

function issue(args: string[]): void {
  const { values: v, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      test: { type: 'boolean' },
      key: { type: 'string' },
      kid: { type: 'string' },
      org: { type: 'string' },
      seats: { type: 'string' },
      days: { type: 'string' },
      customer: { type: 'string' },
      features: { type: 'string' },
      expired: { type: 'boolean' },
      'not-before-days': { type: 'string' },
    },
  })
  if (positionals.length) usage(`unexpected argument: ${positionals[0]}`)
  if (!!v.test === (v.key !== undefined)) usage('give exactly one of --test or --key FILE')
  if (v.test && v.kid !== undefined) usage('--kid only applies with --key')
  if (!v.org?.trim()) usage('--org is required')
  const seats = intFlag('seats', v.seats, 1)
  const days = intFlag('days', v.days, 1)
  const nbfDays = v['not-before-days'] === undefined ? 0 : intFlag('not-before-days', v['not-before-days'], 0)
  if (v.expired && nbfDays) usage('--expired and --not-before-days cannot be combined')
  const sub = v.customer ?? kebab(v.org)
  if (!sub) usage('--customer is required when the org name has no letters or digits')
  const features = (v.features ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)

  const now = Math.floor(Date.now() / 1000)
  // --expired: a D-day licence that started D+1 days ago, so it ran out yesterday.
  const nbf = v.expired ? now - (days + 1) * DAY_S : now + nbfDays * DAY_S
  const claims: LicenseClaims = {
    iss: 'agentbox-licensing',
    lic: `lic_${crypto.randomBytes(12).toString('hex')}`,
    sub,
    org: v.org.trim(),
    seats,
    features: [...new Set(features)],
    iat: v.expired ? nbf : now,
    nbf,
    exp: nbf + days * DAY_S,
  }

  const keyFile = v.test ? TEST_PRIVATE_KEY : path.resolve(v.key!)
  const kid = v.test ? TEST_KID : (v.kid ?? siblingKid(keyFile) ?? PRODUCTION_KID)
  const privateKey = crypto.createPrivateKey(readFileSync(keyFile, 'utf8'))
  const token = signLicenseToken(claims, privateKey, kid)
  console.error(`issued ${claims.lic} for ${claims.org} (${sub}), ${seats} seats, kid ${kid}, expires ${new Date(claims.exp * 1000).toISOString()}`)
  console.log(token)
}

function keygen(args: string[]): void {
  const { values: v, positionals } = parseArgs({ args, allowPositionals: true, options: { kid: { type: 'string' } } })
  if (positionals.length !== 1) usage('keygen needs exactly one DIR')
  const dir = path.resolve(positionals[0]!)
  const kid = v.kid ?? PRODUCTION_KID
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const { privateKeyPem, publicKeyX: x } = generateLicenseKeyPair()
  // 'wx' refuses to overwrite: clobbering a signing key that licences were issued with is unrecoverable.
  writeFileSync(path.join(dir, 'agentbox-license-private.pem'), privateKeyPem, { mode: 0o600, flag: 'wx' })
  writeFileSync(path.join(dir, 'agentbox-license-public.jwk.json'), JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x, kid }) + '\n', { flag: 'wx' })
  // Cross-check the file we wrote really holds the key whose x we print.
  if (publicKeyX(crypto.createPrivateKey(readFileSync(path.join(dir, 'agentbox-license-private.pem'), 'utf8'))) !== x) {
    throw new Error('generated key pair does not round-trip')
  }
  console.error(`wrote ${dir}/agentbox-license-private.pem (0600) and agentbox-license-public.jwk.json, kid ${kid}`)
  console.log(x)
}

function main(argv: string[]): number {
  const [cmd, ...rest] = argv
  try {
    if (cmd === 'issue') issue(rest)
    else if (cmd === 'keygen') keygen(rest)
    else usage(cmd ? `unknown command: ${cmd}` : 'missing command')
    return 0
  } catch (err) {
    // parseArgs signals unknown/ill-typed flags with ERR_PARSE_ARGS_* codes; those are usage errors too.
    const code = (err as { code?: unknown }).code
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      console.error(`error: ${(err as Error).message}\n${USAGE}`)
      return 2
    }
    console.error(`error: ${(err as Error).message}`)
    return 1
  }
}

if (import.meta.main) process.exit(main(process.argv.slice(2)))
