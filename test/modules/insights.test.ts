// Insights (GET /api/insights): every figure equals the same figure computed from the interaction rows and workflow
// tables directly (percentiles within the histogram's 2 %), for the organisation, a member, and one agent; input errors.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { gateFlow, newAgent, node, refresh, saveWorkflow, setup, type People } from '../workflows/helpers.ts'

let p: People
const DAY = 86_400_000
const START = Date.parse('2026-10-01T08:00:00.000Z')

interface Row {
  user_id: string
  kind: string
  api_title: string
  action: string
  is_error: number
  duration_seconds: number | null
  created_at: string
}

let agent = ''
beforeAll(async () => {
  p = await setup()
  p.t.clock.set(START)
  await refresh(p)
  agent = await newAgent(p)
  const interactions = p.t.server.modules.interactions.service
  const users = [p.owner, p.viewer, p.outsider]
  // Deterministic spread: 300 interactions over 20 days, three users, MCP calls through the agent and two other
  // servers, API actions of two applications, some failures, most with a duration.
  let seed = 7
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  for (let i = 0; i < 300; i++) {
    p.t.clock.set(START + Math.floor(next() * 20 * DAY))
    const user = users[Math.floor(next() * users.length)]!
    const mcp = next() < 0.6
    const duration = next() < 0.9 ? Math.round(next() * 5000) / 1000 : undefined
    await interactions.record(user.id, {
      kind: mcp ? 'mcp_tool' : 'api_action',
      apiTitle: mcp ? [agent, 'files', 'search'][Math.floor(next() * 3)]! : ['Billing API', 'Pet Store'][Math.floor(next() * 2)]!,
      action: mcp ? ['run_workflow', 'load_skill', 'lookup'][Math.floor(next() * 3)]! : ['listPets', 'createInvoice'][Math.floor(next() * 2)]!,
      isError: next() < 0.1,
      durationSeconds: duration,
    })
  }
  // Quick calls on 10 September, so a range from later in September has stored calls before it (members then read
  // months and days, not their totals) and one from 1 September holds all of them; counted where they do not belong,
  // they would move the median.
  for (const [i, user] of users.entries()) {
    p.t.clock.set(Date.parse('2026-09-10T10:00:00.000Z') + i * 60_000)
    for (let call = 0; call < 40; call++)
      await interactions.record(user.id, { kind: 'mcp_tool', apiTitle: 'files', action: 'sync', isError: call % 4 === 0, durationSeconds: 0.002 })
  }
  p.t.clock.set(START + 21 * DAY)
  await refresh(p)
})
afterAll(() => p.t.close())

const rows = async (): Promise<Row[]> =>
  (await p.t.sql.all('SELECT user_id, kind, api_title, action, is_error, duration_seconds, created_at FROM interactions')) as Row[]
const insights = (query: string, token = p.admin) => p.t.request('GET', `/api/insights${query}`, { token })

/** The figures computed the naive way, from the rows. */
function expected(all: Row[], from: string, to: string) {
  const inRange = all.filter((row) => row.created_at.slice(0, 10) >= from && row.created_at.slice(0, 10) <= to)
  const days: string[] = []
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += DAY) days.push(new Date(ms).toISOString().slice(0, 10))
  const count = (filter: (row: Row) => boolean) => inRange.filter(filter).length
  const tally = new Map<string, number>()
  for (const row of inRange.filter((r) => r.kind === 'mcp_tool'))
    tally.set(`${row.api_title}\n${row.action}`, (tally.get(`${row.api_title}\n${row.action}`) ?? 0) + 1)
  const apps = new Map<string, number>()
  for (const row of inRange.filter((r) => r.kind === 'api_action')) apps.set(row.api_title, (apps.get(row.api_title) ?? 0) + 1)
  const durations = inRange
    .filter((row) => row.duration_seconds !== null)
    .map((row) => row.duration_seconds! * 1000)
    .sort((a, b) => a - b)
  const rank = (percent: number) => (durations.length === 0 ? null : durations[Math.max(1, Math.ceil((percent / 100) * durations.length)) - 1]!)
  return {
    perDay: days.map((date) => ({
      date,
      mcp_tool: count((r) => r.created_at.startsWith(date) && r.kind === 'mcp_tool'),
      api_action: count((r) => r.created_at.startsWith(date) && r.kind === 'api_action'),
      total: count((r) => r.created_at.startsWith(date)),
    })),
    active: days.map((date) => ({ date, count: new Set(inRange.filter((r) => r.created_at.startsWith(date)).map((r) => r.user_id)).size })),
    tools: [...tally].map(([key, n]) => ({ mcp_server_name: key.split('\n')[0], tool_name: key.split('\n')[1], count: n })),
    apps: [...apps].map(([api_title, n]) => ({ api_title, count: n })),
    errorRate: inRange.length === 0 ? null : Math.round((count((r) => r.is_error === 1) / inRange.length) * 10000) / 10000,
    p50: rank(50),
    p95: rank(95),
  }
}

