// Every sealed secret goes through the secrets subsystem (src/platform/secrets), so key rotation and backups reach it:
// nothing outside that folder may import the secret box or the vault's internals, write the sealed_secrets table, or
// encrypt with a cipher of its own. A new store that tried would fail here instead of becoming unreadable after the
// next key rotation.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SRC = join(import.meta.dir, '..', '..', 'src')
const SECRETS = join(SRC, 'platform', 'secrets')
/** What the rest of the server may import from the subsystem: its public face, and the plain secret files (keys, setup token). */
const PUBLIC = new Set([join(SECRETS, 'index.ts'), join(SECRETS, 'secret-files.ts')])
/** Where the table's name may appear: the subsystem, its migration and table type, and the backup's read-only count. */
const TABLE_ALLOWED = [SECRETS, join(SRC, 'platform', 'db', 'migrations'), join(SRC, 'platform', 'db', 'tables'), join(SRC, 'platform', 'db', 'backup.ts')]

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

const outside = sourceFiles(SRC).filter((file) => !file.startsWith(`${SECRETS}/`))
const specifiers = (text: string) => [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1]!)

describe('the secrets subsystem is the only way to seal a secret', () => {
  test('outside src/platform/secrets, only its index.ts and secret-files.ts are imported', () => {
    const offending: string[] = []
    for (const file of outside)
      for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) continue
        const target = resolve(dirname(file), specifier)
        if (target.startsWith(`${SECRETS}/`) && !PUBLIC.has(target)) offending.push(`${relative(SRC, file)} imports ${specifier}`)
      }
    expect(offending).toEqual([])
  })

  test('the sealed_secrets table is named nowhere else', () => {
    const offending = outside
      .filter((file) => !TABLE_ALLOWED.some((allowed) => file === allowed || file.startsWith(`${allowed}/`)))
      .filter((file) => readFileSync(file, 'utf8').includes('sealed_secrets'))
      .map((file) => relative(SRC, file))
    expect(offending).toEqual([])
  })

  test('no other code encrypts with a cipher of its own', () => {
    const offending = outside
      .filter((file) => /createCipheriv|createDecipheriv|crypto\.subtle\.encrypt/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file))
    expect(offending).toEqual([])
  })

  test('the checks see real imports (the subsystem itself imports the box)', () => {
    const vault = readFileSync(join(SECRETS, 'vault.ts'), 'utf8')
    expect(specifiers(vault)).toContain('./secret-box.ts')
    expect(outside.length).toBeGreaterThan(100)
  })
})
