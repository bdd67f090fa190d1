// Console benchmark (issue 19): the console's JavaScript and CSS as shipped (bytes and gzip), and the time until the
// agents list (500 agents) is shown and an agent page has its 50-node workflow open and drawn in Chromium, against the time
// the same browser takes to show a bare page from a bare Bun.serve, in the same run.
//
//   bun scripts/bench/console.ts [--agents 500] [--nodes 50] [--reps 5] [--json FILE]
//
// Targets: JS + CSS under 300 KB gzip; the agent page interactive under 1 s. Needs /usr/bin/chromium (skipped without).
import { existsSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'
import { createAgent } from '../../src/modules/agents/service.ts'
import { publishAgentVersion } from '../../src/modules/agents/versions.ts'
import { buildConsoleFromSource } from '../../src/modules/console/assets.ts'
import { createWorkflow, type WorkflowInput } from '../../src/modules/workflows/definitions.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { intOption, median, startBenchServer } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    agents: { type: 'string', default: '500' },
    nodes: { type: 'string', default: '50' },
    reps: { type: 'string', default: '5' },
    json: { type: 'string' },
  },
})
const AGENTS = intOption(opts.agents!, '--agents')
const NODES = intOption(opts.nodes!, '--nodes', 2)
const REPS = intOption(opts.reps!, '--reps')
const CHROMIUM = '/usr/bin/chromium'

// ------------------------------------------------------------------------------------------------------------ sizes

const assets = await buildConsoleFromSource()
const sizes = {
  js: assets.js.byteLength,
  js_gzip: Bun.gzipSync(assets.js as Uint8Array<ArrayBuffer>).byteLength,
  css: assets.css.byteLength,
  css_gzip: Bun.gzipSync(assets.css as Uint8Array<ArrayBuffer>).byteLength,
  html_gzip: Bun.gzipSync(new TextEncoder().encode(assets.html)).byteLength,
}
const totalGzip = sizes.js_gzip + sizes.css_gzip + sizes.html_gzip
console.log(
  `console as shipped: app.js ${sizes.js} B (${sizes.js_gzip} B gzip), app.css ${sizes.css} B (${sizes.css_gzip} B gzip), total ${totalGzip} B gzip (target < 300 KB)`,
)
if (!existsSync(CHROMIUM)) {
  console.log(`${CHROMIUM} is missing: the time-to-interactive part is skipped`)
  process.exit(0)
}

// ----------------------------------------------------------------------------------------------------------- set-up

const { server, token, call } = await startBenchServer('console', { AGENTBOX_PORT: '0', AGENTBOX_HOST: '127.0.0.1' })
const me = await call('GET', '/api/auth/me', token)
const admin: Principal = { userId: me.id, email: me.email, name: me.name, role: 'admin', kind: 'person', via: 'access_token', tokenId: null }
const store = { db: server.database.db, clock: { now: () => Date.now() } }
for (let i = 0; i < AGENTS; i++)
  await createAgent(store, admin, {
    name: `agent-${String(i).padStart(4, '0')}`,
    description: 'Answers questions about orders and refunds.',
    instructions: 'Be brief.',
  })
// A chain of set nodes with a branch every ten, ending in outputs: NODES nodes in all.
const nodes: WorkflowInput['definition']['nodes'] = []
const connections: WorkflowInput['definition']['connections'] = []
for (let i = 0; i < NODES - 1; i++) {
  nodes.push(
    i % 10 === 5
      ? { id: `n${i}`, type: 'agentbox.if', params: { conditions: [{ left: '{{ $json.x }}', operator: 'equals', right: 1 }] } }
      : { id: `n${i}`, type: 'agentbox.set', params: { values: { x: i } } },
  )
  if (i > 0) connections.push(i % 10 === 6 ? { from: `n${i - 1}`, port: 'true', to: `n${i}` } : { from: `n${i - 1}`, to: `n${i}` })
}
nodes.push({ id: 'out', type: 'agentbox.output', params: { value: '{{ $json }}' } })
connections.push({ from: `n${NODES - 2}`, to: 'out' })
await createAgent(store, admin, { name: 'big-flow', description: 'One large workflow', instructions: 'Run it.' })
await createWorkflow(store, admin, 'big-flow', { name: 'pipeline', definition: { nodes, connections } })
await publishAgentVersion(store, admin, 'big-flow', 'bench')
const port = server.start()
const base = `http://127.0.0.1:${port}`
const bare = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: () => new Response('<!doctype html><title>bare</title><main><h1>Bare</h1></main>', { headers: { 'content-type': 'text/html' } }),
})

// -------------------------------------------------------------------------------------------------------- measuring

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
})
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
const page = await context.newPage()
// Signed in the way the console keeps a session: the token in sessionStorage of the origin.
await page.goto(`${base}/login`)
await page.evaluate((t) => sessionStorage.setItem('agentbox.access_token', t), token)

async function timeTo(url: string, ready: () => Promise<unknown>): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < REPS + 1; i++) {
    const started = performance.now()
    await page.goto(url)
    await ready()
    if (i > 0) samples.push(performance.now() - started) // the first load warms the caches
  }
  return median(samples)
}

const bareMs = await timeTo(`http://127.0.0.1:${bare.port}/`, () => page.getByRole('heading', { name: 'Bare' }).waitFor())
const listMs = await timeTo(`${base}/agents`, () =>
  page
    .getByText(`agent-${String(AGENTS - 1).padStart(4, '0')}`)
    .first()
    .waitFor(),
)
const agentMs = await timeTo(`${base}/agents/big-flow`, async () => {
  // The owner's Design tab, then the workflow opened: its 50-node graph laid out and drawn.
  await page
    .getByRole('button', { name: /^pipeline/ })
    .first()
    .click()
  await page.locator('svg[role="img"]').first().waitFor()
})
const summary = {
  machine: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  date: new Date().toISOString(),
  sizes,
  total_gzip: totalGzip,
  bare_ms: bareMs,
  agents_list_ms: listMs,
  agent_page_ms: agentMs,
  agents_list_vs_bare: listMs / bareMs,
  agent_page_vs_bare: agentMs / bareMs,
}
console.log(
  `bare page ${bareMs.toFixed(0)} ms; agents list (${AGENTS}) ${listMs.toFixed(0)} ms (${summary.agents_list_vs_bare.toFixed(1)}×); agent page with a ${NODES}-node workflow ${agentMs.toFixed(0)} ms (${summary.agent_page_vs_bare.toFixed(1)}×; target < 1,000 ms)`,
)
if (opts.json) writeFileSync(opts.json, JSON.stringify(summary, null, 2))
await browser.close()
bare.stop(true)
await server.stop()
process.exit(0)
