// Agent list benchmark: GET /api/agents over 10,000 agents, for an admin (sees all) and a member with 50 shares,
// against the raw SQL the endpoint runs, measured in the same process and the same rounds.
//
//   bun scripts/bench/agents.ts [--agents 10000] [--shares 50] [--rounds 5] [--iterations 20] [--json FILE]
//
// Layers, each timed separately so the cost of each is visible:
//   raw      the compiled list SQL on bun:sqlite (prepared once, .all()): the floor
//   service  listAgents(): the same query through Kysely, rows mapped to records
//   handle   server.fetch(GET /api/agents) in process: request id, auth, validation, service, JSON, body read (log level warn)
//   http     fetch over loopback to the listening server: all of the above plus the socket
//   checked  listAgents() behind a bare Elysia route that declares the response schema, so Elysia checks and cleans
//            every item: what the list would cost if the route returned records instead of serialising them itself
// Configurations are interleaved per round; figures are medians over every sample. Ratios are against `raw`.
import type { SqliteHandle } from '../../src/platform/db/database.ts'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Elysia, t } from 'elysia'
import { loadConfig } from '../../src/config.ts'
import { AgentSummary } from '../../src/modules/agents/schema.ts'
import { putMember } from '../../src/modules/agents/members.ts'
import { agentListQuery, createAgent, listAgents } from '../../src/modules/agents/service.ts'
import { publishAgentVersion } from '../../src/modules/agents/versions.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { createServer } from '../../src/server.ts'
import { benchLicense, intOption, median } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    agents: { type: 'string', default: '10000' },
    shares: { type: 'string', default: '50' },
    creators: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    iterations: { type: 'string', default: '20' },
    json: { type: 'string' },
  },
})
const AGENTS = intOption(opts.agents!, '--agents')
const SHARES = intOption(opts.shares!, '--shares')
const CREATORS = intOption(opts.creators!, '--creators')
const ROUNDS = intOption(opts.rounds!, '--rounds')
const ITERATIONS = intOption(opts.iterations!, '--iterations')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

// ------------------------------------------------------------------------------------------------------------ set-up

const dataDir = mkdtempSync(join(tmpdir(), 'agentbox-bench-agents-'))
const config = loadConfig(['serve'], {
  AGENTBOX_DATA_DIR: dataDir,
  AGENTBOX_LICENSE_MODE: 'test',
  AGENTBOX_LOG_LEVEL: 'warn',
  AGENTBOX_SETUP_TOKEN: SETUP_TOKEN,
  AGENTBOX_PORT: '0',
  AGENTBOX_HOST: '127.0.0.1',
})
const server = await createServer(config)
// SQLite: this bench reads plans and timings on the file's read connection.
const { db, reader } = server.database as SqliteHandle

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await server.fetch(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
  const json = (await res.json()) as any
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}
const login = async (email: string) => (await call('POST', '/api/auth/login', '', { email, password: PASSWORD })).access_token as string
const principalOf = async (token: string): Promise<Principal> => {
  const me = await call('GET', '/api/auth/me', token)
  return { userId: me.id, email: me.email, name: me.name, role: me.role, kind: 'person', via: 'access_token', tokenId: null }
}

const seedStarted = performance.now()
await call('POST', '/api/tenant/setup', SETUP_TOKEN, {
  license_token: benchLicense({ seats: CREATORS + 10 }),
  admin_email: 'admin@example.com',
  admin_name: 'Ada Admin',
  admin_password: PASSWORD,
})
const adminToken = await login('admin@example.com')
const admin = await principalOf(adminToken)
await call('POST', '/api/users', adminToken, { email: 'member@example.com', name: 'Max Member', password: PASSWORD, role: 'member' })
const memberToken = await login('member@example.com')
const member = await principalOf(memberToken)
const creators: Principal[] = []
for (let i = 0; i < CREATORS; i++) {
  const email = `creator-${i}@example.com`
  await call('POST', '/api/users', adminToken, { email, name: `Creator ${i}`, password: PASSWORD, role: 'member' })
  creators.push(await principalOf(await login(email)))
}

// Agents spread over the creators (the admin and the member own none), half of them published, descriptions of
// realistic length; the member is a viewer of SHARES agents spread evenly across the id range.
const store = { db, clock: { now: () => Date.now() } }
const description = 'Answers questions about invoices, refunds and delivery times for the EU support desk. '.repeat(2).trim()
const instructions = 'You are a support agent. '.repeat(40)
const names: string[] = []
for (let i = 0; i < AGENTS; i++) {
  const creator = creators[i % creators.length]!
  const name = `agent-${String(i).padStart(5, '0')}`
  await createAgent(store, creator, { name, description, instructions })
  if (i % 2 === 0) await publishAgentVersion(store, creator, name, 'first')
  names.push(name)
}
const step = Math.max(1, Math.floor(AGENTS / SHARES))
for (let i = 0; i < Math.min(SHARES, AGENTS); i++) {
  const index = i * step
  await putMember(store, creators[index % creators.length]!, names[index]!, { email: 'member@example.com', role: 'viewer' })
}
const seedSeconds = (performance.now() - seedStarted) / 1000

const port = server.start()

// -------------------------------------------------------------------------------------------------------- measuring

