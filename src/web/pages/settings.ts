import type { Me, UserSettings } from '../session.ts'
import { h } from '../ui.ts'

export function SettingsPage(_: { me: Me; settings: UserSettings; onSaved: () => void }) {
  return h('section', null, h('h1', null, 'Settings'), h('p', null, 'Coming soon.'))
}
