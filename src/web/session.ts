// Who is signed in and how they want the console: fetched once after sign-in, applied to <html> (dir, lang, theme).
// The session across tabs: a tab that starts without a token takes one from the console session (the HttpOnly refresh
// cookie); signing out ends the session on the server and tells the other tabs at once.
import { api, endSession, refreshAccessToken, session } from './api.ts'

/** Tabs of this console tell each other about a sign-out, so none keeps showing a session that ended. */
const tabs: BroadcastChannel | null = typeof BroadcastChannel === 'function' ? new BroadcastChannel('agentbox.session') : null
tabs?.addEventListener('message', (event: MessageEvent) => {
  if (event.data === 'signed-out' && session.token() !== null) {
    session.clear()
    endSession()
  }
})

/** Before the first render: a tab without its own token joins the console session, if the browser has one. */
export async function restoreSession(): Promise<void> {
  if (session.token() === null) await refreshAccessToken()
}

/** Signs out: ends the console session on the server (every tab's token stops working), then tells the other tabs. */
export async function signOut(): Promise<void> {
  const token = session.token()
  session.clear()
  await fetch('/api/auth/logout', { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} }).catch(() => undefined)
  tabs?.postMessage('signed-out')
}

export interface Me {
  id: string
  email: string
  name: string
  role: 'admin' | 'member'
}
export interface UserSettings {
  language: string
  direction: 'ltr' | 'rtl'
  dark_mode: string | null
  prompt_presets: { id: string; name: string; prompt: string }[]
  [key: string]: unknown
}

export async function loadSession(): Promise<{ me: Me; settings: UserSettings }> {
  const [me, settings] = await Promise.all([api<Me>('GET', '/api/auth/me'), api<UserSettings>('GET', '/api/user/settings')])
  applySettings(settings)
  return { me, settings }
}

/** The server decides the direction from the language (rtl for he, ar, fa, ur); the theme follows dark_mode. */
export function applySettings(settings: Pick<UserSettings, 'language' | 'direction' | 'dark_mode'>): void {
  const root = document.documentElement
  root.lang = settings.language
  root.dir = settings.direction
  const mode = settings.dark_mode ?? 'system'
  root.dataset.theme = mode === 'dark' || mode === 'light' ? mode : 'system'
}