const sortTools = (tools: { mcp_server_name?: string; tool_name?: string; count: number }[]) =>
  [...tools].sort((a, b) => b.count - a.count || (`${a.mcp_server_name}\n${a.tool_name}` < `${b.mcp_server_name}\n${b.tool_name}` ? -1 : 1))
const sortApps = (apps: { api_title: string; count: number }[]) => [...apps].sort((a, b) => b.count - a.count || (a.api_title < b.api_title ? -1 : 1))

function expectClose(actual: number | null, exact: number | null): void {
  if (exact === null) return expect(actual).toBeNull()
  // The histogram answers its bucket's upper bound: at or above the exact value, within 2 % (and 1 ms under 1 ms).
  expect(actual).not.toBeNull()
  expect(actual!).toBeGreaterThanOrEqual(exact - 0.05)
  expect(actual!).toBeLessThanOrEqual(Math.max(exact * 1.02 + 0.05, 1))
}

describe('GET /api/insights', () => {
  test('admins: the organisation, every figure as the rows say, every day present', async () => {
    const res = await insights('?from=2026-10-01&to=2026-10-20')
    expect(res.status).toBe(200)
    const want = expected(await rows(), '2026-10-01', '2026-10-20')
    expect(res.body.from).toBe('2026-10-01')
    expect(res.body.to).toBe('2026-10-20')
    expect(res.body.interactions_per_day).toEqual(want.perDay)
    expect(res.body.active_users_per_day).toEqual(want.active)
    expect(res.body.error_rate).toBe(want.errorRate)
    const sortedTools = [...want.tools].sort(
      (a, b) => b.count - a.count || (`${a.mcp_server_name}\n${a.tool_name}` < `${b.mcp_server_name}\n${b.tool_name}` ? -1 : 1),
    )
    expect(res.body.top_tools).toEqual(sortedTools.slice(0, 10))
    expect(res.body.top_applications).toEqual([...want.apps].sort((a, b) => b.count - a.count || (a.api_title < b.api_title ? -1 : 1)))
    expectClose(res.body.duration_ms.p50, want.p50)
    expectClose(res.body.duration_ms.p95, want.p95)
  })

  test("ranges holding whole months, all of a member's calls, or neither: the same figures as the rows", async () => {
    // Members: months with days at either end; all their calls (their totals); a month read whole because nothing
    // follows it; days only. The organisation: months with days at either end.
    for (const [token, only, from, to] of [
      [p.admin, null, '2026-09-20', '2026-11-03'],
      [p.viewer.token, p.viewer.id, '2026-09-20', '2026-11-03'],
      [p.viewer.token, p.viewer.id, '2026-09-01', '2026-10-31'],
      [p.viewer.token, p.viewer.id, '2026-10-01', '2026-10-31'],
      [p.owner.token, p.owner.id, '2026-10-03', '2026-10-17'],
    ] as const) {
      const res = await insights(`?from=${from}&to=${to}`, token)
      const want = expected(
        (await rows()).filter((row) => only === null || row.user_id === only),
        from,
        to,
      )
      expect(res.body.interactions_per_day).toEqual(want.perDay)
      expect(res.body.active_users_per_day).toEqual(want.active)
      expect(res.body.error_rate).toBe(want.errorRate)
      expect(res.body.top_tools).toEqual(sortTools(want.tools).slice(0, 10))
      expect(res.body.top_applications).toEqual(sortApps(want.apps))
      expectClose(res.body.duration_ms.p50, want.p50)
      expectClose(res.body.duration_ms.p95, want.p95)
    }
    // Exactly one whole month, and a range inside one month.
    const october = (await insights('?from=2026-10-01&to=2026-10-31')).body
    const want = expected(await rows(), '2026-10-01', '2026-10-31')
    expectClose(october.duration_ms.p95, want.p95)
    const inside = (await insights('?from=2026-10-05&to=2026-10-09')).body
    expectClose(inside.duration_ms.p50, expected(await rows(), '2026-10-05', '2026-10-09').p50)
  })

  test('members: their own interactions only', async () => {
    const res = await insights('?from=2026-10-01&to=2026-10-20', p.viewer.token)
    const want = expected(
      (await rows()).filter((row) => row.user_id === p.viewer.id),
      '2026-10-01',
      '2026-10-20',
    )
    expect(res.body.interactions_per_day).toEqual(want.perDay)
    expect(res.body.active_users_per_day).toEqual(want.active)
    expect(res.body.error_rate).toBe(want.errorRate)
    expectClose(res.body.duration_ms.p95, want.p95)
  })

  test('one agent: the calls through its MCP server only; 404 for an agent the caller cannot see', async () => {
    const res = await insights(`?from=2026-10-01&to=2026-10-20&agent_name=${agent}`)
    const want = expected(
      (await rows()).filter((row) => row.kind === 'mcp_tool' && row.api_title === agent),
      '2026-10-01',
      '2026-10-20',
    )
    expect(res.body.interactions_per_day).toEqual(want.perDay)
    expect(res.body.active_users_per_day).toEqual(want.active)
    expect(res.body.top_applications).toEqual([])
    expect(res.body.top_tools.every((tool: any) => tool.mcp_server_name === agent)).toBe(true)
    // A member's calls through the agent: the same figures over their rows only.
    const mine = await insights(`?from=2026-10-01&to=2026-10-20&agent_name=${agent}`, p.viewer.token)
    const wantMine = expected(
      (await rows()).filter((row) => row.kind === 'mcp_tool' && row.api_title === agent && row.user_id === p.viewer.id),
      '2026-10-01',
      '2026-10-20',
    )
    expect(mine.body.interactions_per_day).toEqual(wantMine.perDay)
    expectClose(mine.body.duration_ms.p50, wantMine.p50)
    expectClose(mine.body.duration_ms.p95, wantMine.p95)
    expect((await insights(`?agent_name=${agent}`, p.outsider.token)).status).toBe(404)
    expect((await insights('?agent_name=no-such-agent')).status).toBe(404)
  })

  test('the default range is the last 30 days up to today; an empty range answers zeros and nulls', async () => {
    const res = await insights('')
    expect(res.body.to).toBe(new Date(p.t.clock.now()).toISOString().slice(0, 10))
    expect(res.body.interactions_per_day).toHaveLength(30)
    const empty = await insights('?from=2025-01-01&to=2025-01-03')
    expect(empty.body).toMatchObject({ top_tools: [], top_applications: [], error_rate: null, duration_ms: { p50: null, p95: null } })
    expect(empty.body.interactions_per_day.map((day: any) => day.total)).toEqual([0, 0, 0])
  })

  test('bad input: from after to, malformed or impossible dates, a range over 1000 days: 422 naming the field', async () => {
    const after = await insights('?from=2026-10-05&to=2026-10-01')
    expect(after.status).toBe(422)
    expect(after.body.detail[0].loc).toEqual(['query', 'from'])
    const bad = await insights('?from=2026-13-01&to=yesterday')
    expect(bad.body.detail.map((issue: any) => issue.loc)).toEqual([
      ['query', 'from'],
      ['query', 'to'],
    ])
    expect((await insights('?from=2020-01-01&to=2026-10-01')).body.detail[0].loc).toEqual(['query', 'to'])
    expect((await p.t.request('GET', '/api/insights')).status).toBe(401)
  })

  test('deleting interactions (retention) takes them out of every figure', async () => {
    const before = (await insights('?from=2026-10-01&to=2026-10-01')).body
    await p.t.sql.run("DELETE FROM interactions WHERE substr(created_at, 1, 10) = '2026-10-01'")
    const after = (await insights('?from=2026-10-01&to=2026-10-01')).body
    expect(after.interactions_per_day[0].total).toBe(0)
    expect(after.active_users_per_day[0].count).toBe(0)
    expect(after.duration_ms).toEqual({ p50: null, p95: null })
    expect(before.interactions_per_day[0].total).toBeGreaterThanOrEqual(0)
  })
})

