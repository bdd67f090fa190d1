// The Versions tab (owners): every published version, newest first, with "Compare with draft" (a line diff of the
// description and instructions), Restore (into the draft; live does not move) and Switch live (point live at it).
import { useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import { formatDate, h, Loading, useLoad } from '../ui.ts'
import { DiffView } from './agent-diff.ts'
import { type AgentDetail, agentApi, type Notice, NoticeArea, type Version, type VersionDetail, type TabProps } from './agent-fields.ts'

function Comparison({ agent, version, onClose }: { agent: AgentDetail; version: number; onClose: () => void }) {
  const detail = useLoad(() => api<VersionDetail>('GET', agentApi(agent.name, `/versions/${version}`)), [agent.name, version])
  return h(
    'section',
    { class: 'card comparison', 'aria-labelledby': 'compare-title' },
    h('h3', { id: 'compare-title', tabIndex: -1 }, `v${version} compared with the draft`),
    !detail.data
      ? h(Loading, { error: detail.error })
      : h(
          'div',
          { 'data-testid': 'diff' },
          h(DiffView, {
            title: 'Description',
            before: detail.data.description,
            after: agent.description ?? '',
            beforeLabel: `v${version}`,
            afterLabel: 'draft',
          }),
          h(DiffView, {
            title: 'Instructions',
            before: detail.data.instructions,
            after: agent.instructions ?? '',
            beforeLabel: `v${version}`,
            afterLabel: 'draft',
          }),
          h('p', { class: 'muted' }, 'Skills and workflows are versioned too; restoring brings them back with the text.'),
        ),
    h('button', { type: 'button', onClick: onClose }, 'Close comparison'),
  )
}

export function VersionsTab({ agent, refresh }: TabProps) {
  const versions = useLoad(() => api<Version[]>('GET', agentApi(agent.name, '/versions')), [agent.name, agent.live_version, agent.updated_at])
  const [comparing, setComparing] = useState<number | null>(null)
  const [notice, setNotice] = useState<Notice | null>(null)
  const [busy, setBusy] = useState(false)

  const act = async (ask: string, run: () => Promise<unknown>, done: string) => {
    if (!confirm(ask)) return
    setNotice(null)
    setBusy(true)
    try {
      await run()
      setNotice({ kind: 'success', text: done })
      refresh()
      versions.reload()
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(false)
    }
  }
  const restore = (v: Version) =>
    act(
      `Replace the draft with v${v.version}? Unpublished changes in the draft (text, skills, workflows) are lost; live does not change.`,
      () => api('POST', agentApi(agent.name, `/versions/${v.version}/restore`)),
      `v${v.version} restored into the draft. Publish to make it live.`,
    )
  const switchLive = (v: Version) =>
    act(
      `Make v${v.version} the live version? Chat and MCP clients use it at once; the MCP URL stays the same.`,
      () => api('POST', agentApi(agent.name, '/live'), { version: v.version }),
      `v${v.version} is live now.`,
    )
  const compare = (version: number) => {
    setComparing(version)
    requestAnimationFrame(() => document.getElementById('compare-title')?.focus())
  }

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'versions-title' },
    h('h3', { id: 'versions-title' }, 'Version history'),
    h(NoticeArea, { notice }),
    !versions.data
      ? h(Loading, { error: versions.error })
      : versions.data.length === 0
        ? h('p', null, 'Nothing published yet: publish the draft from the Design tab.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack versions' },
              h('caption', { class: 'sr-only' }, 'Published versions, newest first'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Version', 'Note', 'Published', 'By', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                versions.data.map((v) =>
                  h(
                    'tr',
                    { key: v.version, 'data-version': v.version },
                    h('th', { scope: 'row', 'data-label': 'Version' }, `v${v.version}`, v.live ? [' ', h('span', { class: 'chip chip-live' }, 'Live')] : null),
                    h('td', { 'data-label': 'Note' }, v.note ? h('span', { dir: 'auto' }, v.note) : h('span', { class: 'muted' }, 'No note')),
                    h('td', { 'data-label': 'Published' }, h('time', { dateTime: v.created_at }, formatDate(v.created_at))),
                    h('td', { 'data-label': 'By' }, v.created_by),
                    h(
                      'td',
                      { 'data-label': 'Actions' },
                      h(
                        'div',
                        { class: 'row-actions' },
                        h(
                          'button',
                          { type: 'button', 'aria-pressed': comparing === v.version ? 'true' : 'false', onClick: () => compare(v.version) },
                          'Compare with draft',
                          h('span', { class: 'sr-only' }, ` (v${v.version})`),
                        ),
                        h(
                          'button',
                          { type: 'button', disabled: busy, onClick: () => restore(v) },
                          'Restore',
                          h('span', { class: 'sr-only' }, ` v${v.version}`),
                        ),
                        v.live
                          ? null
                          : h(
                              'button',
                              { type: 'button', disabled: busy, onClick: () => switchLive(v) },
                              'Switch live',
                              h('span', { class: 'sr-only' }, ` to v${v.version}`),
                            ),
                      ),
                    ),
                  ),
                ),
              ),
            ),
          ),
    comparing !== null ? h(Comparison, { key: comparing, agent, version: comparing, onClose: () => setComparing(null) }) : null,
  )
}
