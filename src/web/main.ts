// The console's entry: picks the page from the path, keeps the signed-in user, and draws the shared frame (nav, sign out).
import { type ComponentChildren, render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { session, whenSessionEnds } from './api.ts'
import { Frame, pageOf } from './frame.ts'
import { AgentsPage } from './pages/agents.ts'
import { ApplicationsPage } from './pages/applications.ts'
import { ApprovalsPage } from './pages/approvals.ts'
import { ChatPage } from './pages/chat.ts'
import { AuditPage } from './pages/audit.ts'
import { ConnectedClientsPage } from './pages/connected-clients.ts'
import { ContextTypesPage } from './pages/context-types.ts'
import { GptAppsPage } from './pages/gpt-apps.ts'
import { HistoryPage } from './pages/history.ts'
import { InsightsPage } from './pages/insights.ts'
import { LoginPage } from './pages/login.ts'
import { MarketplacePage } from './pages/marketplace.ts'
import { OauthConsentPage } from './pages/oauth-consent.ts'
import { OverviewPage } from './pages/overview.ts'
import { SettingsPage } from './pages/settings.ts'
import { SetupPage } from './pages/setup.ts'
import { TasksPage } from './pages/tasks.ts'
import { UsagePage } from './pages/usage.ts'
import { UsersPage } from './pages/users.ts'
import { navigate, usePath } from './router.ts'
import { loadSession, restoreSession, signOut as endConsoleSession, type Me, type UserSettings } from './session.ts'
import { Banner, h, Loading } from './ui.ts'

/** The console's own path to return to after signing in: `?next=` on /login, else the page that asked for sign-in. */
function afterSignIn(path: string): string {
  if (path !== '/login' && path !== '/') return location.pathname + location.search
  const next = new URLSearchParams(location.search).get('next')
  // Only a path on this origin: `//host` or a scheme would make the sign-in page an open redirect.
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/overview'
}

function App() {
  const path = usePath()
  const [user, setUser] = useState<{ me: Me; settings: UserSettings } | null>(null)
  const [error, setError] = useState('')
  // Signing in on the page that asked for it (the OAuth consent page) leaves the path as it was: this re-renders.
  const [, setSignIns] = useState(0)
  const signedIn = session.token() !== null

  const refresh = () => loadSession().then(setUser, (e) => setError(String(e?.message ?? e)))
  const signOut = () => {
    session.clear()
    setUser(null)
    navigate('/login')
  }
  useEffect(() => whenSessionEnds(signOut), [])
  useEffect(() => {
    if (signedIn && !user) void refresh()
  }, [signedIn, user])
  useEffect(() => {
    if (path !== '/setup') document.title = `${pageOf(path)?.title ?? 'Sign in'} · Agentbox`
  }, [path])

  if (path === '/setup') return h(SetupPage, null)
  if (!signedIn || path === '/login') {
    if (signedIn) navigate(afterSignIn(path), true)
    return h(LoginPage, {
      onSignedIn: () => {
        navigate(afterSignIn(path), true)
        setSignIns((n) => n + 1)
      },
    })
  }
  if (!user) return h('main', null, error ? h(Banner, { kind: 'error' }, error) : h(Loading, null))
  // A page of its own, without the console's navigation: the user is in the middle of connecting an application.
  if (path === '/oauth/consent') return h(OauthConsentPage, { me: user.me })
  const page = pageOf(path)
  if (!page) {
    navigate('/overview', true)
    return null
  }
  const { me } = user
  const bodies: Record<string, () => ComponentChildren> = {
    '/overview': () => h(OverviewPage, { me }),
    '/chat': () => h(ChatPage, { me, settings: user.settings }),
    '/users': () => h(UsersPage, { me }),
    '/agents': () => h(AgentsPage, { me }),
    '/marketplace': () => h(MarketplacePage, { me }),
    '/tasks': () => h(TasksPage, { me }),
    '/context-types': () => h(ContextTypesPage, { me }),
    '/approvals': () => h(ApprovalsPage, { me }),
    '/history': () => h(HistoryPage, { me }),
    '/applications': () => h(ApplicationsPage, { me }),
    '/gpt-apps': () => h(GptAppsPage, { me }),
    '/usage': () => h(UsagePage, null),
    '/insights': () => h(InsightsPage, { me }),
    '/settings': () => h(SettingsPage, { me, settings: user.settings, onSaved: refresh }),
    '/connected-clients': () => h(ConnectedClientsPage, null),
    '/audit': () => h(AuditPage, null),
  }
  const signOutHere = () => void endConsoleSession().finally(signOut)
  return h(Frame, { me, path, signOut: signOutHere }, bodies[page.path]?.() ?? null)
}

void restoreSession().finally(() => render(h(App, null), document.getElementById('app')!))
