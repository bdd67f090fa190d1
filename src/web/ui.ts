// Small shared pieces: labelled fields, banners, links, a copy button and a loader hook. Plain h() keeps tsc happy without JSX settings.
import { h, type ComponentChildren } from 'preact'
import { useCallback, useEffect, useState } from 'preact/hooks'
import { errorText } from './api.ts'
import { linkClick } from './router.ts'

export { h }

interface FieldProps {
  id: string
  label: string
  value: string
  onInput: (value: string) => void
  type?: string
  error?: string | undefined
  hint?: string
  multiline?: boolean
  autocomplete?: string
  required?: boolean
}

/** Every input gets a visible <label for>, and its error sits right under it, announced and linked by aria-describedby. */
export function Field(p: FieldProps) {
  const errorId = `${p.id}-error`
  const common = {
    id: p.id,
    name: p.id,
    value: p.value,
    required: p.required,
    autocomplete: p.autocomplete,
    'aria-invalid': p.error ? 'true' : undefined,
    'aria-describedby': p.error ? errorId : undefined,
    onInput: (e: Event) => p.onInput((e.currentTarget as HTMLInputElement).value),
  }
  return h(
    'div',
    { class: 'field' },
    h('label', { for: p.id }, p.label),
    p.hint ? h('small', { class: 'hint' }, p.hint) : null,
    p.multiline ? h('textarea', { ...common, rows: 4 }) : h('input', { ...common, type: p.type ?? 'text' }),
    h('div', { class: 'field-error', id: errorId, role: 'alert' }, p.error ?? ''),
  )
}

interface SelectProps {
  id: string
  label: string
  value: string
  options: readonly (readonly [string, string])[]
  onChange: (value: string) => void
}

export function Select(p: SelectProps) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: p.id }, p.label),
    h(
      'select',
      { id: p.id, name: p.id, value: p.value, onChange: (e: Event) => p.onChange((e.currentTarget as HTMLSelectElement).value) },
      p.options.map(([value, text]) => h('option', { value, key: value }, text)),
    ),
  )
}

export function Banner({ kind, children }: { kind: 'info' | 'warning' | 'error' | 'success'; children?: ComponentChildren }) {
  return h('div', { class: `banner banner-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, children)
}

export function Link({ to, children, current }: { to: string; children?: ComponentChildren; current?: boolean }) {
  return h('a', { href: to, 'aria-current': current ? 'page' : undefined, onClick: (e: MouseEvent) => linkClick(e, to) }, children)
}

/**
 * A row's destructive action waiting for confirmation: the danger button and Keep, as one named group; each button
 * names its row to a screen reader ("Confirm delete billing").
 */
export function ConfirmActions(p: { verb: string; name: string; onConfirm: () => void; onKeep: () => void }) {
  const named = (label: string) => [label, h('span', { class: 'sr-only' }, ` ${p.name}`)]
  return h(
    'div',
    { class: 'row-actions', role: 'group', 'aria-label': `${p.verb} ${p.name}?` },
    h('button', { type: 'button', class: 'danger', onClick: p.onConfirm }, ...named(`Confirm ${p.verb.toLowerCase()}`)),
    h('button', { type: 'button', onClick: p.onKeep }, ...named('Keep')),
  )
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied(true)
    } catch {
      // Clipboard access needs a secure context (https or localhost); over plain http the user selects the text instead.
      setCopied(false)
      alert('Copying is blocked on this connection; select the text and copy it by hand.')
    }
  }
  return h('button', { type: 'button', onClick: copy }, copied ? 'Copied' : label)
}

/** Loads data on mount and on reload(); error is a sentence ready to show. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    load().then(
      (value) => live && (setData(value), setError(undefined)),
      (e) => live && setError(errorText(e)),
    )
    return () => void (live = false)
  }, [tick, ...deps])
  const reload = useCallback(() => setTick((n) => n + 1), [])
  return { data, error, reload }
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')

export function Loading({ error }: { error?: string | undefined }) {
  return error ? h(Banner, { kind: 'error' }, error) : h('p', { 'aria-busy': 'true' }, 'Loading…')
}
