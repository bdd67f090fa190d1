// The console's MCP servers page in Chromium, against the compiled binary (issue 30, item 6): an admin adds servers
// through the form (a taken name and a forbidden address said at their fields), connects one with OAuth (the browser
// goes to the server's own authorization server on 127.0.0.1 and comes back with a notice), pastes a token for
// another, sees the tools and the gateway URL; a member sees their own state only, connects and disconnects; a refused
// sign-in comes back as an error notice; an admin removes a server; a token the server refuses and a server that
// cannot be reached are said in plain words. Screenshots go to test-results/console/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { TestMcpServer } from '../mcp-servers/upstream.ts'
import { type ConsoleSession, followNav, hasChromium, startConsole } from './harness.ts'

describe.skipIf(!hasChromium)('console: MCP servers', () => {
  let s: ConsoleSession
  let notes: TestMcpServer
  let tickets: TestMcpServer

  beforeAll(async () => {
    s = await startConsole()
    notes = new TestMcpServer({ auth: 'oauth' })
    tickets = new TestMcpServer({ auth: 'bearer', bearerTokens: { 'admin-ticket-token': 'admin@tickets', 'mia-ticket-token': 'mia@tickets' } })
    // The servers run on this machine: an admin opens loopback for outbound calls, as they would for an internal host.
    await s.api('PUT', '/api/org/settings', { outbound_allow: ['127.0.0.1'] }, s.adminToken)
    await s.createMember('mia@example.com')
  }, 60_000)
  afterAll(async () => {
    notes?.stop()
    tickets?.stop()
    await s?.stop()
  })

  const row = (name: string) => s.page.locator(`tr[data-server="${name}"]`)

  test('an admin adds servers through the form; a taken name and a forbidden address are said at their fields', async () => {
    const { page } = s
    await followNav(page, 'MCP servers')
    await page.getByRole('heading', { name: 'MCP servers', level: 1 }).waitFor()
    await page.getByText('No MCP server yet: add one below.').waitFor()
    expect(await page.getByTestId('gateway-url').textContent()).toBe(`${s.base}/mcp/gateway`)

    await page.getByLabel('Name', { exact: true }).fill('Notes')
    await page.getByLabel('URL', { exact: true }).fill(notes.url)
    await page.getByRole('button', { name: 'Add server' }).click()
    await page.getByRole('status').filter({ hasText: 'notes was added.' }).waitFor()
    await row('notes').getByText('OAuth sign-in').waitFor()
    await row('notes').getByText('Not connected').waitFor()

    await page.getByLabel('Name', { exact: true }).fill('notes')
    await page.getByLabel('URL', { exact: true }).fill(notes.url)
    await page.getByRole('button', { name: 'Add server' }).click()
    await page.locator('#mcp-server-name-error').filter({ hasText: "An MCP server named 'notes' exists" }).waitFor()

    await page.getByLabel('Name', { exact: true }).fill('metadata')
    await page.getByLabel('URL', { exact: true }).fill('http://169.254.169.254/latest')
    await page.getByRole('button', { name: 'Add server' }).click()
    await page.locator('#mcp-server-url-error').filter({ hasText: 'Destination not allowed (link local address)' }).waitFor()
    await s.shot('30-mcp-servers-refused')

    await page.getByLabel('Name', { exact: true }).fill('tickets')
    await page.getByLabel('URL', { exact: true }).fill(tickets.url)
    await page.getByLabel('Sign-in').selectOption('bearer')
    await page.getByRole('button', { name: 'Add server' }).click()
    await row('tickets').getByText('Bearer token').waitFor()
  })

  test('connecting with OAuth: the browser signs in at the server and comes back connected; the tools are listed', async () => {
    const { page } = s
    notes.as!.signIn('ada@notes')
    await row('notes').getByRole('button', { name: 'Connect to notes' }).click()
    await page.getByRole('status').filter({ hasText: 'Connected to notes: its tools are now yours in chat and at the MCP gateway.' }).waitFor()
    expect(new URL(page.url()).search).toBe('')
    await row('notes').getByText('Connected', { exact: true }).waitFor()
    await row('notes').getByRole('button', { name: 'Show tools' }).click()
    await page.getByRole('list', { name: 'Tools of notes' }).getByText('notes__search_issues_by_label').waitFor()
    await s.shot('30-mcp-servers-connected')
    expect([...notes.as!.access.values()].map((token) => token.account)).toEqual(['ada@notes'])
  })

  test('pasting a bearer token connects; the token is not shown again', async () => {
    const { page } = s
    await row('tickets').getByRole('button', { name: 'Paste a token for tickets' }).click()
    await page.getByLabel('Your token for tickets').fill('admin-ticket-token')
    await page.getByRole('button', { name: 'Save token' }).click()
    await page.getByRole('status').filter({ hasText: 'Connected to tickets with your token.' }).waitFor()
    await row('tickets').getByText('Connected', { exact: true }).waitFor()
    expect(await page.content()).not.toContain('admin-ticket-token')
  })

  test('a member sees only their own state, cannot add or remove, connects and disconnects; a refused sign-in is an error notice', async () => {
    const { page } = s
    await s.signIn('mia@example.com')
    await page.goto(`${s.base}/mcp-servers`)
    await row('notes').getByText('Not connected').waitFor()
    await row('tickets').getByText('Not connected').waitFor()
    expect(await page.getByRole('button', { name: 'Add server' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Remove notes' }).count()).toBe(0)

    notes.as!.denyNext()
    await row('notes').getByRole('button', { name: 'Connect to notes' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: 'Connecting to notes failed: The authorization server did not authorize Agentbox (access_denied): connect again' })
      .waitFor()
    await row('notes').getByText('Not connected').waitFor()
    await s.shot('30-mcp-servers-refused-sign-in')

    await row('tickets').getByRole('button', { name: 'Paste a token for tickets' }).click()
    await page.getByLabel('Your token for tickets').fill('mia-ticket-token')
    await page.getByRole('button', { name: 'Save token' }).click()
    await row('tickets').getByText('Connected', { exact: true }).waitFor()
    page.once('dialog', (dialog) => void dialog.accept())
    await row('tickets').getByRole('button', { name: 'Disconnect from tickets' }).click()
    await page.getByRole('status').filter({ hasText: 'Disconnected from tickets.' }).waitFor()
    await row('tickets').getByText('Not connected').waitFor()
    const mine = await s.api(
      'GET',
      '/api/mcp-servers',
      undefined,
      (await s.api('POST', '/api/auth/login', { email: 'mia@example.com', password: 'a long enough password' })).access_token,
    )
    expect(mine.map((server: { name: string; connected: boolean }) => [server.name, server.connected])).toEqual([
      ['notes', false],
      ['tickets', false],
    ])
  })

  test('an admin removes a server for everyone', async () => {
    const { page } = s
    await s.signIn()
    await page.goto(`${s.base}/mcp-servers`)
    // The admin's own connections were kept while the member connected and disconnected.
    await row('tickets').getByText('Connected', { exact: true }).waitFor()
    page.once('dialog', (dialog) => void dialog.accept())
    await row('tickets').getByRole('button', { name: 'Remove tickets' }).click()
    await page.getByRole('status').filter({ hasText: 'tickets was removed.' }).waitFor()
    // The notice comes first; the list is read again after it.
    await row('tickets').waitFor({ state: 'detached' })
    expect(await row('tickets').count()).toBe(0)
    expect(s.pageErrors).toEqual([])
  })

  test('a token the server refuses and a server that cannot be reached are said plainly, never a blank page', async () => {
    const { page } = s
    const wiki = new TestMcpServer({ auth: 'bearer', bearerTokens: { 'the-right-token': 'ada@wiki' } })
    const gone = new TestMcpServer({ auth: 'none' })
    const goneUrl = gone.url
    gone.stop()
    try {
      for (const [name, url, auth] of [
        ['wiki', wiki.url, 'bearer'],
        ['gone', goneUrl, 'none'],
      ] as const) {
        await page.getByLabel('Name', { exact: true }).fill(name)
        await page.getByLabel('URL', { exact: true }).fill(url)
        await page.getByLabel('Sign-in').selectOption(auth)
        await page.getByRole('button', { name: 'Add server' }).click()
        await row(name).waitFor()
      }
      await row('gone').getByText('Ready (no sign-in)').waitFor()

      // A mistyped token is taken (only the server can judge it); the first listing finds it refused, and the row says so.
      await row('wiki').getByRole('button', { name: 'Paste a token for wiki' }).click()
      await page.getByLabel('Your token for wiki').fill('a-mistyped-token')
      await page.getByRole('button', { name: 'Save token' }).click()
      await row('wiki').getByText('Connected', { exact: true }).waitFor()
      await row('wiki').getByRole('button', { name: 'Show tools' }).click()
      await row('wiki').getByText('Not connected: The server refused the token: connect again on the MCP servers page of Agentbox').waitFor()
      expect(await row('wiki').getByRole('button', { name: 'Show tools' }).count()).toBe(0)
      await row('wiki').getByRole('button', { name: 'Disconnect from wiki' }).waitFor()
      expect(wiki.requests).toContain('Bearer a-mistyped-token')

      await row('gone').getByRole('button', { name: 'Show tools' }).click()
      await page.getByRole('alert').filter({ hasText: 'The tools of gone could not be listed: The MCP server cannot be reached' }).waitFor()
      // Unreachable is not the connection's fault: the server stays ready.
      await row('gone').getByText('Ready (no sign-in)').waitFor()
      await s.shot('30-mcp-servers-problems')

      // The right token connects again, and the tools come.
      await row('wiki').getByRole('button', { name: 'Paste a token for wiki' }).click()
      await page.getByLabel('Your token for wiki').fill('the-right-token')
      await page.getByRole('button', { name: 'Save token' }).click()
      await row('wiki').getByText('Connected', { exact: true }).waitFor()
      await row('wiki').getByRole('button', { name: 'Show tools' }).click()
      await page.getByRole('list', { name: 'Tools of wiki' }).getByText('wiki__whoami').waitFor()
      expect(s.pageErrors).toEqual([])
    } finally {
      wiki.stop()
    }
  })
})
