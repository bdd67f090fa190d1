// The web console in a real browser (Debian's Chromium via playwright-core) against the compiled binary: setup wizard,
// sign-in, overview, approving a waiting run, the usage chart, users and seats, tasks, settings (rtl, tokens);
// screenshots go to test-results/console/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { issueTestLicense } from '../helpers/license.ts'
import { ADMIN, CHROMIUM, followNav, hasChromium, launchBrowser, launchServer, type RunningInstance, SETUP_TOKEN, SHOTS } from './harness.ts'

if (!hasChromium) console.warn(`e2e: ${CHROMIUM} is missing (apt-get install chromium); the browser suite is skipped`)

let instance: RunningInstance
let tmp = ''
let base = ''
let browser: Browser
let context: BrowserContext
let page: Page
let pageErrors: string[] = []

async function api(method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const json = await res.json().catch(() => null)
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

const shot = (name: string, target: Page = page) => target.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

describe.skipIf(!hasChromium)('web console in Chromium, against the compiled binary', () => {
  beforeAll(async () => {
    instance = await launchServer()
    ;({ base, dir: tmp } = instance)
    ;({ browser, context, page, pageErrors } = await launchBrowser())
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await instance?.stop()
  }, 30_000)

  test('/ sends an unprovisioned instance to the wizard; a bad licence shows the server reason, a good one the org token once', async () => {
    await page.goto(`${base}/`)
    expect(new URL(page.url()).pathname).toBe('/setup')
    await page.goto(`${base}/setup?token=${SETUP_TOKEN}`)
    // The evaluation choice hides the licence field; back to "I have a licence" for this instance.
    await page.getByLabel(/30-day evaluation/).check()
    expect(await page.getByLabel('Licence token', { exact: true }).count()).toBe(0)
    await page.getByLabel('I have a licence').check()
    await page.getByLabel('Licence token', { exact: true }).fill('not-a-licence')
    await page.getByLabel('Admin e-mail').fill(ADMIN.email)
    await page.getByLabel('Admin name').fill(ADMIN.name)
    await page.getByLabel('Admin password').fill(ADMIN.password)
    await page.getByLabel('Confirm password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Finish setup' }).click()
    const reason = page.locator('#license_token-error')
    await reason.filter({ hasText: /\S/ }).waitFor()
    expect(await reason.textContent()).toMatch(/licen[cs]e/i)
    expect(await page.getByLabel('Licence token', { exact: true }).getAttribute('aria-invalid')).toBe('true')
    await shot('01-setup-bad-licence')

    await page.getByLabel('Licence token', { exact: true }).fill(issueTestLicense({ seats: 10 }))
    await page.getByRole('button', { name: 'Finish setup' }).click()
    const token = page.getByLabel('Organisation token')
    await token.waitFor()
    expect(await token.inputValue()).toMatch(/^abx_org_/)
    await page.getByText('it will not be shown again').waitFor()
    expect(await page.getByRole('button', { name: 'Copy token' }).isVisible()).toBe(true)
    await shot('02-setup-done')
    await page.getByRole('button', { name: 'Continue to sign in' }).click()
    await page.getByRole('heading', { name: 'Sign in to Agentbox' }).waitFor()
  }, 30_000)

  test('sign-in shows the server error on a wrong password, then the overview with the licence and the test banner', async () => {
    await page.goto(`${base}/`)
    await page.getByLabel('E-mail').fill(ADMIN.email)
    await page.getByLabel('Password').fill('wrong password!!')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Invalid credentials' }).waitFor()
    await shot('03-sign-in-wrong-password')
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    await page.getByText('1 / 10').waitFor()
    await page.getByText(/Test licence/).waitFor()
    expect(new URL(page.url()).pathname).toBe('/overview')
    await shot('04-overview')
    // Admins apply a licence here: a wrong one shows the server's reason, a right one updates the seats.
    await page.getByLabel('Licence token', { exact: true }).fill('x.y.z')
    await page.getByRole('button', { name: 'Apply licence' }).click()
    await page
      .locator('#apply_license_token-error')
      .filter({ hasText: /malformed/i })
      .waitFor()
    await page.getByLabel('Licence token', { exact: true }).fill(issueTestLicense({ seats: 10, days: 400 }))
    await page.getByRole('button', { name: 'Apply licence' }).click()
    await page.getByText(/Licence applied for .*10 seats/).waitFor()
  }, 30_000)

  test('a run waiting at an approval gate is approved, with edits, from the approvals page', async () => {
    const { access_token: token } = await api('POST', '/api/auth/login', { email: ADMIN.email, password: ADMIN.password })
    await api('POST', '/api/agents', { name: 'refund-bot', description: 'Refunds', instructions: 'Handle refunds' }, token)
    const definition = {
      nodes: [
        { id: 'prep', type: 'agentbox.set', params: { values: { amount: '{{ $json.amount }}', note: 'refund' } } },
        { id: 'gate', type: 'agentbox.approval', params: { message: 'Refund {{ $json.amount }}?' } },
        { id: 'out', type: 'agentbox.output', params: { value: '{{ $json }}' } },
      ],
      connections: [
        { from: 'prep', to: 'gate' },
        { from: 'gate', port: 'approved', to: 'out' },
      ],
    }
    const flow = await api('POST', '/api/workflows/refund-bot', { name: 'refund', definition }, token)
    await api('POST', '/api/agents/refund-bot/publish', {}, token)
    const run = await api('POST', `/api/workflows/refund-bot/${flow.id}/run`, { input: { amount: 5 } }, token)
    expect(run.status).toBe('waiting_human')

    await page.getByRole('link', { name: 'Approvals' }).click()
    await page.getByText('Refund 5?').waitFor()
    expect(await page.getByRole('figure', { name: 'Gate data' }).textContent()).toContain('"amount": 5')
    await shot('05-approvals-waiting')
    await page.getByLabel(/Edits to apply/).fill('{"amount": 4}')
    await page.getByRole('button', { name: 'Approve' }).click()
    const result = page.getByRole('status').filter({ hasText: 'refund-bot · refund: succeeded' })
    await result.waitFor()
    expect(await result.textContent()).toContain('"amount": 4')
    await page.getByText('Nothing is waiting for your approval.').waitFor()
    await shot('06-approvals-approved')
    expect((await api('GET', `/api/workflows/refund-bot/runs/${run.run_id}`, undefined, token)).status).toBe('succeeded')
  }, 30_000)

  test('the usage page draws the interaction summary as a chart', async () => {
    const { access_token: token } = await api('POST', '/api/auth/login', { email: ADMIN.email, password: ADMIN.password })
    for (const [server, n] of [
      ['github', 3],
      ['jira', 2],
    ] as const) {
      for (let i = 0; i < n; i++)
        await api('POST', '/api/interaction/record-mcp-tool', { tool_name: 'search', mcp_server_name: server, duration_seconds: 0.1 }, token)
    }
    await followNav(page, 'Usage')
    const bars = page.locator('figure.chart svg rect')
    await bars.first().waitFor()
    expect(await bars.count()).toBe(2)
    expect(await page.locator('.legend li').allTextContents()).toEqual(['github', 'jira'])
    await shot('07-usage-daily')
    await page.getByLabel('Period', { exact: true }).selectOption('monthly')
    await page.locator('figure.chart svg rect').first().waitFor()
    await shot('08-usage-monthly')
  }, 30_000)

  test('the overview and the approvals page stay usable at phone width (375 px)', async () => {
    // Same tab (the session lives in sessionStorage, per tab), narrowed to a phone's width.
    await page.setViewportSize({ width: 375, height: 800 })
    try {
      for (const [path, heading, name] of [
        ['/overview', 'Overview', '09-overview-phone'],
        ['/approvals', 'Approvals', '10-approvals-phone'],
      ] as const) {
        await page.goto(`${base}${path}`)
        await page.getByRole('heading', { name: heading }).waitFor()
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        expect(overflow).toBeLessThanOrEqual(0)
        await shot(name)
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 30_000)

  test('the users page creates a member, then words the seat error when the licence runs out of seats', async () => {
    const { access_token: token } = await api('POST', '/api/auth/login', { email: ADMIN.email, password: ADMIN.password })
    // The licence has 10 seats and the admin takes one: fill 8 more through the API, the last one through the page.
    for (let i = 1; i <= 8; i++)
      await api('POST', '/api/users', { email: `filler${i}@example.com`, name: `Filler ${i}`, password: 'long enough password', role: 'member' }, token)
    await followNav(page, 'Users')
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor()
    const addUser = async (email: string, name: string) => {
      await page.getByLabel('E-mail', { exact: true }).fill(email)
      await page.getByLabel('Name', { exact: true }).fill(name)
      await page.getByLabel('Password', { exact: true }).fill('long enough password')
      await page.getByRole('button', { name: 'Add user' }).click()
    }
    await addUser('mia@example.com', 'Mia Member')
    await page.getByRole('status').filter({ hasText: 'mia@example.com can now sign in.' }).waitFor()
    await page.getByRole('row', { name: /mia@example\.com/ }).waitFor()
    await addUser('late@example.com', 'Late Comer')
    await page.getByRole('alert').filter({ hasText: 'Seat limit reached' }).waitFor()
    await shot('11-users-seat-limit')
    // Deactivating a member frees the seat.
    await page.getByRole('button', { name: 'Deactivate filler8@example.com' }).click()
    await page.getByRole('status').filter({ hasText: 'filler8@example.com was deactivated.' }).waitFor()
    await page.getByRole('button', { name: 'Add user' }).click()
    await page.getByRole('status').filter({ hasText: 'late@example.com can now sign in.' }).waitFor()
  }, 30_000)

  test('the tasks page creates a daily task (a bad time zone is blamed on its field), lists its next run, runs and edits it', async () => {
    await page.getByRole('link', { name: 'Tasks' }).click()
    await page.getByRole('heading', { name: 'Tasks', exact: true }).waitFor()
    await page.getByText('No tasks yet.').waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Morning digest')
    await page.getByLabel('Prompt', { exact: true }).fill('Summarise yesterday in three bullets.')
    await page.getByLabel('Frequency').selectOption('daily')
    await page.getByLabel('Time (HH:MM)').fill('07:30')
    expect(await page.getByLabel('Time zone').inputValue()).not.toBe('')
    await page.getByLabel('Time zone').fill('Mars/Olympus_Mons')
    await page.getByRole('button', { name: 'Create task' }).click()
    await page
      .locator('#task-timezone-error')
      .filter({ hasText: /time zone/i })
      .waitFor()
    expect(await page.getByLabel('Time zone').getAttribute('aria-invalid')).toBe('true')
    await shot('12-tasks-timezone-error')

    await page.getByLabel('Time zone').fill('Europe/Paris')
    await page.getByRole('button', { name: 'Create task' }).click()
    await page.getByRole('status').filter({ hasText: 'Task "Morning digest" created.' }).waitFor()
    const row = page.getByRole('row', { name: /Morning digest/ })
    await row.getByText('Daily at 07:30 (Europe/Paris)').waitFor()
    const next = await row.locator('time').getAttribute('datetime')
    expect(Date.parse(next!)).toBeGreaterThan(Date.now())
    expect(await row.getByText('Never run').count()).toBe(1)
    await shot('13-tasks-created')

    await page.getByRole('button', { name: 'Run now Morning digest' }).click()
    await page.getByRole('status').filter({ hasText: 'Run started for "Morning digest"' }).waitFor()
    await row.getByText(/^(Running|Succeeded|Failed), /).waitFor()

    await page.getByRole('button', { name: 'Edit Morning digest' }).click()
    await page.getByRole('heading', { name: 'Edit task "Morning digest"' }).waitFor()
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Morning digest')
    expect(await page.getByLabel('Time (HH:MM)').inputValue()).toBe('07:30')
    await page.getByLabel('Frequency').selectOption('weekly')
    await page.getByLabel('Day', { exact: true }).selectOption('friday')
    await page.getByRole('button', { name: 'Save task' }).click()
    await page.getByRole('status').filter({ hasText: 'Task "Morning digest" saved.' }).waitFor()
    await row.getByText('Weekly on Friday at 07:30 (Europe/Paris)').waitFor()
    await page.getByRole('heading', { name: 'Create a task' }).waitFor()
    await shot('14-tasks-run-and-edited')

    await page.setViewportSize({ width: 375, height: 800 })
    try {
      await page.getByRole('button', { name: 'Run now Morning digest' }).waitFor()
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await shot('15-tasks-phone')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 30_000)

  test('the settings page saves Hebrew (the page turns right-to-left at once), presets, recording, and a personal token shown once', async () => {
    await followNav(page, 'Settings')
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor()
    await page.getByLabel('Language').selectOption('he')
    await page.getByLabel('Dark mode').selectOption('light')
    await page.getByLabel('New preset name').fill('Standup')
    await page.getByLabel('New preset prompt').fill('What did I do yesterday?')
    await page.getByRole('button', { name: 'Add preset' }).click()
    await page.getByRole('button', { name: 'Remove preset Standup' }).waitFor()
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('status').filter({ hasText: 'Settings updated' }).waitFor()
    await page.waitForFunction(() => document.documentElement.dir === 'rtl')
    expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dataset.theme])).toEqual(['he', 'light'])
    await shot('16-settings-rtl')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('status').filter({ hasText: 'Settings unchanged' }).waitFor()
    const { access_token: token } = await api('POST', '/api/auth/login', { email: ADMIN.email, password: ADMIN.password })
    const stored = await api('GET', '/api/user/settings', undefined, token)
    expect([stored.language, stored.direction, stored.prompt_presets.map((p: { name: string }) => p.name)]).toEqual(['he', 'rtl', ['Standup']])

    await page.getByLabel('Workflow recording').selectOption('headers_only')
    await page.getByRole('button', { name: 'Save recording setting' }).click()
    await page.getByRole('status').filter({ hasText: 'Workflow recording is now "Headers only"' }).waitFor()
    expect((await api('GET', '/api/org/settings', undefined, token)).workflow_recording).toBe('headers_only')

    await page.getByLabel('Token name').fill('laptop')
    await page.getByRole('button', { name: 'Create token' }).click()
    const created = page.getByLabel('New token "laptop"')
    await created.waitFor()
    const secret = await created.inputValue()
    expect(secret).toMatch(/^abx_pat_/)
    await page.getByText('it will not be shown again').waitFor()
    expect(await page.getByRole('button', { name: 'Copy token' }).isVisible()).toBe(true)
    expect((await api('GET', '/api/auth/me', undefined, secret)).email).toBe(ADMIN.email)
    await shot('17-settings-token-created')

    await page.getByRole('button', { name: 'Revoke laptop' }).click()
    await page.getByRole('status').filter({ hasText: 'Token "laptop" was revoked' }).waitFor()
    expect(await created.count()).toBe(0)
    // The list reloads after the notice: the row stays, without its Revoke button, and says when.
    await page.getByRole('button', { name: 'Revoke laptop' }).waitFor({ state: 'detached' })
    expect(
      await page
        .getByRole('row', { name: /laptop/ })
        .getByRole('cell', { name: 'No', exact: true })
        .count(),
    ).toBe(0)
    expect((await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401)
    // Shown once: a reload lists the token by its hint only.
    await page.reload()
    await page.getByRole('row', { name: /laptop/ }).waitFor()
    expect(await page.getByText(secret).count()).toBe(0)
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    await shot('18-settings-token-revoked')

    await page.setViewportSize({ width: 375, height: 800 })
    try {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await shot('19-settings-phone-rtl')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 30_000)

  test('the applications page imports a dropped-in description (a broken one says where), connects a key, and dry-runs an operation', async () => {
    const broken = join(tmp, 'broken.json')
    await Bun.write(
      broken,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Pets' },
        paths: { '/p': { get: { responses: {} } } },
        components: { schemas: { X: { $ref: 'https://example.com/x.json' } } },
      }),
    )
    const good = join(tmp, 'pets.yaml')
    await Bun.write(
      good,
      [
        'openapi: 3.0.3',
        'info: { title: Pet Shop, version: "2" }',
        'servers: [ { url: "https://pets.example.com" } ]',
        'security: [ { key: [] } ]',
        'components: { securitySchemes: { key: { type: apiKey, in: header, name: X-Key } } }',
        'paths:',
        '  /pets:',
        '    get:',
        '      operationId: listPets',
        '      summary: List the pets',
        '      parameters: [ { name: limit, in: query, schema: { type: integer } } ]',
        '      responses: { "200": { description: ok, content: { application/json: { example: [ { name: Rex } ] } } } }',
      ].join('\n'),
    )
    await page.getByRole('link', { name: 'Applications' }).click()
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor()
    await page.locator('#spec-file').setInputFiles(broken)
    await page.getByRole('button', { name: 'Import' }).click()
    await page.getByText(/External reference/).waitFor()
    await page.getByText('/components/schemas/X/$ref').waitFor()
    await page.locator('#spec-file').setInputFiles(good)
    await page.getByRole('button', { name: 'Import' }).click()
    await page.getByText('Pet Shop: 1 operations imported as pet-shop.').waitFor()
    await page.getByRole('heading', { name: 'Pet Shop' }).waitFor()
    await page.getByText(/key \(api_key\) — not connected/).waitFor()
    await page.getByLabel('API key').fill('e2e-secret-key')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText(/key \(api_key\) — connected/).waitFor()
    expect(await page.content()).not.toContain('e2e-secret-key')
    await page.getByRole('button', { name: /listPets/ }).click()
    await page.getByText('"limit"').first().waitFor()
    await page.getByLabel('Arguments (JSON)').fill('{"limit": "many"}')
    await page.getByRole('button', { name: 'Dry run' }).click()
    await page.getByText(/limit: Input should be a valid integer/).waitFor()
    await page.getByLabel('Arguments (JSON)').fill('{"limit": 2}')
    await page.getByRole('button', { name: 'Dry run' }).click()
    await page.getByText('Status 200 (dry run)').waitFor()
    expect(await page.getByTestId('response-body').textContent()).toContain('Rex')
    await shot('21-applications')
  }, 30_000)

  test('the insights page shows the figures, both charts and the top tools, and filters by agent', async () => {
    await page.getByRole('link', { name: 'Insights' }).click()
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor()
    // The usage test recorded 5 search calls (github 3, jira 2) at 100 ms; the approvals test left runs.
    const stat = (label: string) => page.locator('.stat', { hasText: label }).locator('dd')
    await page.getByText('Top tools').waitFor()
    expect(Number(await stat('Interactions').textContent())).toBeGreaterThanOrEqual(5)
    expect(await stat('Duration p50').textContent()).toMatch(/^\d+(\.\d)? ms$/)
    expect(await page.locator('figure.chart').count()).toBe(2)
    expect(await page.locator('table', { hasText: 'Top tools' }).locator('tbody tr').first().textContent()).toContain('github')
    await shot('22-insights')
    await page.getByLabel('Agent (name, empty for all)').fill('no-such-agent')
    await page.getByLabel('Agent (name, empty for all)').press('Tab')
    await page.getByText('Agent not found').waitFor()
  }, 30_000)

  test('the agents page gives an MCP URL with client configurations; an MCP client is approved on the consent page, then disconnected', async () => {
    await page.getByRole('link', { name: 'Agents' }).click()
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'refund-bot' }).click()
    await page.getByRole('tab', { name: 'Live' }).click()
    const url = `${base}/agent/refund-bot/mcp`
    expect(await page.getByLabel('MCP URL').first().inputValue()).toBe(url)
    await page.getByRole('button', { name: 'VS Code' }).first().click()
    expect(JSON.parse((await page.getByLabel('VS Code configuration').textContent())!)).toEqual({ servers: { 'refund-bot': { type: 'http', url } } })
    await shot('23-agents-mcp')

    // What an MCP client does: register, then send the browser to authorize with PKCE and the resource.
    const redirect = 'http://127.0.0.1:9/callback'
    const client = await api('POST', '/oauth/register', { client_name: 'E2E Client', redirect_uris: [redirect] })
    const verifier = 'v'.repeat(43)
    const challenge = new Bun.CryptoHasher('sha256').update(verifier).digest('base64url')
    const authorize = new URL(`${base}/oauth/authorize`)
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
      resource: url,
    }))
      authorize.searchParams.set(k, v)
    // The client's redirect URI: answered here, so the browser lands on a page instead of a connection error that
    // would still be loading when the test navigates on.
    await page.route(`${redirect}**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'You can close this window.' }))
    const callback = page.waitForRequest((request) => request.url().startsWith(redirect))
    await page.goto(authorize.href)
    await page.getByRole('heading', { name: 'Connect E2E Client to Agentbox?' }).waitFor()
    await shot('24-oauth-consent')
    await page.getByRole('button', { name: 'Approve' }).click()
    const back = new URL((await callback).url())
    await page.getByText('You can close this window.').waitFor()
    expect(back.searchParams.get('state')).toBe('xyz')
    const tokenRes = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: redirect,
        client_id: client.client_id,
        code_verifier: verifier,
      }),
    })
    const { access_token } = (await tokenRes.json()) as { access_token: string }
    const listTools = () =>
      fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      })
    expect((await listTools()).status).toBe(200)

    await page.goto(`${base}/connected-clients`)
    await page.getByRole('row', { name: /E2E Client/ }).waitFor()
    await shot('25-connected-clients')
    page.once('dialog', (dialog) => dialog.accept())
    await page.getByRole('button', { name: 'Disconnect E2E Client' }).click()
    await page.getByText('E2E Client was disconnected.').waitFor()
    expect((await listTools()).status).toBe(401)
  }, 30_000)

  test('an evaluator on a production server (no licence) starts a 30-day evaluation from the wizard and sees it on the overview', async () => {
    // No AGENTBOX_LICENSE_MODE: the production mode `npm start` and a copied binary run in.
    const evaluator = await launchServer({})
    const evalBase = evaluator.base
    const tab = await context.newPage()
    tab.on('pageerror', (error) => pageErrors.push(String(error)))
    try {
      await tab.goto(`${evalBase}/setup?token=${SETUP_TOKEN}`)
      await tab.getByLabel(/30-day evaluation/).check()
      await tab.getByLabel('Admin e-mail').fill(ADMIN.email)
      await tab.getByLabel('Admin name').fill(ADMIN.name)
      await tab.getByLabel('Admin password').fill(ADMIN.password)
      await tab.getByLabel('Confirm password').fill(ADMIN.password)
      await tab.getByRole('button', { name: 'Finish setup' }).click()
      await tab.getByLabel('Organisation token').waitFor()
      await tab.getByRole('button', { name: 'Continue to sign in' }).click()
      await tab.getByLabel('E-mail').fill(ADMIN.email)
      await tab.getByLabel('Password').fill(ADMIN.password)
      await tab.getByRole('button', { name: 'Sign in' }).click()
      await tab.getByRole('heading', { name: 'Overview' }).waitFor()
      await tab.getByText(/Evaluation: this instance runs on a 30-day evaluation with 5 seats/).waitFor()
      await tab.getByText('1 / 5').waitFor()
      expect(await tab.getByText(/Test licence/).count()).toBe(0)
      await shot('20-evaluation-overview', tab)
    } finally {
      await tab.close()
      await evaluator.stop()
    }
  }, 30_000)

  test('no uncaught errors on any page', () => {
    expect(pageErrors).toEqual([])
  })
})
