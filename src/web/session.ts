// Who is signed in and how they want the console: fetched once after sign-in, applied to <html> (dir, lang, theme).
import { api } from './api.ts'

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
