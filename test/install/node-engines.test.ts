// Which Node the project needs (issue 26, item 8): Node only runs npm, the npm scripts' own tools (tsc, Biome) and
// packages' install scripts; the server, the tests and every script run on the Bun that npm installs. So the Node
// version in package.json's `engines` (and the README) must satisfy what those few packages declare, while packages
// that only Bun loads may ask for a newer Node (npm then warns; the README says why that is harmless).
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; scripts: Record<string, string> }
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { bin?: Record<string, string>; engines?: { node?: string } | string[]; hasInstallScript?: boolean }>
}

/** The oldest Node the project says it supports: `>=20` → 20.0.0. */
const minimum = /^>=(\d+)$/.exec(pkg.engines.node)?.[1]
const nodeVersion = `${minimum}.0.0`

/** The commands the npm scripts start (`bun src/main.ts serve` → bun). */
const scriptCommands = new Set(Object.values(pkg.scripts).flatMap((script) => script.split(/&&|\|\||;/).map((command) => command.trim().split(/\s+/)[0]!)))

/** The installed packages Node runs: those with an install script, and those whose bin an npm script calls. */
function runByNode(): { name: string; range: string | undefined }[] {
  const found: { name: string; range: string | undefined }[] = []
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path) continue
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const topLevel = path === `node_modules/${name}`
    const calledByScript = topLevel && Object.keys(entry.bin ?? {}).some((bin) => scriptCommands.has(bin))
    if (entry.hasInstallScript || calledByScript) found.push({ name, range: Array.isArray(entry.engines) ? undefined : entry.engines?.node })
  }
  return found
}

test('package.json says which Node: >=20, and the README says the same', () => {
  expect(pkg.engines.node).toBe('>=20')
  expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`Node.js ${minimum} or newer`)
})

test('no npm script runs node itself: the scripts start Bun, tsc or Biome', () => {
  expect([...scriptCommands].sort()).toEqual(['biome', 'bun', 'tsc'])
})

test('every package Node runs (install scripts, the scripts’ tools) accepts that Node', () => {
  const run = runByNode()
  expect(run.map((p) => p.name).sort()).toEqual(expect.arrayContaining(['@biomejs/biome', 'bun', 'typescript']))
  const refusing = run.filter((p) => p.range !== undefined && !Bun.semver.satisfies(nodeVersion, p.range))
  expect(refusing).toEqual([])
})
