// The console's GPT apps page in Chromium, against the compiled binary (issue 29, item 4): an admin connects a GPT
// through the form (a bad name refused at its field), sees its key once with a copy button that copies it, the Actions
// schema URL and the builder instructions; the key works on apps_list; rotating shows a new key and stops the old one;
// uninstalling (after a confirmation) removes it and stops its key; an admin opens a GPT's calls in the history (its
// name as the Client filter). A member sees public GPTs and no admin controls.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, followNav, hasChromium, startConsole } from './harness.ts'

const spec = {
  openapi: '3.1.0',
  info: { title: 'Helpdesk', version: '1' },
  servers: [{ url: 'https://helpdesk.example.com' }],
  paths: {
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        summary: 'Read a ticket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
}

describe.skipIf(!hasChromium)('console: GPT apps', () => {
  let s: ConsoleSession
  const appsList = async (key: string) => (await fetch(`${s.base}/api/gpt_public/apps_list`, { headers: { 'x-api-key': key } })).status

  beforeAll(async () => {
    s = await startConsole()
    const form = new FormData()
    form.append('file', new File([JSON.stringify(spec)], 'helpdesk.json', { type: 'application/json' }))
    for (const [name, value] of Object.entries({ api_name: 'helpdesk', global_spec: 'true', shared_security_info: 'true' })) form.append(name, value)
    const uploaded = await fetch(`${s.base}/api/spec_from_file/`, { method: 'POST', headers: { authorization: `Bearer ${s.adminToken}` }, body: form })
    expect(uploaded.status).toBe(201)
    await s.api('POST', '/api/agents', { name: 'helper', description: 'Helps', instructions: 'Be brief.' }, s.adminToken)
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
  })

  test('connect a GPT, copy its key once, rotate it, uninstall it', async () => {
    const { page, base } = s
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    await followNav(page, 'GPTs')
    await page.getByRole('heading', { name: 'GPT apps', level: 1 }).waitFor()
    await page.getByText('No GPT is connected yet. Connect one below.').waitFor()

    // A name the server refuses is said at the field.
    await page.getByLabel('Name', { exact: true }).fill('list')
    await page.getByRole('button', { name: 'Connect GPT' }).click()
    await page.locator('#gpt-name-error').filter({ hasText: "'list' is reserved" }).waitFor()

    await page.getByLabel('Name', { exact: true }).fill('Support Desk')
    await page.getByLabel('Description', { exact: true }).fill('Answers helpdesk questions')
    await page.getByLabel('Instructions', { exact: true }).fill('Always quote the ticket id.')
    await page.getByLabel('Helpdesk (helpdesk)').check()
    await page.getByLabel('Agent (optional: its live workflows and tools too)').selectOption('helper')
    await page.getByLabel('Visibility').selectOption('public')
    await page.getByRole('button', { name: 'Connect GPT' }).click()

    await page.getByText('Copy the key of "support-desk" now: it will not be shown again.').waitFor()
    const key = await page.getByLabel('API key (the GPT sends it as x-api-key)').inputValue()
    expect(key).toMatch(/^abx_gpt_/)
    await page.getByRole('button', { name: 'Copy key' }).click()
    await page.getByRole('button', { name: 'Copied', exact: true }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)
    expect(
      await page
        .getByLabel(/^Actions schema URL/)
        .first()
        .inputValue(),
    ).toBe(`${base}/api/gpt_public/openapi.json`)
    expect(await page.getByLabel('Instructions for the GPT builder').first().inputValue()).toContain('call the apps_list action')
    await page.getByRole('button', { name: 'Copy instructions' }).first().click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('app_execute_action')
    const row = page.getByRole('row', { name: /support-desk/ })
    await row.getByText('helpdesk', { exact: true }).waitFor()
    await row.getByText('Public').waitFor()
    await s.shot('gpt-apps-created')
    expect(await appsList(key)).toBe(200)

    await page.getByRole('button', { name: 'I have copied it' }).click()
    expect(await page.getByLabel('API key (the GPT sends it as x-api-key)').count()).toBe(0)

    // The row's Connect shows what to paste again, never the key.
    await page.getByRole('button', { name: 'Connect support-desk' }).click()
    expect(await page.getByLabel(/^Actions schema URL/).inputValue()).toBe(`${base}/api/gpt_public/openapi.json`)
    await page.getByText('Its instructions: Always quote the ticket id.').waitFor()

    await page.getByRole('button', { name: 'Rotate key support-desk' }).click()
    await page.getByText('"support-desk" has a new key; the old one no longer works.').waitFor()
    const rotated = await page.getByLabel('API key (the GPT sends it as x-api-key)').inputValue()
    expect(rotated).not.toBe(key)
    expect(await appsList(key)).toBe(401)
    expect(await appsList(rotated)).toBe(200)

    await page.getByRole('button', { name: 'Uninstall support-desk' }).click()
    await page.getByRole('button', { name: 'Keep support-desk' }).click()
    expect(await appsList(rotated)).toBe(200)
    await page.getByRole('button', { name: 'Uninstall support-desk' }).click()
    await page.getByRole('button', { name: 'Confirm uninstall support-desk' }).click()
    await page.getByText("GPT 'support-desk' uninstalled. Its key no longer works.").waitFor()
    await page.getByText('No GPT is connected yet. Connect one below.').waitFor()
    expect(await appsList(rotated)).toBe(401)
    await s.shot('gpt-apps-uninstalled')
    expect(s.pageErrors).toEqual([])
  })

  test("an admin opens a GPT's calls in the history: the Client filter set to its name", async () => {
    const { page, base } = s
    await s.api('POST', '/api/gpts', { name: 'ops-bot', description: '', instructions: 'Hi', applications: ['helpdesk'], visibility: 'private' }, s.adminToken)
    // Calls as a GPT leaves them (the organisation's, its name as client_source), and one from another client.
    const record = (body: Record<string, unknown>) => s.api('POST', '/api/interaction/record-mcp-tool', body, s.adminToken)
    await record({ tool_name: 'getTicket', mcp_server_name: 'Helpdesk', client_source: 'ops-bot' })
    await record({ tool_name: 'listTickets', mcp_server_name: 'Helpdesk', client_source: 'agentbox-copilot' })
    await page.goto(`${base}/gpt-apps`)
    // Loaded by its own URL (a reload, a bookmark): /gpt-apps is one of the console's paths.
    await page.getByRole('link', { name: 'Calls of ops-bot' }).click()
    await page.waitForURL(`${base}/history?client_source=ops-bot`)
    expect(await page.getByLabel('Client').inputValue()).toBe('ops-bot')
    await page.getByRole('status').filter({ hasText: 'Showing 1 call.' }).waitFor()
    await page.getByRole('cell', { name: 'getTicket' }).first().waitFor()
    expect(await page.getByRole('cell', { name: 'listTickets' }).count()).toBe(0)
    // Clearing the filter shows every client's calls.
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.getByRole('status').filter({ hasText: 'Showing 2 calls.' }).waitFor()
    expect(s.pageErrors).toEqual([])
  })

  test('a member sees public GPTs, without the form or the admin controls', async () => {
    await s.api(
      'POST',
      '/api/gpts',
      { name: 'public-desk', description: '', instructions: 'Hi', applications: ['helpdesk'], visibility: 'public' },
      s.adminToken,
    )
    await s.api('POST', '/api/gpts', { name: 'private-desk', description: '', instructions: 'Hi', applications: [], visibility: 'private' }, s.adminToken)
    await s.createMember('mia@example.com')
    await s.signIn('mia@example.com')
    const { page } = s
    await followNav(page, 'GPTs')
    await page.getByRole('row', { name: /public-desk/ }).waitFor()
    expect(await page.getByRole('row', { name: /private-desk/ }).count()).toBe(0)
    expect(await page.getByRole('button', { name: /Rotate key|Uninstall/ }).count()).toBe(0)
    expect(await page.getByRole('link', { name: /^Calls of/ }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Connect GPT' }).count()).toBe(0)
    await page.getByRole('button', { name: 'Connect public-desk' }).click()
    await page.getByRole('button', { name: 'Copy schema URL' }).waitFor()
    await s.shot('gpt-apps-member')
    expect(s.pageErrors).toEqual([])
  })
})
