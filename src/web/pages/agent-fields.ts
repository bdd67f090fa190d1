// What the agent designer's pages share: the API's shapes, the name rule as the server applies it, a field with a
// character counter, the Draft chip and a notice area read out by screen readers.
import { ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, h } from '../ui.ts'

export type AgentRole = 'owner' | 'viewer' | 'admin'

/** What the agent page hands each of its panels (skills, workflows). */
export interface AgentPanelProps {
  /** The agent's name. */
  readonly agent: string
  /** Owners edit the draft; viewers and admins (and owners on the Live tab) see the live version, read-only. */
  readonly role: AgentRole
  readonly me: Me
  /** Called after any change to the draft (the page refreshes its Draft chip). */
  readonly onChanged: () => void
}

export interface ApplicationUse {
  api_name: string
  operation_ids?: string[]
}

export interface AgentSummary {
  id: string
  name: string
  description: string | null
  live_version: number | null
  has_unpublished_changes: boolean
  role: AgentRole
  created_by: string
  created_at: string
  updated_at: string
}

/** Owners get the draft's description, instructions and applications; others the live version's. */
export interface AgentDetail extends AgentSummary {
  instructions: string | null
  applications: ApplicationUse[]
}

export interface Version {
  version: number
  note: string | null
  created_at: string
  created_by: string
  live: boolean
}

/** What each tab of the agent page receives. */
export interface TabProps {
  agent: AgentDetail
  me: Me
  /** Reloads the agent (its Draft chip and live version) after a change. */
  refresh: () => void
}

export interface VersionDetail extends Version {
  description: string
  instructions: string
  applications: ApplicationUse[]
}

export interface Member {
  user_id: string
  email: string
  name: string
  role: 'owner' | 'viewer'
  added_at: string
  added_by: string
}

export const MAX_NAME_LENGTH = 64
export const MAX_DESCRIPTION_LENGTH = 300
export const MAX_INSTRUCTIONS_LENGTH = 4000
export const MAX_NOTE_LENGTH = 500

/** The server's normalisation (src/modules/agents/names.ts): lowercase, runs of spaces, underscores and hyphens become one hyphen. */
export function normaliseAgentName(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/** What the server would say about a name once normalised, or null when it will be accepted (if not taken). */
export function agentNameProblem(raw: string): string | null {
  const name = normaliseAgentName(raw)
  if (name === '') return 'The name needs at least one letter or digit.'
  if (name.length > MAX_NAME_LENGTH) return `The name is ${name.length} characters long; at most ${MAX_NAME_LENGTH}.`
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) return 'Only letters a-z, digits, spaces, hyphens and underscores.'
  return null
}

export const agentPath = (name: string, tab?: string) => `/agents/${encodeURIComponent(name)}${tab ? `/${tab}` : ''}`
export const agentApi = (name: string, rest = '') => `/api/agents/${encodeURIComponent(name)}${rest}`

/** A 422's errors by field, or the 409/403/… sentence under `fallbackField` (or in `message` when none is given). */
export function fieldErrors(error: unknown, fallbackField?: string): { fields: Record<string, string>; message: string } {
  if (error instanceof ApiError && Object.keys(error.fields).length > 0) return { fields: error.fields, message: '' }
  if (fallbackField && error instanceof ApiError && error.status === 409) return { fields: { [fallbackField]: error.message }, message: '' }
  return { fields: {}, message: errorText(error) }
}

interface CountedFieldProps {
  id: string
  label: string
  value: string
  max: number
  onInput: (value: string) => void
  error?: string | undefined
  hint?: string
  multiline?: boolean
  rows?: number
  required?: boolean
}

/** A labelled input with "n / max characters" under it (linked by aria-describedby) and its error right below. */
export function CountedField(p: CountedFieldProps) {
  const over = p.value.length - p.max
  const countId = `${p.id}-count`
  const errorId = `${p.id}-error`
  const hintId = `${p.id}-hint`
  const common = {
    id: p.id,
    name: p.id,
    value: p.value,
    required: p.required,
    dir: 'auto',
    'aria-invalid': p.error || over > 0 ? 'true' : undefined,
    'aria-describedby': [p.hint ? hintId : '', countId, p.error ? errorId : ''].filter(Boolean).join(' '),
    onInput: (e: Event) => p.onInput((e.currentTarget as HTMLInputElement).value),
  }
  return h(
    'div',
    { class: 'field' },
    h('label', { for: p.id }, p.label),
    p.hint ? h('small', { class: 'hint', id: hintId }, p.hint) : null,
    p.multiline ? h('textarea', { ...common, rows: p.rows ?? 4 }) : h('input', { ...common, type: 'text' }),
    h(
      'small',
      { class: over > 0 ? 'counter counter-over' : 'counter', id: countId },
      `${p.value.length} / ${p.max} characters`,
      over > 0 ? ` — ${over} too many` : '',
    ),
    h('div', { class: 'field-error', id: errorId, role: 'alert' }, p.error ?? ''),
  )
}

export function DraftChip({ agent }: { agent: Pick<AgentSummary, 'has_unpublished_changes'> }) {
  return agent.has_unpublished_changes ? h('span', { class: 'chip chip-draft', title: 'The draft has changes that are not live yet' }, 'Draft') : null
}

export const liveText = (version: number | null) => (version === null ? 'Not published yet' : `Live: v${version}`)

export interface Notice {
  kind: 'success' | 'error' | 'info'
  text: string
}

/** A region that is always in the page, so what appears in it is announced (polite; errors are also role="alert"). */
export function NoticeArea({ notice, id }: { notice: Notice | null; id?: string }) {
  return h('div', { 'aria-live': 'polite', id }, notice ? h(Banner, { kind: notice.kind }, h('span', { dir: 'auto' }, notice.text)) : null)
}
