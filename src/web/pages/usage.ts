// Usage: the interaction summary per API title as stacked bars (hand-drawn SVG, no chart library), with a table twin.
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import { h, Loading, Select, useLoad } from '../ui.ts'

export type Summary = Record<string, Record<string, number>>
const PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626']
const day = (d: Date) => d.toISOString().slice(0, 10)

/** Stacked bars of period → series → count, with a legend and a table twin (the Insights page uses it too). */
export function Chart({ summary, what = 'API titles' }: { summary: Summary; what?: string }) {
  const buckets = Object.keys(summary)
  const titles = [...new Set(buckets.flatMap((b) => Object.keys(summary[b] ?? {})))].sort()
  const totals = buckets.map((b) => Object.values(summary[b] ?? {}).reduce((a, n) => a + n, 0))
  const max = Math.max(1, ...totals)
  const width = 800,
    height = 260,
    pad = 28
  const slot = (width - pad) / Math.max(1, buckets.length)
  const bar = Math.max(2, slot * 0.7)
  const color = (title: string) => PALETTE[titles.indexOf(title) % PALETTE.length]
  const label = `Interactions per ${buckets.length > 0 ? 'period' : ''}: ${totals.reduce((a, n) => a + n, 0)} in total across ${titles.length} ${what}`
  return h(
    'figure',
    { class: 'chart' },
    // The SVG keeps left-to-right time order in RTL too (dir=ltr), as charts conventionally do; the legend follows the page.
    h(
      'svg',
      { viewBox: `0 0 ${width} ${height + 40}`, role: 'img', 'aria-label': label, dir: 'ltr', preserveAspectRatio: 'none' },
      h('line', { x1: pad, y1: height, x2: width, y2: height, class: 'axis' }),
      h('text', { x: 0, y: 12, class: 'tick' }, String(max)),
      h('text', { x: 0, y: height, class: 'tick' }, '0'),
      buckets.map((bucket, i) => {
        let y = height
        const x = pad + i * slot + (slot - bar) / 2
        return h(
          'g',
          { key: bucket },
          titles.map((title) => {
            const n = summary[bucket]?.[title] ?? 0
            if (!n) return null
            const hgt = (n / max) * (height - 16)
            y -= hgt
            return h('rect', { key: title, x, y, width: bar, height: hgt, fill: color(title) }, h('title', null, `${bucket} · ${title}: ${n}`))
          }),
          // Label every bucket when few, else about ten of them so the axis stays readable on a phone.
          i % Math.ceil(buckets.length / 10) === 0
            ? h('text', { x: x + bar / 2, y: height + 16, class: 'tick', 'text-anchor': 'middle' }, bucket.slice(5) || bucket)
            : null,
        )
      }),
    ),
    h(
      'figcaption',
      null,
      titles.length === 0
        ? 'No interactions in this range.'
        : h(
            'ul',
            { class: 'legend' },
            titles.map((title) => h('li', { key: title }, h('span', { class: 'swatch', style: { background: color(title) } }), title)),
          ),
    ),
    h(
      'details',
      null,
      h('summary', null, 'Show the numbers as a table'),
      h(
        'table',
        null,
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'Period'),
            titles.map((t) => h('th', { scope: 'col', key: t }, t)),
          ),
        ),
        h(
          'tbody',
          null,
          buckets.map((b) =>
            h(
              'tr',
              { key: b },
              h('th', { scope: 'row' }, b),
              titles.map((t) => h('td', { key: t }, String(summary[b]?.[t] ?? 0))),
            ),
          ),
        ),
      ),
    ),
  )
}

export function UsagePage() {
  const now = new Date()
  const [timeFrame, setTimeFrame] = useState('daily')
  const [start, setStart] = useState(day(new Date(now.getTime() - 29 * 86_400_000)))
  const [end, setEnd] = useState(day(now))
  const [titles, setTitles] = useState('')
  const summary = useLoad(() => {
    const api_title = titles
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)
    return api<Summary>('POST', '/api/interaction/summary', {
      summary_type: 'api_usage',
      time_frame: timeFrame,
      start_date: start,
      end_date: end,
      ...(api_title.length ? { api_title } : {}),
    })
  }, [timeFrame, start, end, titles])
  const date = (id: string, label: string, value: string, set: (v: string) => void) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h('input', { id, type: 'date', value, onChange: (e: Event) => set((e.currentTarget as HTMLInputElement).value) }),
    )
  return h(
    'section',
    null,
    h('h1', null, 'Usage'),
    h(
      'form',
      { class: 'filters', onSubmit: (e: Event) => e.preventDefault() },
      h(Select, {
        id: 'time_frame',
        label: 'Period',
        value: timeFrame,
        onChange: setTimeFrame,
        options: [
          ['daily', 'Daily'],
          ['weekly', 'Weekly'],
          ['monthly', 'Monthly'],
        ],
      }),
      date('start_date', 'From', start, setStart),
      date('end_date', 'To', end, setEnd),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'api_title' }, 'API titles (comma-separated, empty for all)'),
        h('input', { id: 'api_title', value: titles, onChange: (e: Event) => setTitles((e.currentTarget as HTMLInputElement).value) }),
      ),
    ),
    summary.data && !summary.error ? h(Chart, { summary: summary.data }) : h(Loading, { error: summary.error }),
  )
}
