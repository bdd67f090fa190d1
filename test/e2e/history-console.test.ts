// Issue 26 in Chromium, against the compiled binary (the navigation's row is navigation.test.ts's): the favicon on
// every page (embedded in the binary), an application's own URL (/applications/{api_name}, reload-safe), the History
// page (filters, a call's arguments and result, a conversation's calls together, Load more, a member's own calls),
// and Change password in the settings (a wrong current password said at its field, success signs other sessions out).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, followNav, hasChromium, startConsole } from './harness.ts'

const LAPTOP = { width: 1366, height: 768 }

describe.skipIf(!hasChromium)('console: favicon, application URLs, history, change password', () => {
  let s: ConsoleSession
  let member: { id: string; token: string }

  const record = (token: string, body: Record<string, unknown>) => s.api('POST', '/api/interaction/record-mcp-tool', body, token)

  beforeAll(async () => {
    s = await startConsole()
    member = await s.createMember('mia@example.com')
    s.page.on('dialog', (dialog) => void dialog.accept())
  }, 60_000)

  afterAll(async () => {
    await s?.stop()
  })

  test('a favicon on every page: /favicon.ico and /favicon.svg come from the binary, and no page asks for anything that is 404', async () => {
    const { page, base } = s
    const ico = await fetch(`${base}/favicon.ico`)
    expect(ico.status).toBe(200)
    expect(ico.headers.get('content-type')).toBe('image/x-icon')
    const bytes = new Uint8Array(await ico.arrayBuffer())
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]) // an ICO header
    const svg = await fetch(`${base}/favicon.svg`)
    expect(svg.status).toBe(200)
    expect(svg.headers.get('content-type')).toBe('image/svg+xml')
    expect(await svg.text()).toContain('<svg')

    const missing: string[] = []
    page.on('response', (response) => {
      if (response.status() === 404) missing.push(response.url())
    })
    for (const [path, ready] of [
      ['/overview', () => page.getByRole('heading', { name: 'Overview' }).waitFor()],
      ['/history', () => page.getByRole('heading', { name: 'History', level: 1 }).waitFor()],
      ['/api/docs', () => page.locator('.swagger-ui .info').waitFor()],
    ] as const) {
      await page.goto(`${base}${path}`)
      await ready()
      const icons = await page.evaluate(() => [...document.querySelectorAll('link[rel="icon"]')].map((link) => (link as HTMLLinkElement).href))
      expect(icons).toEqual([`${base}/favicon.ico`, `${base}/favicon.svg`])
    }
    // Browsers fetch icons in the background: ask for the ones the pages name, as they would.
    for (const icon of ['/favicon.ico', '/favicon.svg']) expect((await page.request.get(`${base}${icon}`)).status()).toBe(200)
    expect(missing).toEqual([])
  }, 30_000)

  test('the API reference offers a file picker for the upload (multipart/form-data)', async () => {
    const { page, base } = s
    // A page already on /api/docs would take the deep link as a hash change, which Swagger UI does not follow: load it anew.
    await page.goto('about:blank')
    await page.goto(`${base}/api/docs#/applications/postApiSpec_from_file`)
    const operation = page.locator('#operations-applications-postApiSpec_from_file')
    // Swagger UI renders the whole document before it opens the deep link: seconds on a busy 2-core machine.
    await operation.waitFor({ timeout: 20_000 })
    // The deep link opens the operation once the document is drawn; a click of ours could race it and close it again.
    await operation.locator('.try-out').waitFor({ timeout: 20_000 })
    await operation.getByRole('button', { name: 'Try it out' }).click()
    await operation.locator('input[type="file"]').waitFor()
    expect(await operation.locator('.body-param__text, textarea.body-param__text').count()).toBe(0)
    await s.shot('26-api-docs-upload')
  }, 45_000)

  test('an application has a URL of its own: the list links to /applications/{api_name}, which survives a reload', async () => {
    const { page, base } = s
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Pet Store', version: '1' },
      servers: [{ url: 'https://pets.example.com' }],
      paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } } },
    }
    for (const name of ['pet-store', 'weather']) {
      const form = new FormData()
      form.set('file', new File([JSON.stringify({ ...spec, info: { ...spec.info, title: name === 'weather' ? 'Weather' : 'Pet Store' } })], 'spec.json'))
      const res = await fetch(`${base}/api/spec_from_file/`, { method: 'POST', headers: { authorization: `Bearer ${s.adminToken}` }, body: form })
      expect(res.status).toBe(201)
    }
    await page.goto(`${base}/applications`)
    const open = page.getByRole('link', { name: 'Open Weather' })
    expect(await open.getAttribute('href')).toBe('/applications/weather')
    await open.click()
    await page.getByRole('heading', { name: 'Weather', level: 2 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/applications/weather')
    expect(await page.getByRole('link', { name: 'Applications' }).getAttribute('aria-current')).toBe('page')
    await page.reload()
    await page.getByRole('heading', { name: 'Weather', level: 2 }).waitFor()
    await page.getByText(/weather · version 1 · OpenAPI 3\.0\.3/).waitFor()
    // A link opened straight away (a bookmark, or shared by someone who can see it).
    await page.goto(`${base}/applications/pet-store`)
    await page.getByRole('heading', { name: 'Pet Store', level: 2 }).waitFor()
    await page.goto(`${base}/applications/no-such-app`)
    await page.getByText('No application is named “no-such-app”, or it is not visible to you.').waitFor()
    await s.shot('26-application-url')
  }, 30_000)

  test('History: newest first, filters, a call opened to its arguments and result, a conversation together, Load more', async () => {
    const { page } = s
    await record(member.token, {
      tool_name: 'search_issues',
      mcp_server_name: 'Jira',
      conversation_id: 'conv-42',
      user_input: 'What is open in ABC?',
      arguments: { jql: 'project = ABC' },
      result: { content: [{ type: 'text', text: '3 issues' }] },
      duration_seconds: 0.42,
      client_source: 'agentbox-copilot',
    })
    await record(s.adminToken, { tool_name: 'list_repos', mcp_server_name: 'GitHub' })
    await record(member.token, {
      tool_name: 'create_issue',
      mcp_server_name: 'Jira',
      conversation_id: 'conv-42',
      arguments: { summary: 'Fix login' },
      result: { isError: true, content: [{ type: 'text', text: 'permission denied' }] },
    })
    await page.setViewportSize(LAPTOP)
    try {
      await page.getByRole('link', { name: 'History' }).click()
      await page.getByRole('heading', { name: 'History', level: 1 }).waitFor()
      const rows = page.locator('table.calls > tbody > tr:not(.details-row)')
      await page.getByRole('status').filter({ hasText: 'Showing 3 calls.' }).waitFor()
      expect(await rows.locator('td[data-label="Tool or operation"]').allTextContents()).toEqual(['create_issue', 'list_repos', 'search_issues'])
      expect(await rows.locator('td[data-label="User"]').allTextContents()).toEqual(['mia@example.com', 'admin@example.com', 'mia@example.com'])
      expect(await rows.first().locator('td[data-label="Outcome"]').textContent()).toBe('Failed')
      // Every column fits the page at 1366 px: the outcome is not scrolled out of sight.
      expect(
        await page
          .locator('.table-wrap')
          .first()
          .evaluate((el) => el.scrollWidth - el.clientWidth),
      ).toBeLessThanOrEqual(0)

      // Filters: failed calls only, then the Jira server's.
      await page.getByLabel('Outcome').selectOption('failed')
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await page.getByRole('status').filter({ hasText: 'Showing 1 call.' }).waitFor()
      await page.getByLabel('Outcome').selectOption('')
      await page.getByLabel('Server or application').fill('GitHub')
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await page.getByRole('status').filter({ hasText: 'Showing 1 call.' }).waitFor()
      expect(await rows.locator('td[data-label="Tool or operation"]').allTextContents()).toEqual(['list_repos'])
      await page.getByRole('button', { name: 'Clear filters' }).click()
      await page.getByRole('status').filter({ hasText: 'Showing 3 calls.' }).waitFor()

      // One call opened: its user message, arguments and result, as recorded.
      await page.getByRole('button', { name: /^Details of search_issues/ }).click()
      await page.getByText('What is open in ABC?').waitFor()
      expect(JSON.parse((await page.getByTestId('call-arguments').textContent())!)).toEqual({ jql: 'project = ABC' })
      expect(JSON.parse((await page.getByTestId('call-result').textContent())!)).toEqual({ content: [{ type: 'text', text: '3 issues' }] })
      await s.shot('26-history-details')

      // A conversation's calls together, oldest first; reload-safe; back to the list.
      await page.getByRole('button', { name: 'Open conversation conv-42' }).first().click()
      await page.getByRole('heading', { name: 'Conversation conv-42' }).waitFor()
      expect(new URL(page.url()).search).toBe('?conversation=conv-42')
      await page.getByText('2 calls, oldest first.').waitFor()
      const conversationRows = page.locator('.conversation-view table.calls > tbody > tr:not(.details-row)')
      expect(await conversationRows.locator('td[data-label="Tool or operation"]').allTextContents()).toEqual(['search_issues', 'create_issue'])
      await page.reload()
      await page.getByText('2 calls, oldest first.').waitFor()
      await page.getByRole('button', { name: /^Details of create_issue/ }).click()
      expect(JSON.parse((await page.getByTestId('call-result').textContent())!)).toMatchObject({ isError: true })
      await s.shot('26-history-conversation')
      await page.getByRole('button', { name: 'Back to all calls' }).click()
      await page.getByRole('status').filter({ hasText: 'Showing 3 calls.' }).waitFor()

      // Pages of 50: Load more brings the rest.
      for (let i = 0; i < 55; i++) await record(member.token, { tool_name: `bulk_${i}`, mcp_server_name: 'Bulk' })
      await page.getByLabel('Server or application').fill('Bulk')
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await page.getByRole('status').filter({ hasText: 'Showing 50 calls; more may be available.' }).waitFor()
      await page.getByRole('button', { name: 'Load more' }).click()
      await page.getByRole('status').filter({ hasText: 'Showing 55 calls.' }).waitFor()
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0)
      await s.shot('26-history-admin')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 60_000)

  test("a member's History holds their own calls only, without a user column", async () => {
    const { page } = s
    await s.signIn('mia@example.com')
    try {
      await page.getByRole('link', { name: 'History' }).click()
      await page
        .getByRole('status')
        .filter({ hasText: /^Showing 50 calls/ })
        .waitFor()
      const users = page.locator('table.calls td[data-label="User"]')
      expect(await users.count()).toBe(0)
      await page.getByLabel('Server or application').fill('GitHub')
      await page.getByRole('button', { name: 'Apply filters' }).click()
      await page.getByRole('status').filter({ hasText: 'No calls match.' }).waitFor()
      expect(await page.getByLabel('User').count()).toBe(0)
    } finally {
      await s.signIn()
    }
  }, 30_000)

  test('Change password: a wrong current password is said at its field; success keeps this tab signed in and signs the others out', async () => {
    const { page, base } = s
    const before = (await s.api('POST', '/api/auth/login', { email: 'mia@example.com', password: 'a long enough password' })).access_token as string
    await s.signIn('mia@example.com')
    try {
      await followNav(page, 'Settings')
      await page.getByRole('heading', { name: 'Change password' }).waitFor()
      const form = page.locator('form[aria-labelledby="password-title"]')
      await form.getByLabel('Current password').fill('not my password at all')
      await form.getByLabel('New password', { exact: true }).fill('a brand new passphrase')
      await form.getByLabel('Confirm new password').fill('a brand new passphrase')
      await form.getByRole('button', { name: 'Change password' }).click()
      await page.locator('#current-password-error').filter({ hasText: 'The current password is wrong' }).waitFor()
      expect(await form.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true')

      // Checked before sending: a short new password, and two that differ.
      await form.getByLabel('Current password').fill('a long enough password')
      await form.getByLabel('New password', { exact: true }).fill('too short')
      await form.getByRole('button', { name: 'Change password' }).click()
      await page.locator('#new-password-error').filter({ hasText: 'At least 12 characters' }).waitFor()
      await form.getByLabel('New password', { exact: true }).fill('a brand new passphrase')
      await form.getByLabel('Confirm new password').fill('a brand new passphrase!')
      await form.getByRole('button', { name: 'Change password' }).click()
      await page.locator('#confirm-password-error').filter({ hasText: 'The two new passwords differ' }).waitFor()

      await form.getByLabel('Confirm new password').fill('a brand new passphrase')
      await form.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('Password changed. Your other sessions were signed out; personal API tokens keep working.').waitFor()
      expect(await form.getByLabel('Current password').inputValue()).toBe('')
      await s.shot('26-change-password')

      // Another session of the same account is over; this tab goes on with the token the change returned.
      const other = await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${before}` } })
      expect(other.status).toBe(401)
      await page.getByRole('link', { name: 'History' }).click()
      await page
        .getByRole('status')
        .filter({ hasText: /^Showing 50 calls/ })
        .waitFor()
      expect((await s.api('POST', '/api/auth/login', { email: 'mia@example.com', password: 'a brand new passphrase' })).access_token).toEqual(
        expect.any(String),
      )
    } finally {
      await s.signIn()
    }
  }, 30_000)

  test('no uncaught errors on any page', () => {
    expect(s.pageErrors).toEqual([])
  })
})
