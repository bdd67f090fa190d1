// Bundles and the marketplace in Chromium: search the catalog, see what an install will create before committing it,
// install; export the agent as a bundle from its page; import that bundle on the agents page (checked first, then
// imported, its application reused); a file that is not a bundle shows its problems; an admin publishes to the catalog.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { unzipSync } from 'fflate'
import { type ConsoleSession, followNav, hasChromium, startConsole } from './harness.ts'

describe.skipIf(!hasChromium)('bundles and the marketplace in the console', () => {
  let s: ConsoleSession

  beforeAll(async () => {
    s = await startConsole()
    s.page.on('dialog', (dialog) => void dialog.accept())
  }, 60_000)

  afterAll(async () => {
    await s?.stop()
  })

  test('search, plan and install a built-in agent; export it; import the bundle as a copy; publish it to the organisation catalog', async () => {
    const { page, base } = s
    await page.goto(`${base}/overview`)
    await followNav(page, 'Marketplace')
    await page.getByRole('heading', { name: 'Marketplace', level: 1 }).waitFor()
    await page.getByTestId('entry-expense-approval').waitFor()
    await page.getByTestId('entry-incident-triage').waitFor()

    // Search narrows the list.
    await page.getByLabel('Search the marketplace').fill('severity')
    await page.getByText('1 entry.').waitFor()
    expect(await page.getByTestId('entry-expense-approval').count()).toBe(0)
    await page.getByLabel('Search the marketplace').fill('')
    await page.getByText('2 entries.').waitFor()

    // Install: the plan first, nothing created until Install.
    const entry = page.getByTestId('entry-expense-approval')
    await entry.getByRole('button', { name: 'Install…' }).click()
    await entry.getByRole('button', { name: 'Check' }).click()
    const plan = entry.getByTestId('import-plan')
    await plan.waitFor()
    expect(await plan.textContent()).toContain('Agent expense-approval will be created with version 1 live.')
    expect(await plan.getByRole('row', { name: /expenses-api/ }).textContent()).toContain('Created')
    expect(await s.api('GET', '/api/agents', undefined, s.adminToken)).toEqual([])
    await s.shot('marketplace-install-plan')
    await entry.getByRole('button', { name: 'Install', exact: true }).click()
    await page.getByRole('heading', { name: 'expense-approval', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/agents/expense-approval')

    // Export the live version from the agent's page.
    await page.getByLabel('Export', { exact: true }).selectOption('live')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download bundle' }).click()])
    expect(download.suggestedFilename()).toBe('expense-approval-v1.zip')
    const bundlePath = await download.path()
    const files = unzipSync(new Uint8Array(readFileSync(bundlePath)))
    expect(Object.keys(files).sort()).toEqual([
      'agent.json',
      'applications/expenses-api/openapi.json',
      'manifest.json',
      'skills/expense-policy/SKILL.md',
      'workflows/review-expense.json',
    ])

    // A file that is not a bundle: its problem is shown, nothing imported.
    await page.goto(`${base}/agents`)
    await page.getByRole('heading', { name: 'Import an agent from a bundle' }).waitFor()
    await page.getByLabel('Bundle (.zip)').setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from('not a zip') })
    await page.getByRole('button', { name: 'Check bundle' }).click()
    expect(await page.getByTestId('bundle-problems').textContent()).toContain('not a zip archive')

    // The exported bundle: checked (the application is reused), then imported under a new name.
    await page.getByLabel('Bundle (.zip)').setInputFiles(bundlePath)
    await page.getByLabel('Import as (optional)').fill('expense-copy')
    await page.getByRole('button', { name: 'Check bundle' }).click()
    const importPlan = page.getByTestId('import-plan')
    await importPlan.waitFor()
    expect(await importPlan.textContent()).toContain('Reused: the same document is already here')
    await s.shot('bundle-import-plan')
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByRole('heading', { name: 'expense-copy', level: 1 }).waitFor()
    expect((await s.api('GET', '/api/agents/expense-copy', undefined, s.adminToken)).live_version).toBe(1)

    // An admin publishes the agent to the organisation catalog; it is listed with who published it.
    await page.goto(`${base}/marketplace`)
    await page.getByRole('heading', { name: 'Publish an agent to the organisation catalog' }).waitFor()
    await page.getByLabel('Agent', { exact: true }).selectOption('expense-copy')
    await page.getByRole('button', { name: 'Publish' }).click()
    await page.getByText('Published expense-copy v1.').waitFor()
    const published = page.getByTestId('entry-expense-copy')
    await published.waitFor()
    expect(await published.textContent()).toContain('Published by admin@example.com')
    await s.shot('marketplace')
    expect(s.pageErrors).toEqual([])
  }, 60_000)
})
