// Issues licences signed with the committed test key, the same way scripts/license.ts does.
import { createPrivateKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TEST_KID } from '../../src/modules/license/keyring.ts'
import { signLicenseToken, type LicenseClaims } from '../../src/modules/license/token.ts'

const testKey = createPrivateKey(readFileSync(join(import.meta.dir, '..', 'fixtures', 'license', 'test-private.pem'), 'utf8'))

/** The committed test signing key, for tests that sign claims issueTestLicense cannot express. */
export const testPrivateKey = () => testKey

export interface TestLicenseOptions {
  org?: string
  customer?: string
  seats?: number
  /** Validity from `nowMs`, in days (negative for an already expired licence). */
  days?: number
  /** Start of validity in days from `nowMs` (default: one day ago). */
  notBeforeDays?: number
  features?: string[]
  nowMs?: number
}

export function issueTestLicense(options: TestLicenseOptions = {}): string {
  const now = Math.floor((options.nowMs ?? Date.now()) / 1000)
  const day = 86_400
  const claims: LicenseClaims = {
    iss: 'agentbox-licensing',
    lic: `lic_${crypto.randomUUID()}`,
    sub: options.customer ?? 'acme',
    org: options.org ?? 'Acme',
    seats: options.seats ?? 10,
    features: options.features ?? [],
    iat: now - day,
    nbf: now + (options.notBeforeDays ?? -1) * day,
    exp: now + (options.days ?? 365) * day,
  }
  return signLicenseToken(claims, testKey, TEST_KID)
}
