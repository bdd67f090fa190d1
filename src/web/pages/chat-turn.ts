// One turn of the chat as it is drawn: the user's message, then each model's answer (two columns when comparing) with
// its text and its tool calls as they happen — collapsed, showing the arguments and the result when opened, a link to
// the approval a workflow waits for, and the tool's MCP Apps view when it has one — and the follow-up chips.
import { h } from '../ui.ts'
import { type AppViewScope, McpAppView, templateOf } from './chat-app-view.ts'
import type { Side, ToolPart, Turn } from './chat-stream.ts'

const pretty = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

function ToolCall({ part, scope }: { part: ToolPart; scope: AppViewScope }) {
  const state = !part.result ? 'running…' : part.result.is_error ? 'failed' : 'done'
  const template = part.result && !part.result.is_error ? templateOf(part) : null
  const approval = part.result?.approval
  return h(
    'li',
    { class: `chat-tool chat-tool-${part.result ? (part.result.is_error ? 'failed' : 'done') : 'running'}`, 'data-testid': 'tool-call' },
    h(
      'details',
      null,
      h('summary', null, 'Tool ', h('code', null, part.name), ` — ${state}`),
      h('h4', null, 'Arguments'),
      h('pre', { class: 'data' }, JSON.stringify(part.arguments, null, 2)),
      part.result ? h('h4', null, part.result.is_error ? 'Error' : 'Result') : null,
      part.result ? h('pre', { class: 'data', 'data-testid': 'tool-result' }, pretty(part.result.content)) : null,
    ),
    approval
      ? h(
          'p',
          { class: 'chat-approval', role: 'status' },
          `“${approval.workflow_name}” waits for your approval${approval.message ? `: ${approval.message}` : ''}. `,
          h('a', { href: approval.url }, 'Approve or reject it'),
        )
      : null,
    template ? h(McpAppView, { part, uri: template, scope }) : null,
  )
}

function SideView({ side, scope, label }: { side: Side; scope: AppViewScope; label: string | null }) {
  return h(
    'div',
    { class: 'chat-side', 'data-testid': 'chat-side', 'aria-busy': side.done ? 'false' : 'true' },
    label ? h('h3', { class: 'chat-side-model' }, label) : null,
    side.parts.length === 0 && !side.done ? h('p', { class: 'muted' }, 'Thinking…') : null,
    side.parts.map((part, index) =>
      part.kind === 'text'
        ? part.text.trim()
          ? h('div', { key: `t${index}`, class: 'chat-text', dir: 'auto', 'data-testid': 'assistant-text' }, part.text.trim())
          : null
        : h('ul', { key: `c${index}`, class: 'chat-tools' }, h(ToolCall, { part, scope })),
    ),
    side.error ? h('p', { class: 'chat-error', role: 'alert' }, side.error) : null,
  )
}

export function TurnView({ turn, scope, onSuggestion, last }: { turn: Turn; scope: AppViewScope; onSuggestion: (text: string) => void; last: boolean }) {
  const comparing = turn.sides.length > 1
  return h(
    'li',
    { class: 'chat-turn' },
    h('div', { class: 'chat-user', dir: 'auto', 'data-testid': 'user-message' }, turn.user),
    turn.error ? h('p', { class: 'chat-error', role: 'alert' }, turn.error) : null,
    turn.sides.length === 0
      ? null
      : h(
          'div',
          { class: comparing ? 'chat-sides chat-compare' : 'chat-sides', 'data-testid': comparing ? 'compare-view' : undefined },
          turn.sides.map((side) =>
            h(SideView, {
              key: `${side.model.provider}/${side.model.model}`,
              side,
              scope,
              label: comparing ? `${side.model.provider} · ${side.model.model}` : null,
            }),
          ),
        ),
    last && !turn.pending && turn.suggestions.length > 0
      ? h(
          'div',
          { class: 'chat-chips', role: 'group', 'aria-label': 'Follow-up suggestions' },
          turn.suggestions.map((text) =>
            h('button', { key: text, type: 'button', class: 'chip-button', dir: 'auto', onClick: () => onSuggestion(text) }, text),
          ),
        )
      : null,
  )
}
