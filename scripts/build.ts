// npm run build → dist/agentbox: one executable with migrations, keys and assets embedded (design/appliance.md §5).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import pkg from '../package.json' with { type: 'json' }

const root = join(import.meta.dir, '..')
const outfile = process.env.AGENTBOX_BUILD_OUTFILE ?? join(root, 'dist', 'agentbox')
const target = process.env.AGENTBOX_BUILD_TARGET ?? 'bun-linux-x64'
const version = process.env.AGENTBOX_VERSION ?? pkg.version

mkdirSync(join(outfile, '..'), { recursive: true })

// No --minify: Elysia reads handler source with fn.toString() and crashes at boot under --minify-whitespace (elysia#1711).
const args = [
  'build',
  '--compile',
  '--bytecode',
  '--format=esm',
  '--sourcemap',
  '--no-compile-autoload-dotenv',
  '--no-compile-autoload-bunfig',
  `--target=${target}`,
  '--define',
  `AGENTBOX_VERSION=${JSON.stringify(version)}`,
  '--outfile',
  outfile,
  join(root, 'src', 'main.ts'),
]

const started = performance.now()
const build = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: 'inherit', stderr: 'inherit' })
if (build.exitCode !== 0) {
  console.error(`build failed (exit ${build.exitCode})`)
  process.exit(build.exitCode ?? 1)
}
console.log(`built ${outfile} (agentbox ${version}, ${target}) in ${Math.round(performance.now() - started)} ms`)