describe('workflow runs and approvals', () => {
  test('runs by status and approvals: waiting now, and the median wait of decisions (members: their runs)', async () => {
    const flow = await saveWorkflow(p, agent, gateFlow(), { name: 'gated' })
    const quick = await saveWorkflow(p, agent, { nodes: [node('o', 'output', { value: 1 })], connections: [] }, { name: 'quick' })
    const run = (id: string, token = p.owner.token) => p.t.request('POST', `/api/workflows/${agent}/${id}/run`, { token, body: { input: { amount: 5 } } })
    const waits: number[] = []
    for (const minutes of [10, 30, 50]) {
      const started = await run(flow)
      expect(started.body.status).toBe('waiting_human')
      p.t.clock.advance(minutes * 60_000)
      const resumed = await p.t.request('POST', `/api/workflows/${agent}/runs/${started.body.run_id}/resume`, {
        token: p.owner.token,
        body: { decision: 'approve' },
      })
      expect(resumed.body.status).toBe('succeeded')
      waits.push(minutes * 60)
    }
    await run(flow) // left waiting
    await run(quick, p.viewer.token)
    const today = new Date(p.t.clock.now()).toISOString().slice(0, 10)
    const org = (await insights(`?from=${today}&to=${today}`)).body
    expect(org.workflow_runs).toEqual({ running: 0, waiting_human: 1, succeeded: 4, failed: 0, rejected: 0, cancelled: 0 })
    expect(org.approvals).toEqual({ waiting: 1, median_decision_s: 1800 })
    const viewer = (await insights(`?from=${today}&to=${today}`, p.viewer.token)).body
    expect(viewer.workflow_runs).toMatchObject({ succeeded: 1, waiting_human: 0 })
    expect(viewer.approvals).toEqual({ waiting: 0, median_decision_s: null })
    const owner = (await insights(`?from=${today}&to=${today}&agent_name=${agent}`, p.owner.token)).body
    expect(owner.approvals).toEqual({ waiting: 1, median_decision_s: 1800 })
  })
})
