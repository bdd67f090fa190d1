// The Members tab (owners): who the agent is shared with; add someone by e-mail as owner or viewer, change a role,
// remove. The API keeps at least one owner (409) and only adds active people (422 at the e-mail).
import { useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import { navigate } from '../router.ts'
import { Field, formatDate, h, Loading, Select, useLoad } from '../ui.ts'
import { agentApi, fieldErrors, type Member, type Notice, NoticeArea, type TabProps } from './agent-fields.ts'

const ROLES = [
  ['viewer', 'Viewer (uses the live version)'],
  ['owner', 'Owner (designs, publishes, shares)'],
] as const

export function MembersTab({ agent, me, refresh }: TabProps) {
  const members = useLoad(() => api<Member[]>('GET', agentApi(agent.name, '/members')), [agent.name])
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<'owner' | 'viewer'>('viewer')
  const [emailError, setEmailError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<Notice | null>(null)
  const [busy, setBusy] = useState(false)

  const put = async (target: string, newRole: 'owner' | 'viewer') => {
    const created = await api<Member>('POST', agentApi(agent.name, '/members'), { email: target, role: newRole })
    members.reload()
    return created
  }
  const add = async (event: Event) => {
    event.preventDefault()
    setEmailError(undefined)
    setNotice(null)
    setBusy(true)
    try {
      const member = await put(email.trim(), role)
      setEmail('')
      setNotice({ kind: 'success', text: `${member.name} (${member.email}) is now ${member.role === 'owner' ? 'an owner' : 'a viewer'}.` })
    } catch (e) {
      const { fields, message } = fieldErrors(e)
      if (fields.email) {
        setEmailError(fields.email)
        document.getElementById('member-email')?.focus()
      } else setNotice({ kind: 'error', text: message || errorText(e) })
    } finally {
      setBusy(false)
    }
  }
  const change = async (member: Member, newRole: 'owner' | 'viewer') => {
    setNotice(null)
    try {
      await put(member.email, newRole)
      setNotice({ kind: 'success', text: `${member.name} is now ${newRole === 'owner' ? 'an owner' : 'a viewer'}.` })
      // An owner who made themselves a viewer no longer designs this agent.
      if (member.user_id === me.id) refresh()
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
      members.reload()
    }
  }
  const remove = async (member: Member) => {
    const self = member.user_id === me.id
    if (!confirm(self ? `Leave ${agent.name}? You will no longer see it.` : `Remove ${member.name} (${member.email}) from ${agent.name}?`)) return
    setNotice(null)
    try {
      await api('DELETE', agentApi(agent.name, `/members/${encodeURIComponent(member.user_id)}`))
      if (self && me.role !== 'admin') return navigate('/agents')
      setNotice({ kind: 'success', text: `${member.name} removed.` })
      members.reload()
      if (self) refresh()
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
  }

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'members-title' },
    h('h3', { id: 'members-title' }, 'Members'),
    h('p', { class: 'muted' }, 'Owners design, publish and share the agent; viewers use its live version. Admins see every agent.'),
    h(NoticeArea, { notice }),
    !members.data
      ? h(Loading, { error: members.error })
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'stack members' },
            h('caption', { class: 'sr-only' }, 'People this agent is shared with'),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Name', 'E-mail', 'Role', 'Added', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
              ),
            ),
            h(
              'tbody',
              null,
              members.data.map((member) =>
                h(
                  'tr',
                  { key: member.user_id },
                  h('th', { scope: 'row', 'data-label': 'Name' }, h('bdi', null, member.name), member.user_id === me.id ? ' (you)' : ''),
                  h('td', { 'data-label': 'E-mail' }, member.email),
                  h(
                    'td',
                    { 'data-label': 'Role' },
                    h(
                      'select',
                      {
                        'aria-label': `Role of ${member.email}`,
                        value: member.role,
                        onChange: (e: Event) => change(member, (e.currentTarget as HTMLSelectElement).value as 'owner' | 'viewer'),
                      },
                      h('option', { value: 'owner' }, 'Owner'),
                      h('option', { value: 'viewer' }, 'Viewer'),
                    ),
                  ),
                  h('td', { 'data-label': 'Added' }, formatDate(member.added_at), h('span', { class: 'muted' }, ` by ${member.added_by}`)),
                  h(
                    'td',
                    { 'data-label': 'Actions' },
                    h(
                      'button',
                      { type: 'button', class: 'danger', onClick: () => remove(member) },
                      member.user_id === me.id ? 'Leave' : 'Remove',
                      h('span', { class: 'sr-only' }, ` ${member.email}`),
                    ),
                  ),
                ),
              ),
            ),
          ),
        ),
    h(
      'form',
      { class: 'inline-form add-member', 'aria-labelledby': 'add-member-title', onSubmit: add, noValidate: true },
      h('h4', { id: 'add-member-title', class: 'full' }, 'Share with someone'),
      h(Field, { id: 'member-email', label: 'E-mail', type: 'email', value: email, onInput: setEmail, error: emailError, autocomplete: 'off', required: true }),
      h(Select, { id: 'member-role', label: 'Role', value: role, options: ROLES, onChange: (v: string) => setRole(v as 'owner' | 'viewer') }),
      h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Add member'),
    ),
  )
}