interface Case {
  who: 'admin' | 'member'
  principal: Principal
  token: string
  expected: number
}
const cases: Case[] = [
  { who: 'admin', principal: admin, token: adminToken, expected: AGENTS },
  { who: 'member', principal: member, token: memberToken, expected: Math.min(SHARES, AGENTS) },
]

type Layer = 'raw' | 'service' | 'handle' | 'http' | 'checked'
const LAYERS: Layer[] = ['raw', 'service', 'handle', 'http', 'checked']

const checkedApp = new Elysia().get('/:who', ({ params }) => listAgents(db, params.who === 'admin' ? admin : member), {
  response: { 200: t.Array(AgentSummary) },
})

/** Reads the whole body as a client would receive it; parsing it is the client's cost, so only the warm-up parses. */
const itemCount = async (res: Response, parse: boolean) => {
  const text = await res.text()
  return parse ? (JSON.parse(text) as unknown[]).length : text.length
}

function layerRunner(c: Case, layer: Layer, parse = false): () => Promise<number> {
  const compiled = agentListQuery(db, c.principal).compile()
  const statement = reader.query(compiled.sql)
  const parameters = compiled.parameters as any[]
  switch (layer) {
    case 'raw':
      return async () => (statement.all(...parameters) as unknown[]).length
    case 'service':
      return async () => (await listAgents(db, c.principal)).length
    case 'handle':
      return async () => {
        const res = await server.fetch(new Request('http://localhost/api/agents', { headers: { authorization: `Bearer ${c.token}` } }))
        return itemCount(res, parse)
      }
    case 'http':
      return async () => {
        const res = await fetch(`http://127.0.0.1:${port}/api/agents`, { headers: { authorization: `Bearer ${c.token}` } })
        return itemCount(res, parse)
      }
    case 'checked':
      return async () => itemCount(await checkedApp.handle(new Request(`http://localhost/${c.who}`)), parse)
  }
}

const samples = new Map<string, number[]>()
const key = (c: Case, layer: Layer) => `${c.who}/${layer}`
const runners = new Map(cases.flatMap((c) => LAYERS.map((layer) => [key(c, layer), layerRunner(c, layer)] as const)))

// Warm-up: JIT, statement caches, page cache; also checks every layer returns the whole list.
for (const c of cases) {
  for (const layer of LAYERS) {
    for (let i = 0; i < 3; i++) {
      const n = await layerRunner(c, layer, true)()
      if (n !== c.expected) throw new Error(`${key(c, layer)} returned ${n} items, expected ${c.expected}`)
    }
  }
}

for (let round = 0; round < ROUNDS; round++) {
  // Rotate the order each round so no layer always runs first (or right after a GC-heavy one).
  const order = cases.flatMap((c) => LAYERS.map((layer) => [c, layer] as const))
  for (let i = 0; i < round % order.length; i++) order.push(order.shift()!)
  for (const [c, layer] of order) {
    const run = runners.get(key(c, layer))!
    const list = samples.get(key(c, layer)) ?? []
    for (let i = 0; i < ITERATIONS; i++) {
      const started = performance.now()
      await run()
      list.push(performance.now() - started)
    }
    samples.set(key(c, layer), list)
  }
}

const bytes = new Map<string, number>()
for (const c of cases) {
  const res = await server.fetch(new Request('http://localhost/api/agents', { headers: { authorization: `Bearer ${c.token}` } }))
  bytes.set(c.who, (await res.arrayBuffer()).byteLength)
}

// --------------------------------------------------------------------------------------------------------- report

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} CPUs, Bun ${Bun.version}, ${process.platform} ${process.arch}`
const result = {
  date: new Date().toISOString(),
  machine,
  agents: AGENTS,
  shares: SHARES,
  rounds: ROUNDS,
  iterations: ITERATIONS,
  seed_seconds: Math.round(seedSeconds * 10) / 10,
  cases: cases.map((c) => {
    const raw = median(samples.get(key(c, 'raw'))!)
    return {
      who: c.who,
      items: c.expected,
      response_bytes: bytes.get(c.who),
      layers: Object.fromEntries(
        LAYERS.map((layer) => {
          const xs = samples.get(key(c, layer))!
          return [layer, { median_ms: round3(median(xs)), p95_ms: round3(percentile(xs, 95)), ratio_vs_raw: Math.round((median(xs) / raw) * 10) / 10 }]
        }),
      ),
    }
  }),
}
function round3(x: number) {
  return Math.round(x * 1000) / 1000
}

console.log(`agents list benchmark — ${result.date}`)
console.log(`${machine}`)
console.log(
  `${AGENTS} agents (${CREATORS} creators, half published), member viewer of ${SHARES}; ${ROUNDS} rounds × ${ITERATIONS} iterations per layer; seeded in ${result.seed_seconds} s\n`,
)
console.log('| caller | items | bytes | layer | median ms | p95 ms | × raw |')
console.log('|---|---:|---:|---|---:|---:|---:|')
for (const c of result.cases) {
  for (const layer of LAYERS) {
    const l = c.layers[layer]!
    console.log(`| ${c.who} | ${c.items} | ${c.response_bytes} | ${layer} | ${l.median_ms} | ${l.p95_ms} | ${l.ratio_vs_raw} |`)
  }
}
if (opts.json) writeFileSync(opts.json, JSON.stringify(result, null, 2))

await server.stop()
rmSync(dataDir, { recursive: true, force: true })
