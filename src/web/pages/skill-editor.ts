// The SKILL.md editor: one monospace textarea with line numbers beside it, validated as the user types (debounced,
// POST /api/skill/validate), every problem listed under it at its line (a click puts the cursor there), a file import,
// and Save (disabled while there are errors; a 422 or 409 from saving is listed the same way).
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import { Banner, h } from '../ui.ts'
import { lineCount, lineStart, normaliseBreaks, problemLine, type SkillProblem, type SkillValidation } from './skill-lines.ts'

/** A skill as the draft holds it (GET/POST/PUT answers). */
export interface SavedSkill {
  id: string
  name: string
  description: string
  content: string
}

export interface SkillEditorProps {
  readonly agent: string
  /** The skill being edited (its current name), or null for a new one. */
  readonly skill: string | null
  readonly initialContent: string
  readonly onSaved: (skill: SavedSkill) => void
  readonly onCancel: () => void
}

const DEBOUNCE_MS = 300
/** Far above any sensible SKILL.md; the server refuses request bodies over 1 MiB anyway. */
const MAX_IMPORT_BYTES = 1024 * 1024

const TEMPLATE = `---
name: my-skill
description: What this skill does and when to use it.
---

# Instructions

Steps the agent follows…`

const path = (agent: string, skill?: string) => `/api/agents/${encodeURIComponent(agent)}/skills${skill === undefined ? '' : `/${encodeURIComponent(skill)}`}`

/** A failed save as problems of the content: 422 skill_invalid entries carry ctx {field, code}; 409 concerns the name. */
function saveProblems(error: unknown): SkillProblem[] | null {
  if (!(error instanceof ApiError)) return null
  if (error.status === 409) return [{ field: 'name', code: 'name_taken', message: error.message }]
  if (error.status !== 422) return null
  const found = error.entries
    .filter((entry) => entry.ctx && typeof entry.ctx.code === 'string')
    .map((entry) => ({
      field: typeof entry.ctx!.field === 'string' ? (entry.ctx!.field as string) : null,
      code: entry.ctx!.code as string,
      message: entry.msg ?? 'Invalid value',
    }))
  return found.length > 0 ? found : null
}

const unique = (problems: SkillProblem[]) => problems.filter((p, i) => problems.findIndex((q) => q.code === p.code && q.message === p.message) === i)

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

