// A line diff for "Compare with draft": the longest common subsequence of two texts' lines, shown with <ins>/<del> and
// a text marker on every changed line (colour is only a second cue).
import { h } from '../ui.ts'

export interface DiffLine {
  readonly kind: 'same' | 'added' | 'removed'
  readonly text: string
}

/** Lines of `before` and `after` as kept, removed and added, in order (removals before additions at each change). */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n')
  const b = after.split('\n')
  // Descriptions and instructions are at most 4,000 characters, so the (n+1)×(m+1) table stays small.
  const n = a.length
  const m = b.length
  const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!)
    }
  }
  const lines: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! })
      i++
      j++
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) lines.push({ kind: 'removed', text: a[i++]! })
    else lines.push({ kind: 'added', text: b[j++]! })
  }
  while (i < n) lines.push({ kind: 'removed', text: a[i++]! })
  while (j < m) lines.push({ kind: 'added', text: b[j++]! })
  return lines
}

const MARK = { same: ' ', added: '+', removed: '−' } as const
const SPOKEN = { same: '', added: 'Added: ', removed: 'Removed: ' } as const

/** One field's diff: a caption, "No changes" when the texts match, else every line with its marker. */
export function DiffView({
  title,
  before,
  after,
  beforeLabel,
  afterLabel,
}: {
  title: string
  before: string
  after: string
  beforeLabel: string
  afterLabel: string
}) {
  const lines = diffLines(before, after)
  const changed = lines.filter((line) => line.kind !== 'same').length
  return h(
    'figure',
    { class: 'diff' },
    h(
      'figcaption',
      null,
      h('strong', null, title),
      ` — ${changed === 0 ? 'no changes' : `${changed} changed line${changed === 1 ? '' : 's'}`} (− ${beforeLabel}, + ${afterLabel})`,
    ),
    changed === 0
      ? null
      : h(
          'pre',
          { class: 'diff-lines', dir: 'auto' },
          lines.map((line, index) => {
            const body = [
              h('span', { class: 'diff-mark', 'aria-hidden': 'true' }, MARK[line.kind]),
              h('span', { class: 'sr-only' }, SPOKEN[line.kind]),
              line.text || ' ',
            ]
            const key = `${index}`
            if (line.kind === 'added') return h('ins', { key, class: 'diff-line' }, body)
            if (line.kind === 'removed') return h('del', { key, class: 'diff-line' }, body)
            return h('span', { key, class: 'diff-line' }, body)
          }),
        ),
  )
}
