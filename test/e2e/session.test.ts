// The console session across tabs (issue 26, item 7) in Chromium against the compiled binary: a console link opened in
// a new tab is signed in (the HttpOnly refresh cookie, never visible to scripts), and signing out in one tab signs
// every tab out, on the server too.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { CHROMIUM, type ConsoleSession, hasChromium, startConsole } from './harness.ts'

if (!hasChromium) console.warn(`e2e: ${CHROMIUM} is missing (apt-get install chromium); the browser suite is skipped`)

let s: ConsoleSession
let second: Page

const tabToken = (page: Page) => page.evaluate(() => sessionStorage.getItem('agentbox.access_token'))
const meWith = async (base: string, token: string | null) => (await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status

describe.skipIf(!hasChromium)('the console session across tabs', () => {
  beforeAll(async () => {
    s = await startConsole()
  }, 180_000)
  afterAll(async () => {
    await s?.stop()
  }, 30_000)

  test('a console link opened in a new tab is signed in; the refresh token is HttpOnly, SameSite=Strict, for /api/auth only', async () => {
    second = await s.page.context().newPage()
    await second.goto(`${s.base}/agents`)
    await second.getByRole('heading', { name: 'Agents', level: 1 }).waitFor()
    expect(await second.getByRole('button', { name: 'Sign out' }).count()).toBe(1)
    // Each tab holds its own access token, from the same session.
    const [first, other] = [await tabToken(s.page), await tabToken(second)]
    expect(other).toBeString()
    expect(other).not.toBe(first)
    expect(await meWith(s.base, other)).toBe(200)
    // Scripts see no cookie at all.
    expect(await second.evaluate(() => document.cookie)).toBe('')
    const refresh = (await s.page.context().cookies()).find((cookie) => cookie.name === 'agentbox_refresh')
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth', secure: false, expires: -1 })
    await second.reload()
    await second.getByRole('heading', { name: 'Agents', level: 1 }).waitFor()
    expect(s.pageErrors).toEqual([])
  })

  test('signing out in one tab signs the other out at once, ends both tokens on the server, and a new tab asks to sign in', async () => {
    const tokens = [await tabToken(s.page), await tabToken(second)]
    await s.page.getByRole('button', { name: 'Sign out' }).click()
    await s.page.getByRole('button', { name: 'Sign in' }).waitFor()
    // The other tab heard it and shows the sign-in form without being touched.
    await second.getByRole('button', { name: 'Sign in' }).waitFor()
    expect(await tabToken(second)).toBeNull()
    for (const token of tokens) expect(await meWith(s.base, token)).toBe(401)
    expect((await s.page.context().cookies()).find((cookie) => cookie.name === 'agentbox_refresh')).toBeUndefined()
    const third = await s.page.context().newPage()
    await third.goto(`${s.base}/agents`)
    await third.getByRole('button', { name: 'Sign in' }).waitFor()
    expect(await third.getByRole('heading', { name: 'Agents', level: 1 }).count()).toBe(0)
    await third.close()
    // Signing in again in one tab is the session for new tabs again.
    await s.signIn()
    const fourth = await s.page.context().newPage()
    await fourth.goto(`${s.base}/overview`)
    await fourth.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await fourth.close()
    expect(s.pageErrors).toEqual([])
  })
})
