// What every benchmark needs: integer options checked the same way, medians, and licences signed with the committed
// test key.
import { createPrivateKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TEST_KID } from '../../src/modules/license/keyring.ts'
import { signLicenseToken } from '../../src/modules/license/token.ts'

/** `raw` as an integer within [min, max], or exit 2 naming the option (a benchmark's bad argument is the user's). */
export function intOption(raw: string, name: string, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer ≥ ${min}` : `${name} must be an integer from ${min} to ${max}`)
    process.exit(2)
  }
  return n
}

/** The median of `xs` (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const TEST_PRIVATE_KEY = join(import.meta.dir, '..', '..', 'test', 'fixtures', 'license', 'test-private.pem')

/** A licence the servers under benchmark (AGENTBOX_LICENSE_MODE=test) accept: valid for a year from now. */
export function benchLicense({ org = 'Bench', seats = 10 }: { org?: string; seats?: number } = {}): string {
  const now = Math.floor(Date.now() / 1000)
  const key = createPrivateKey(readFileSync(TEST_PRIVATE_KEY, 'utf8'))
  const claims = {
    iss: 'agentbox-licensing' as const,
    lic: `lic_bench_${crypto.randomUUID()}`,
    sub: org.toLowerCase(),
    org,
    seats,
    features: [],
    iat: now - 86_400,
    nbf: now - 86_400,
    exp: now + 365 * 86_400,
  }
  return signLicenseToken(claims, key, TEST_KID)
}
