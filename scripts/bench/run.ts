// npm run bench → runs every benchmark listed here, in order, each in its own process. Extra argv (e.g. `-- --rounds 5`) is passed to each.
// To add a benchmark, append its file name to BENCHES.
import { join } from 'node:path'

const BENCHES = [
  'http.ts',
  'interactions.ts',
  'scheduler.ts',
  'agents.ts',
  'skills.ts',
  'workflows.ts',
  'stall.ts',
  'applications.ts',
  'import-memory.ts',
  'insights.ts',
  'mcp.ts',
  'console.ts',
  'outbound-stream.ts',
  'bundles.ts',
  'chat.ts',
  'gpt-apps.ts',
  'execute.ts',
]

const args = process.argv.slice(2)
const failed: string[] = []
for (const bench of BENCHES) {
  console.log(`\n=== bench: ${bench} ===\n`)
  const child = Bun.spawn([process.execPath, join(import.meta.dir, bench), ...args], { stdio: ['inherit', 'inherit', 'inherit'] })
  const code = await child.exited
  if (code !== 0) {
    console.error(`bench ${bench} exited with ${code}`)
    failed.push(bench)
  }
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`)
  process.exit(1)
}