export function SkillEditor(props: SkillEditorProps) {
  const id = useId()
  const ids = { title: `${id}-title`, content: `${id}-content`, hint: `${id}-hint`, status: `${id}-status`, file: `${id}-file` }
  const [content, setContent] = useState(props.initialContent)
  const [validation, setValidation] = useState<SkillValidation | null>(null)
  const [checking, setChecking] = useState(false)
  const [checkError, setCheckError] = useState<string | null>(null)
  const [fromSave, setFromSave] = useState<SkillProblem[]>([])
  const [notice, setNotice] = useState<{ kind: 'info' | 'error'; text: string } | null>(null)
  const [saving, setSaving] = useState(false)
  const textarea = useRef<HTMLTextAreaElement>(null)
  const gutter = useRef<HTMLDivElement>(null)
  const latest = useRef(0)

  // Opening the editor moves focus into it, where the keyboard user will type.
  useEffect(() => textarea.current?.focus(), [])

  useEffect(() => {
    setFromSave([])
    const mine = ++latest.current
    if (content.trim() === '') {
      setValidation(null)
      setChecking(false)
      return
    }
    setChecking(true)
    const timer = setTimeout(() => {
      // No skill_name: a new name in the frontmatter renames the skill (the server keeps its id; a taken name is a 409).
      api<SkillValidation>('POST', '/api/skill/validate', { content }).then(
        (result) => {
          if (latest.current !== mine) return
          setValidation(result)
          setCheckError(null)
          setChecking(false)
        },
        (e) => {
          if (latest.current !== mine) return
          setCheckError(`The content could not be checked: ${errorText(e)}`)
          setChecking(false)
        },
      )
    }, DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [content])

  const errors = unique([...fromSave, ...(validation?.errors ?? [])])
  const warnings = validation?.warnings ?? []
  const listed = [
    ...errors.map((problem) => ({ kind: 'error' as const, problem, line: problemLine(content, problem) })),
    ...warnings.map((problem) => ({ kind: 'warning' as const, problem, line: problemLine(content, problem) })),
  ]
  const marks = new Map<number, 'error' | 'warning'>()
  for (const item of listed) if (marks.get(item.line) !== 'error') marks.set(item.line, item.kind)
  const empty = content.trim() === ''

  const syncGutter = () => {
    if (gutter.current && textarea.current) gutter.current.scrollTop = textarea.current.scrollTop
  }
  const goTo = (line: number) => {
    const area = textarea.current
    if (!area) return
    const offset = lineStart(area.value, line)
    area.focus()
    area.setSelectionRange(offset, offset)
    const height = Number.parseFloat(getComputedStyle(area).lineHeight) || 20
    const top = (line - 1) * height
    if (top < area.scrollTop || top + height > area.scrollTop + area.clientHeight) area.scrollTop = Math.max(0, top - area.clientHeight / 3)
    syncGutter()
  }

  const importFile = async (e: Event) => {
    const input = e.currentTarget as HTMLInputElement
    const file = input.files?.[0]
    if (!file) return
    try {
      if (file.size > MAX_IMPORT_BYTES) {
        setNotice({ kind: 'error', text: `${file.name} is larger than 1 MiB: a SKILL.md is a short text file.` })
        return
      }
      setContent(normaliseBreaks(await file.text()))
      setNotice({ kind: 'info', text: `Imported ${file.name}: check it below, then save.` })
    } catch (error) {
      setNotice({ kind: 'error', text: `${file.name} could not be read: ${errorText(error)}` })
    } finally {
      input.value = ''
    }
  }

  const save = async () => {
    setSaving(true)
    setNotice(null)
    try {
      const saved = props.skill
        ? await api<SavedSkill>('PUT', path(props.agent, props.skill), { content })
        : await api<SavedSkill>('POST', path(props.agent), { content })
      props.onSaved(saved)
    } catch (error) {
      const problems = saveProblems(error)
      if (problems) setFromSave(problems)
      else setNotice({ kind: 'error', text: errorText(error) })
      setSaving(false)
    }
  }

  const cancel = () => {
    if (content !== props.initialContent && !confirm('Discard your changes to this skill?')) return
    props.onCancel()
  }

  const status = empty
    ? 'Write or paste a SKILL.md, or import a file.'
    : checking && !validation
      ? 'Checking…'
      : listed.length === 0 && !checking
        ? 'No problems found.'
        : `${plural(errors.length, 'error')}, ${plural(warnings.length, 'warning')}${checking ? ' (checking…)' : ''}${errors.length > 0 ? '. Fix the errors to save.' : '.'}`

  const lines = lineCount(content)
  return h(
    'section',
    { class: 'skill-editor', 'aria-labelledby': ids.title },
    h('h4', { id: ids.title }, props.skill ? `Edit the skill ${props.skill}` : 'Add a skill'),
    notice ? h(Banner, { kind: notice.kind }, notice.text) : null,
    checkError ? h(Banner, { kind: 'error' }, checkError) : null,
    h(
      'div',
      { class: 'field' },
      h('label', { for: ids.file }, 'Import a SKILL.md file'),
      h('input', { id: ids.file, type: 'file', accept: '.md,text/markdown', onChange: importFile }),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: ids.content }, 'SKILL.md'),
      h(
        'small',
        { class: 'hint', id: ids.hint },
        'YAML frontmatter between --- lines (name: lowercase letters, digits and hyphens; description: what the skill does and when to use it), then the instructions in Markdown.',
      ),
      // Code reads left to right in a right-to-left page too; the line numbers stay beside the lines they count.
      h(
        'div',
        { class: 'skill-code', dir: 'ltr' },
        h(
          'div',
          { class: 'skill-gutter', ref: gutter, 'aria-hidden': 'true', style: { inlineSize: `${String(lines).length + 3.5}ch` } },
          // Positioned out of the flow, so the numbers never make the editor taller than the textarea.
          h(
            'div',
            { class: 'skill-gutter-lines' },
            Array.from({ length: lines }, (_, i) => {
              const mark = marks.get(i + 1)
              return h(
                'span',
                { key: i, class: mark ? `skill-line-${mark}` : undefined },
                mark === 'error' ? `✖ ${i + 1}` : mark ? `⚠ ${i + 1}` : String(i + 1),
              )
            }),
          ),
        ),
        h('textarea', {
          id: ids.content,
          ref: textarea,
          rows: 18,
          wrap: 'off',
          spellcheck: false,
          autocapitalize: 'off',
          placeholder: TEMPLATE,
          value: content,
          'aria-invalid': errors.length > 0 ? 'true' : undefined,
          'aria-describedby': `${ids.hint} ${ids.status}`,
          onInput: (e: Event) => setContent((e.currentTarget as HTMLTextAreaElement).value),
          onScroll: syncGutter,
        }),
      ),
    ),
    h(
      'div',
      { class: 'skill-problems', 'aria-live': 'polite' },
      h('p', { id: ids.status, class: errors.length > 0 ? 'skill-status skill-status-error' : 'skill-status' }, status),
      listed.length > 0
        ? h(
            'ul',
            { 'aria-label': 'Problems' },
            listed.map(({ kind, problem, line }) =>
              h(
                'li',
                { key: `${kind}-${problem.code}-${problem.message}`, class: `skill-problem skill-problem-${kind}` },
                h(
                  'button',
                  { type: 'button', class: 'link', onClick: () => goTo(line) },
                  h('span', { class: 'skill-problem-icon', 'aria-hidden': 'true' }, kind === 'error' ? '✖' : '⚠'),
                  h('strong', null, kind === 'error' ? 'Error' : 'Warning'),
                  ` · line ${line}${problem.field ? ` (${problem.field})` : ''}: ${problem.message}`,
                ),
              ),
            ),
          )
        : null,
    ),
    h(
      'div',
      { class: 'row-actions' },
      h('button', { type: 'button', class: 'primary', disabled: saving || empty || errors.length > 0, onClick: save }, saving ? 'Saving…' : 'Save'),
      h('button', { type: 'button', onClick: cancel }, 'Cancel'),
    ),
  )
}
