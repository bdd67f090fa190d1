// Insights for a request: the range of UTC days checked, the agent authorised, the scope chosen (admins: the
// organisation; members: themselves), then the figures computed in the insights worker (compute.ts).
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import { foldRollups } from '../../platform/db/rollup-folder.ts'
import type { Database } from '../../platform/db/schema.ts'
import { invalidInput, type InputIssue } from '../../platform/errors.ts'
import { authorizeAgent } from '../agents/index.ts'
import { DAY_MS, dayKey } from './compute.ts'
import type { InsightsRunner } from './run-insights.ts'

export interface InsightsRequest {
  from?: string
  to?: string
  agent_name?: string
}

export const DEFAULT_DAYS = 30
export const MAX_DAYS = 1000
const DATE = /^\d{4}-\d{2}-\d{2}$/

function parseDay(value: string): number | null {
  if (!DATE.test(value)) return null
  const ms = Date.parse(`${value}T00:00:00.000Z`)
  return Number.isNaN(ms) || dayKey(ms) !== value ? null : ms
}

export class InsightsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly run: InsightsRunner,
  ) {}

  /** The insights (an `Insights` of compute.ts) as JSON text, made in the worker: what the HTTP route sends. */
  async insightsAsJson(principal: Principal, request: InsightsRequest): Promise<string> {
    const { fromMs, toMs } = this.#range(request)
    const agent = request.agent_name === undefined ? null : await authorizeAgent(this.db, request.agent_name, principal)
    const scope = { userId: principal.role === 'admin' ? null : principal.userId, agent: agent ? { id: agent.id, name: agent.name } : null }
    // The worker reads the rollups on a read-only connection: every row committed before this request is counted in
    // them first, on the writer (SQLite counts recorded rows a little later; platform/db/rollup-folder.ts).
    await foldRollups(this.db)
    return this.run({ scope, fromMs, toMs })
  }

  #range(request: InsightsRequest): { fromMs: number; toMs: number } {
    const issues: InputIssue[] = []
    const read = (field: 'from' | 'to') => {
      const value = request[field]
      if (value === undefined) return undefined
      const ms = parseDay(value)
      if (ms === null)
        issues.push({
          in: 'query',
          loc: [field],
          msg: 'Input should be a valid date in the format YYYY-MM-DD',
          type: 'date_from_datetime_parsing',
          input: value,
        })
      return ms ?? undefined
    }
    const from = read('from')
    const to = read('to')
    if (issues.length > 0) throw invalidInput(...issues)
    const toMs = to ?? parseDay(dayKey(this.clock.now()))!
    const fromMs = from ?? toMs - (DEFAULT_DAYS - 1) * DAY_MS
    if (fromMs > toMs) throw invalidInput({ in: 'query', loc: ['from'], msg: 'from must not be after to', type: 'value_error', input: request.from })
    const days = (toMs - fromMs) / DAY_MS + 1
    if (days > MAX_DAYS)
      throw invalidInput({
        in: 'query',
        loc: ['to'],
        msg: `The range covers ${days} days; at most ${MAX_DAYS} are allowed`,
        type: 'value_error',
        input: request.to,
        ctx: { max_days: MAX_DAYS },
      })
    return { fromMs, toMs }
  }
}
