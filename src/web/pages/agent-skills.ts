// An agent's skills in the designer: owners list, add, edit (live validation), import and delete the draft's skills;
// viewers and admins read the live version's skills.
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import type { AgentPanelProps } from './agent-fields.ts'
import { Banner, h, Loading, useLoad } from '../ui.ts'
import { type SavedSkill, SkillEditor } from './skill-editor.ts'

export type SkillsPanelProps = AgentPanelProps

interface SkillItem {
  id: string
  name: string
  description: string
}

const draftPath = (agent: string, skill?: string) =>
  `/api/agents/${encodeURIComponent(agent)}/skills${skill === undefined ? '' : `/${encodeURIComponent(skill)}`}`

function SkillList({ skills, actions }: { skills: SkillItem[]; actions?: (skill: SkillItem) => ComponentChildren }) {
  return h(
    'ul',
    { class: 'skill-list' },
    skills.map((skill) =>
      h(
        'li',
        { key: skill.id },
        h('div', null, h('strong', { class: 'skill-name' }, skill.name), h('p', { class: 'skill-description' }, skill.description)),
        actions ? actions(skill) : null,
      ),
    ),
  )
}

type Mode = { kind: 'list' } | { kind: 'edit'; skill: string | null; content: string; key: number }

function DraftSkills({ agent, onChanged }: SkillsPanelProps) {
  const list = useLoad(() => api<SkillItem[]>('GET', draftPath(agent)), [agent])
  const [mode, setMode] = useState<Mode>({ kind: 'list' })
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [busy, setBusy] = useState<string | null>(null)

  const open = (skill: string | null, content: string) => {
    setNotice(null)
    setMode({ kind: 'edit', skill, content, key: Date.now() })
  }
  const edit = async (skill: SkillItem) => {
    setBusy(skill.name)
    try {
      open(skill.name, (await api<SavedSkill>('GET', draftPath(agent, skill.name))).content)
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(null)
    }
  }
  const remove = async (skill: SkillItem) => {
    if (!confirm(`Delete the skill ${skill.name} from the draft?`)) return
    setBusy(skill.name)
    try {
      await api('DELETE', draftPath(agent, skill.name))
      setNotice({ kind: 'success', text: `Deleted the skill ${skill.name}.` })
      onChanged()
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(null)
      list.reload()
    }
  }
  const saved = (skill: SavedSkill) => {
    setMode({ kind: 'list' })
    setNotice({ kind: 'success', text: `Saved the skill ${skill.name}.` })
    list.reload()
    onChanged()
  }

  if (mode.kind === 'edit') {
    return h(SkillEditor, {
      key: mode.key,
      agent,
      skill: mode.skill,
      initialContent: mode.content,
      onSaved: saved,
      onCancel: () => setMode({ kind: 'list' }),
    })
  }
  return h(
    'div',
    null,
    h('p', { class: 'muted' }, "The draft's skills: changes reach MCP clients when the draft is published."),
    notice ? h(Banner, { kind: notice.kind }, notice.text) : null,
    h('div', { class: 'row-actions' }, h('button', { type: 'button', class: 'primary', onClick: () => open(null, '') }, 'Add a skill')),
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.length === 0
        ? h('p', null, 'The draft has no skills yet.')
        : h(SkillList, {
            skills: list.data,
            actions: (skill) =>
              h(
                'div',
                { class: 'row-actions' },
                h('button', { type: 'button', disabled: busy === skill.name, 'aria-label': `Edit ${skill.name}`, onClick: () => edit(skill) }, 'Edit'),
                h(
                  'button',
                  { type: 'button', class: 'danger', disabled: busy === skill.name, 'aria-label': `Delete ${skill.name}`, onClick: () => remove(skill) },
                  'Delete',
                ),
              ),
          }),
  )
}

function LiveSkills({ agent }: SkillsPanelProps) {
  const list = useLoad(
    () =>
      api<{ skill_list: SkillItem[] }>('GET', `/api/mcp/list_skills?app_type=agent&detail_level=summary&genai_app=${encodeURIComponent(agent)}`).then(
        (answer) => answer.skill_list,
      ),
    [agent],
  )
  return h(
    'div',
    null,
    h('p', { class: 'muted' }, "The live version's skills, read-only: the agent's owners edit them in the draft and publish."),
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.length === 0
        ? h('p', null, 'The live version has no skills.')
        : h(SkillList, { skills: list.data }),
  )
}

export function SkillsPanel(props: SkillsPanelProps) {
  const titleId = `skills-${props.role === 'owner' ? 'draft' : 'live'}-title`
  return h(
    'section',
    { class: 'card skills-panel', 'aria-labelledby': titleId },
    h('h3', { id: titleId }, 'Skills'),
    props.role === 'owner' ? h(DraftSkills, props) : h(LiveSkills, props),
  )
}
