// The interaction history's part of scripts/bench/interactions.ts: GET /api/interactions over the million rows the
// summaries loaded, page by page, against the naive query (no index, the same filters, sorted) on the same file.
import type { Database as Sqlite } from 'bun:sqlite'
import { Kysely, type CompiledQuery } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import { type HistoryQuery, InteractionHistory } from '../../src/modules/interactions/history.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import type { Database } from '../../src/platform/db/schema.ts'
import { queryPlan } from '../../src/platform/db/query-plan.ts'
import { median } from './lib.ts'

export interface HistoryBenchInput {
  readonly base: string
  readonly adminJwt: string
  readonly adminId: string
  readonly member: { readonly id: string; readonly jwt: string }
  /** A read-only connection to the server's database file. */
  readonly reader: Sqlite
  readonly reps: number
  readonly naiveReps: number
  readonly check: (name: string, pass: boolean, detail?: string) => void
}

interface HistoryConfig {
  readonly key: string
  readonly label: string
  readonly who: 'admin' | 'member'
  /** The query string's filters. */
  readonly filters: Record<string, string>
  /** The same filters in SQL, for the naive query. */
  readonly where: string
  readonly params: readonly (string | number)[]
  /** Start this many pages deep (found by following next_cursor once, before timing). */
  readonly depth?: number
}

