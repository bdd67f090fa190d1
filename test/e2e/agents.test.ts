// The agent designer in Chromium: create an agent through the form (the name normalised live, a taken name refused at
// the field), edit the draft (Draft chip), publish with a note, compare a version with the draft, restore, switch live,
// share with a viewer, and what that viewer sees (only the Live tab).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, hasChromium, startConsole } from './harness.ts'

describe.skipIf(!hasChromium)('agents in the console', () => {
  let s: ConsoleSession

  /** A two-operation OpenAPI description imported as `name`. */
  const importApplication = async (name: string) => {
    const spec = {
      openapi: '3.1.0',
      info: { title: `${name} API`, version: '1.0.0' },
      servers: [{ url: 'https://example.invalid' }],
      paths: {
        '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } },
        '/pets/{id}': {
          get: {
            operationId: 'getPet',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    }
    const form = new FormData()
    form.set('file', new File([JSON.stringify(spec)], 'spec.json', { type: 'application/json' }))
    form.set('api_name', name)
    const res = await fetch(`${s.base}/api/spec_from_file/`, { method: 'POST', headers: { authorization: `Bearer ${s.adminToken}` }, body: form })
    if (res.status !== 201) throw new Error(`import ${name}: ${res.status} ${await res.text()}`)
  }

  beforeAll(async () => {
    s = await startConsole()
    await s.createMember('viewer@example.com')
    // Confirmations (restore, switch live) are accepted.
    s.page.on('dialog', (dialog) => void dialog.accept())
  }, 60_000)

  afterAll(async () => {
    await s?.stop()
  })

  test('an owner designs, publishes, versions and shares an agent; a viewer sees only Live', async () => {
    const { page, base } = s
    const status = page.getByTestId('agent-status')
    const draftChip = status.getByText('Draft', { exact: true })

    await importApplication('petstore')
    await importApplication('doomed')

    // The list, and the form: the name is shown as it will be created while typing.
    await page.goto(`${base}/agents`)
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor()
    await page.getByLabel('Name').fill('Sales Helper_Bot')
    expect(await page.getByTestId('normalised-name').textContent()).toBe('sales-helper-bot')
    await page.getByLabel('Description').fill('Helps the sales team')
    expect(await page.locator('#new-agent-description-count').textContent()).toBe('20 / 300 characters')
    await page.getByLabel('Instructions').fill('Be brief.\nAnswer in English.')
    await page.getByRole('button', { name: 'Create agent' }).click()

    // The agent page: owners see every tab, the draft is unpublished.
    await page.getByRole('heading', { name: 'sales-helper-bot', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/agents/sales-helper-bot')
    const tabs = page.getByRole('tablist').getByRole('tab')
    // The tabs come with the agent's record, which may arrive after the heading on a busy machine.
    await tabs.filter({ hasText: 'Live' }).waitFor()
    expect(await tabs.allTextContents()).toEqual(['Design', 'Versions', 'Members', 'Live'])
    expect(await page.getByRole('tab', { name: 'Design' }).getAttribute('aria-selected')).toBe('true')
    await draftChip.waitFor()
    expect(await status.textContent()).toContain('Not published yet')

    // Applications: one with a chosen operation; one that disappears before Save is refused on its entry.
    await page.getByLabel('Add an application').selectOption('petstore')
    await page.getByRole('button', { name: 'Add application' }).click()
    await page.getByLabel('Add an application').selectOption('doomed')
    await page.getByRole('button', { name: 'Add application' }).click()
    await page.getByLabel('All operations (2)').first().uncheck()
    await page.getByRole('checkbox', { name: /listPets/ }).check()
    await s.api('DELETE', '/api/applications/doomed', undefined, s.adminToken)
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.locator('#use-doomed-error', { hasText: "Application not found: 'doomed'" }).waitFor()
    await page.getByRole('button', { name: 'Remove doomed' }).click()
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.getByText('Draft saved. Publish it to make it live.').waitFor()
    expect((await s.api('GET', '/api/agents/sales-helper-bot', undefined, s.adminToken)).applications).toEqual([
      { api_name: 'petstore', operation_ids: ['listPets'] },
    ])

    // Publish with a note: v1 is live and the Draft chip goes.
    await page.getByLabel('Note (optional)').fill('First version')
    await page.getByRole('button', { name: 'Publish' }).click()
    await page.getByText('Published v1: it is live now.').waitFor()
    await status.getByText('Live: v1').waitFor()
    await draftChip.waitFor({ state: 'detached' })

    // Publishing again with nothing changed: the API's 409 is shown.
    await page.getByRole('button', { name: 'Publish' }).click()
    await page.getByText('Nothing to publish: the draft matches the live version').waitFor()

    // Edit the instructions and save: the Draft chip is back.
    await page.getByLabel('Instructions').fill('Be brief.\nAnswer in French.')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.getByText('Draft saved. Publish it to make it live.').waitFor()
    await draftChip.waitFor()
    await s.shot('agents-design')

    // Compare v1 with the draft: the changed line is removed and added. The tabs follow the arrow keys.
    await page.getByRole('tab', { name: 'Design' }).focus()
    await page.keyboard.press('ArrowRight')
    await page.getByRole('tab', { name: 'Versions', selected: true }).waitFor()
    // Focus follows on the next animation frame (after the render): waited for, not read at once.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Versions')
    expect(new URL(page.url()).pathname).toBe('/agents/sales-helper-bot/versions')
    const v1 = page.locator('tr[data-version="1"]')
    expect(await v1.textContent()).toContain('First version')
    expect(await v1.textContent()).toContain('admin@example.com')
    await v1.getByRole('button', { name: /Compare with draft/ }).click()
    const diff = page.getByTestId('diff')
    await diff.locator('ins', { hasText: 'Answer in French.' }).waitFor()
    expect(await diff.locator('del').allTextContents()).toEqual([expect.stringContaining('Answer in English.')])
    expect(await diff.textContent()).toContain('Description — no changes')
    await s.shot('agents-compare')

    // Publish the change as v2, then restore v1 into the draft and make v1 live again.
    await page.getByRole('tab', { name: 'Design' }).click()
    await page.getByLabel('Note (optional)').fill('French')
    await page.getByRole('button', { name: 'Publish' }).click()
    await status.getByText('Live: v2').waitFor()
    await draftChip.waitFor({ state: 'detached' })
    await page.getByRole('tab', { name: 'Versions' }).click()
    await v1.getByRole('button', { name: /Restore/ }).click()
    await page.getByText('v1 restored into the draft.').waitFor()
    await draftChip.waitFor()
    await v1.getByRole('button', { name: /Switch live/ }).click()
    await page.getByText('v1 is live now.').waitFor()
    await status.getByText('Live: v1').waitFor()
    await draftChip.waitFor({ state: 'detached' })
    // The versions list is fetched again after the switch: its v1 row gets the Live chip when that answer is in.
    await v1.locator('.chip-live', { hasText: 'Live' }).waitFor()
    expect(await v1.textContent()).toContain('Live')

    // Members: an unknown e-mail is refused at the field; the viewer is added.
    await page.getByRole('tab', { name: 'Members' }).click()
    await page.getByLabel('E-mail').fill('nobody@example.com')
    await page.getByRole('button', { name: 'Add member' }).click()
    await page.locator('#member-email-error', { hasText: 'No active user with this e-mail' }).waitFor()
    await page.getByLabel('E-mail').fill('viewer@example.com')
    await page.getByRole('button', { name: 'Add member' }).click()
    await page.getByRole('row', { name: /viewer@example.com/ }).waitFor()
    expect(await page.getByLabel('Role of viewer@example.com').inputValue()).toBe('viewer')
    // The last owner cannot become a viewer: the API's 409 is shown and the role stays.
    await page.getByLabel('Role of admin@example.com').selectOption('viewer')
    await page.getByText('An agent must keep at least one owner').waitFor()
    expect(await page.getByLabel('Role of admin@example.com').inputValue()).toBe('owner')
    await s.shot('agents-members')

    // The Live tab: the live version's text and the MCP URLs.
    await page.getByRole('tab', { name: 'Live' }).click()
    expect(await page.getByTestId('live-instructions').textContent()).toBe('Be brief.\nAnswer in English.')
    expect(await page.getByTestId('live-applications').textContent()).toBe('petstore: listPets')
    expect(await page.getByLabel('MCP URL').first().inputValue()).toBe(`${base}/agent/sales-helper-bot/mcp`)
    // What the live URL offers the signed-in owner: how the operations come, and the tools in order.
    const offer = page.getByTestId('mcp-operation-mode').first()
    await offer.waitFor()
    expect(await offer.getAttribute('data-mode')).toBe('per_operation')
    expect(await offer.textContent()).toBe("1 API operation, one tool each (the organisation's limit is 64).")
    await page.getByText('Tools you see (3)').first().waitFor()

    // Back on the list: search, and a taken name is refused at the name field.
    await page.getByRole('link', { name: 'All agents' }).click()
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor()
    await page.getByLabel('Search agents').fill('sales team')
    await page.getByRole('link', { name: 'sales-helper-bot' }).waitFor()
    await page.getByLabel('Search agents').fill('nothing like this')
    await page.getByText('0 of 1 agents match.').waitFor()
    await s.shot('agents-list')
    await page.getByLabel('Name').fill('sales helper bot')
    await page.getByLabel('Description').fill('Again')
    await page.getByLabel('Instructions').fill('Again')
    await page.getByRole('button', { name: 'Create agent' }).click()
    await page.locator('#new-agent-name-error', { hasText: "An agent named 'sales-helper-bot' already exists" }).waitFor()
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true')

    // The viewer: only the Live tab.
    await s.signIn('viewer@example.com')
    await page.goto(`${base}/agents`)
    await page.getByRole('link', { name: 'sales-helper-bot' }).click()
    await page.getByRole('heading', { name: 'sales-helper-bot', level: 1 }).waitFor()
    await page.getByTestId('live-description').waitFor()
    expect(await page.getByRole('tablist').getByRole('tab').allTextContents()).toEqual(['Live'])
    expect(await page.getByRole('tab', { name: 'Design' }).count()).toBe(0)
    expect(await page.getByTestId('live-description').textContent()).toBe('Helps the sales team')
    await s.shot('agents-viewer')
    await page.evaluate(() => (document.documentElement.dir = 'rtl'))
    await s.shot('agents-viewer-rtl')

    expect(s.pageErrors).toEqual([])
  }, 60_000)
})
