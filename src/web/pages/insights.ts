// Insights: how the platform is used over a range of days (admins: the organisation; members: themselves), optionally
// for one agent: interactions per day by kind, active users, top tools and applications, errors, durations, workflow
// runs and approvals. Charts are the Usage page's stacked bars, each with its table.
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import type { Me } from '../session.ts'
import { h, Loading, useLoad } from '../ui.ts'
import { Chart } from './usage.ts'

interface Insights {
  from: string
  to: string
  interactions_per_day: { date: string; mcp_tool: number; api_action: number; total: number }[]
  top_tools: { tool_name: string; mcp_server_name: string; count: number }[]
  top_applications: { api_title: string; count: number }[]
  error_rate: number | null
  duration_ms: { p50: number | null; p95: number | null }
  active_users_per_day: { date: string; count: number }[]
  workflow_runs: Record<string, number>
  approvals: { waiting: number; median_decision_s: number | null }
}

const day = (d: Date) => d.toISOString().slice(0, 10)
const orDash = (value: number | null, unit = '') => (value === null ? '—' : `${value}${unit}`)
const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`)
function duration(seconds: number | null): string {
  if (seconds === null) return '—'
  if (seconds < 120) return `${Math.round(seconds)} s`
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`
  return `${Math.round(seconds / 360) / 10} h`
}

function Stat({ label, value }: { label: string; value: string }) {
  // bdi: a number and its unit keep their order in a right-to-left page.
  return h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, h('bdi', null, value)))
}

function Table({ caption, head, rows }: { caption: string; head: string[]; rows: (string | number)[][] }) {
  return h(
    'div',
    { class: 'table-wrap card' },
    h(
      'table',
      null,
      h('caption', null, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          head.map((text) => h('th', { scope: 'col', key: text }, text)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.length === 0
          ? h('tr', null, h('td', { colSpan: head.length }, 'None in this range.'))
          : rows.map((row, i) =>
              h(
                'tr',
                { key: i },
                row.map((cell, j) => (j === 0 ? h('th', { scope: 'row', key: j }, String(cell)) : h('td', { key: j }, String(cell)))),
              ),
            ),
      ),
    ),
  )
}

export function InsightsPage({ me }: { me: Me }) {
  const now = new Date()
  const [from, setFrom] = useState(day(new Date(now.getTime() - 29 * 86_400_000)))
  const [to, setTo] = useState(day(now))
  const [agent, setAgent] = useState('')
  const data = useLoad(() => {
    const query = new URLSearchParams({ from, to })
    if (agent.trim()) query.set('agent_name', agent.trim())
    return api<Insights>('GET', `/api/insights?${query}`)
  }, [from, to, agent])
  const input = (id: string, label: string, value: string, set: (v: string) => void, type = 'text') =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h('input', { id, type, value, onChange: (e: Event) => set((e.currentTarget as HTMLInputElement).value) }),
    )
  const insights = data.data
  const total = insights?.interactions_per_day.reduce((sum, d) => sum + d.total, 0) ?? 0
  return h(
    'section',
    null,
    h('h1', null, 'Insights'),
    h('p', null, me.role === 'admin' ? 'How the organisation uses Agentbox.' : 'How you use Agentbox.'),
    h(
      'form',
      { class: 'filters', onSubmit: (e: Event) => e.preventDefault() },
      input('insights-from', 'From', from, setFrom, 'date'),
      input('insights-to', 'To', to, setTo, 'date'),
      input('insights-agent', 'Agent (name, empty for all)', agent, setAgent),
    ),
    !insights || data.error
      ? h(Loading, { error: data.error })
      : h(
          'div',
          null,
          h(
            'dl',
            { class: 'stats' },
            h(Stat, { label: 'Interactions', value: String(total) }),
            h(Stat, { label: 'Error rate', value: percent(insights.error_rate) }),
            h(Stat, { label: 'Duration p50', value: orDash(insights.duration_ms.p50, ' ms') }),
            h(Stat, { label: 'Duration p95', value: orDash(insights.duration_ms.p95, ' ms') }),
            h(Stat, { label: 'Approvals waiting', value: String(insights.approvals.waiting) }),
            h(Stat, { label: 'Median time to decision', value: duration(insights.approvals.median_decision_s) }),
          ),
          h('h2', null, 'Interactions per day'),
          h(Chart, {
            what: 'kinds',
            summary: Object.fromEntries(insights.interactions_per_day.map((d) => [d.date, { 'MCP tool calls': d.mcp_tool, 'API actions': d.api_action }])),
          }),
          h('h2', null, 'Active users per day'),
          h(Chart, { what: 'series', summary: Object.fromEntries(insights.active_users_per_day.map((d) => [d.date, { 'Active users': d.count }])) }),
          h(Table, {
            caption: 'Top tools',
            head: ['Tool', 'MCP server', 'Calls'],
            rows: insights.top_tools.map((tool) => [tool.tool_name, tool.mcp_server_name, tool.count]),
          }),
          h(Table, {
            caption: 'Top applications',
            head: ['Application', 'API actions'],
            rows: insights.top_applications.map((app) => [app.api_title, app.count]),
          }),
          h(Table, {
            caption: 'Workflow runs started in the range, by status',
            head: ['Status', 'Runs'],
            rows: Object.entries(insights.workflow_runs).map(([status, count]) => [status.replace('_', ' '), count]),
          }),
        ),
  )
}