interface PageAnswer {
  status: number
  items: { id: string }[]
  next_cursor: string | null
  bytes: number
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–')

export async function historyBench(input: HistoryBenchInput): Promise<{ lines: string[]; json: unknown }> {
  const { base, reader, check } = input
  const get = async (token: string, query: string): Promise<PageAnswer> => {
    const response = await fetch(`${base}/api/interactions${query}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) })
    const text = await response.text()
    const json = JSON.parse(text)
    return { status: response.status, items: json.items ?? [], next_cursor: json.next_cursor ?? null, bytes: text.length }
  }
  const qs = (filters: Record<string, string>, extra: Record<string, string> = {}) => {
    const params = new URLSearchParams({ ...filters, ...extra }).toString()
    return params ? `?${params}` : ''
  }

  // Values picked from the data so every filter matches something: the member's busiest title, a tool, a conversation.
  const one = <T>(sql: string, ...params: (string | number)[]) => reader.query(sql).get(...params) as T
  const memberTitle = one<{ api_title: string }>('SELECT api_title FROM interactions WHERE user_id = ? LIMIT 1', input.member.id).api_title
  const conversation = one<{ conversation_id: string }>(
    'SELECT conversation_id FROM interactions WHERE user_id = ? AND conversation_id IS NOT NULL ORDER BY created_at DESC LIMIT 1',
    input.member.id,
  ).conversation_id
  const lastMonth = new Date(Date.now() - 30 * 86_400_000).toISOString()
  const member = (where: string) => `user_id = ? ${where ? `AND ${where}` : ''}`
  const configs: HistoryConfig[] = [
    { key: 'admin', label: 'admin, everyone, no filter', who: 'admin', filters: {}, where: '', params: [] },
    { key: 'admin-deep', label: 'admin, no filter, 200 pages deep', who: 'admin', filters: {}, where: '', params: [], depth: 200 },
    { key: 'admin-title', label: 'admin, api_title (1 in 20)', who: 'admin', filters: { api_title: 'App 07' }, where: 'api_title = ?', params: ['App 07'] },
    { key: 'admin-tool', label: 'admin, tool_name (1 in 200)', who: 'admin', filters: { tool_name: 'tool_042' }, where: 'action = ?', params: ['tool_042'] },
    { key: 'admin-errors', label: 'admin, is_error=true (1 in 50)', who: 'admin', filters: { is_error: 'true' }, where: 'is_error = 1', params: [] },
    {
      key: 'admin-rare',
      label: 'admin, api_title + tool_name + is_error (1 in 200,000)',
      who: 'admin',
      filters: { api_title: 'App 07', tool_name: 'tool_042', is_error: 'true' },
      where: 'api_title = ? AND action = ? AND is_error = 1',
      params: ['App 07', 'tool_042'],
    },
    {
      key: 'admin-month-actions',
      label: 'admin, last 30 days, kind=api_action, client_source',
      who: 'admin',
      filters: { from: lastMonth, kind: 'api_action', client_source: 'claude-code' },
      where: 'created_at >= ? AND kind = ? AND client_source = ?',
      params: [lastMonth, 'api_action', 'claude-code'],
    },
    { key: 'member', label: 'member, own, no filter', who: 'member', filters: {}, where: member(''), params: [input.member.id] },
    {
      key: 'member-title-errors',
      label: 'member, api_title + is_error (1 in 1,000 of theirs)',
      who: 'member',
      filters: { api_title: memberTitle, is_error: 'true' },
      where: member('api_title = ? AND is_error = 1'),
      params: [input.member.id, memberTitle],
    },
    {
      key: 'member-conversation',
      label: "member, one conversation's calls",
      who: 'member',
      filters: { conversation_id: conversation },
      where: member('conversation_id = ?'),
      params: [input.member.id, conversation],
    },
  ]

  const naive = (config: HistoryConfig, offset = 0) =>
    reader
      .query(
        `SELECT id FROM interactions NOT INDEXED ${config.where ? `WHERE ${config.where}` : ''} ORDER BY created_at DESC, id DESC LIMIT 50 OFFSET ${offset}`,
      )
      .all(...config.params) as { id: string }[]

  const results: { config: HistoryConfig; oursMs: number; maxMs: number; naiveMs: number; items: number; pagesFor50: number; bytes: number }[] = []
  for (const config of configs) {
    const token = config.who === 'admin' ? input.adminJwt : input.member.jwt
    let start = qs(config.filters)
    for (let page = 0; page < (config.depth ?? 0); page++) start = qs(config.filters, { cursor: (await get(token, start)).next_cursor! })
    for (let i = 0; i < 3; i++) await get(token, start)
    const times: number[] = []
    let first: PageAnswer | undefined
    for (let i = 0; i < input.reps; i++) {
      const t0 = performance.now()
      first = await get(token, start)
      times.push(performance.now() - t0)
    }
    // Follow the cursor until 50 matches (or the end): with a rare filter a page may hold fewer.
    const found: string[] = [...first!.items.map((item) => item.id)]
    let cursor = first!.next_cursor
    let pages = 1
    while (found.length < 50 && cursor !== null) {
      const next = await get(token, qs(config.filters, { cursor }))
      found.push(...next.items.map((item) => item.id))
      cursor = next.next_cursor
      pages++
    }
    const offset = (config.depth ?? 0) * 50
    naive(config, offset)
    const naiveTimes: number[] = []
    let expected: { id: string }[] = []
    for (let i = 0; i < input.naiveReps; i++) {
      const t0 = performance.now()
      expected = naive(config, offset)
      naiveTimes.push(performance.now() - t0)
    }
    const same = first!.status === 200 && JSON.stringify(found.slice(0, 50)) === JSON.stringify(expected.map((row) => row.id))
    check(`[history ${config.key}] the first 50 matches equal the naive query's`, same, `${first!.items.length} on the first page, 50 after ${pages} page(s)`)
    results.push({
      config,
      oursMs: median(times),
      maxMs: Math.max(...times),
      naiveMs: median(naiveTimes),
      items: first!.items.length,
      pagesFor50: pages,
      bytes: first!.bytes,
    })
    console.log(`  history ${config.key.padEnd(22)} ours ${fmt(median(times), 2)} ms  naive ${fmt(median(naiveTimes), 1)} ms  items ${first!.items.length}`)
  }

  // The SQL the service runs for each configuration, captured through Kysely's log on the read-only connection.
  const captured: CompiledQuery[] = []
  const kysely = new Kysely<Database>({ dialect: new BunSqliteDialect({ database: reader }), log: (event) => void captured.push(event.query) })
  const history = new InteractionHistory(kysely)
  const principal = (who: 'admin' | 'member'): Principal => ({
    userId: who === 'admin' ? input.adminId : input.member.id,
    role: who,
    email: '',
    name: '',
    kind: 'person',
    via: 'access_token',
    tokenId: null,
  })
  const plans: Record<string, string[]> = {}
  for (const config of configs) {
    captured.length = 0
    const query = { ...config.filters, is_error: config.filters.is_error === undefined ? undefined : config.filters.is_error === 'true' } as HistoryQuery
    await history.pageAsJson(principal(config.who), query)
    const walks = captured.filter((query) => /order by "created_at" desc/.test(query.sql))
    plans[config.key] = walks.flatMap((query) => queryPlan(reader, query.sql, query.parameters))
    const plan = plans[config.key]!.join(' | ')
    const index = config.filters.conversation_id ? 'interactions_conversation' : config.who === 'member' ? 'interactions_user_time' : 'interactions_time'
    check(
      `[history ${config.key}] walks ${index}${index === 'interactions_conversation' ? '' : ' index-only'}, no sort`,
      plan.includes(`${index === 'interactions_conversation' ? '' : 'COVERING '}INDEX ${index}`) && !plan.includes('TEMP B-TREE'),
      plan,
    )
  }
  await kysely.destroy().catch(() => undefined)

  const lines = [
    `### Interaction history over the same rows: \`GET /api/interactions\` (limit 50)`,
    '',
    `Ours: HTTP round trip (JWT), median and max of ${input.reps} after 3 warm-ups; "items" is what the first page held (a page examines at most`,
    `10,000 index entries), "pages for 50" how many requests the first 50 matches took. Naive: \`SELECT id FROM interactions NOT INDEXED WHERE`,
    `<the same filters> ORDER BY created_at DESC, id DESC LIMIT 50 [OFFSET]\` in the bench process on the same file, median of ${input.naiveReps};`,
    'its 50 ids are compared with ours.',
    '',
    '| page | ours ms (median) | ours ms (max) | naive ms | naive ÷ ours | items | pages for 50 | response bytes |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.config.label} | ${fmt(r.oursMs, 2)} | ${fmt(r.maxMs, 2)} | ${fmt(r.naiveMs, 1)} | **${fmt(r.naiveMs / r.oursMs, 0)}×** | ${r.items} | ${r.pagesFor50} | ${fmt(r.bytes)} |`,
    ),
    '',
    `Plans: ${Object.entries(plans)
      .map(([key, plan]) => `${key}: ${plan.join(' → ')}`)
      .join('; ')}.`,
  ]
  return { lines, json: { results: results.map(({ config, ...r }) => ({ key: config.key, ...r })), plans } }
}
