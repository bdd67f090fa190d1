// The console's context types, audit log and task run history in Chromium, against the compiled binary (issue 19):
// a context type created, refused as a duplicate (409 at its name), edited and deleted through the form; the audit log's
// table, filters and "Load more"; a task's runs and the output a run wrote. Screenshots go to test-results/console/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, followNav, hasChromium, startConsole } from './harness.ts'

describe.skipIf(!hasChromium)('console: context types, audit log, task runs', () => {
  let s: ConsoleSession

  beforeAll(async () => {
    s = await startConsole()
  }, 60_000)
  afterAll(async () => {
    await s?.stop()
  })

  test('context types: created through the form, a duplicate name (any case) refused at its field, edited, deleted; members cannot change others', async () => {
    const { page } = s
    await followNav(page, 'Context types')
    await page.getByRole('heading', { name: 'Context types', exact: true }).waitFor()
    await page.getByText('No context types yet.').waitFor()

    await page.getByLabel('Name', { exact: true }).fill('Meeting notes')
    await page.getByLabel('Summary', { exact: true }).fill('Notes taken in meetings')
    await page.getByLabel('When to use', { exact: true }).fill('When the user mentions a meeting.')
    await page.getByRole('button', { name: 'Create context type' }).click()
    await page.getByRole('status').filter({ hasText: 'Context type "Meeting notes" created.' }).waitFor()
    const row = page.getByRole('row', { name: /Meeting notes/ })
    await row.getByText('Notes taken in meetings').waitFor()
    await row.getByText('admin@example.com').waitFor()
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('')

    // Names are unique ignoring case: the 409 is said at the name field.
    await page.getByLabel('Name', { exact: true }).fill('MEETING NOTES')
    await page.getByRole('button', { name: 'Create context type' }).click()
    await page.locator('#context-type-name-error').filter({ hasText: 'A context type with this name already exists' }).waitFor()
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true')
    await s.shot('admin-context-types-duplicate')
    // A name of spaces only passes the browser's `required` and is the server's 422, also at the field.
    await page.getByLabel('Name', { exact: true }).fill('   ')
    await page.getByRole('button', { name: 'Create context type' }).click()
    await page.locator('#context-type-name-error').filter({ hasText: 'at least 1 character' }).waitFor()

    await page.getByRole('button', { name: 'Edit Meeting notes', exact: true }).click()
    await page.getByRole('heading', { name: 'Edit context type "Meeting notes"' }).waitFor()
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Meeting notes')
    expect(await page.getByLabel('When to use', { exact: true }).inputValue()).toBe('When the user mentions a meeting.')
    await page.getByLabel('Summary', { exact: true }).fill('Minutes and decisions of meetings')
    await page.getByRole('button', { name: 'Save context type' }).click()
    await page.getByRole('status').filter({ hasText: 'Context type "Meeting notes" saved.' }).waitFor()
    await row.getByText('Minutes and decisions of meetings').waitFor()
    await page.getByRole('heading', { name: 'Create a context type' }).waitFor()

    // Renaming onto another type's name is the same 409, at the same field.
    await s.api('POST', '/api/context-type', { name: 'Decisions', summary: 'Decisions taken' }, s.adminToken)
    await page.getByRole('button', { name: 'Edit Meeting notes', exact: true }).click()
    await page.getByLabel('Name', { exact: true }).fill('decisions')
    await page.getByRole('button', { name: 'Save context type' }).click()
    await page.locator('#context-type-name-error').filter({ hasText: 'already exists' }).waitFor()
    await page.getByRole('button', { name: 'Cancel editing' }).click()
    await page.getByRole('heading', { name: 'Create a context type' }).waitFor()
    await s.shot('admin-context-types-list')

    await page.getByRole('button', { name: 'Delete Meeting notes', exact: true }).click()
    await page.getByRole('button', { name: 'Confirm delete Meeting notes' }).click()
    await page.getByRole('status').filter({ hasText: 'Context type "Meeting notes" deleted.' }).waitFor()
    await page.getByRole('row', { name: /Meeting notes/ }).waitFor({ state: 'detached' })
    const left = (await s.api('GET', '/api/context-type', undefined, s.adminToken)) as { name: string }[]
    expect(left.map((c) => c.name)).toEqual(['Decisions'])

    // A member sees the admin's type but may not change it; their own they may.
    const member = await s.createMember('writer@example.com')
    await s.api('POST', '/api/context-type', { name: 'Drafts', summary: 'Unfinished texts' }, member.token)
    await s.signIn('writer@example.com')
    await followNav(page, 'Context types')
    await page
      .getByRole('row', { name: /Decisions/ })
      .getByText('Only its creator or an admin changes it')
      .waitFor()
    expect(await page.getByRole('button', { name: 'Edit Decisions' }).count()).toBe(0)
    await page.getByRole('button', { name: 'Edit Drafts', exact: true }).waitFor()
    await s.signIn()
    expect(s.pageErrors).toEqual([])
  }, 30_000)

  test('audit log: entries with actor, action, target and details; filtered by action, actor and dates; "Load more" pages', async () => {
    const { page } = s
    const member = await s.createMember('auditee@example.com')
    // 52 role changes by the admin: more than one page of 50.
    for (let i = 0; i < 26; i++) {
      await s.api('PATCH', `/api/users/${member.id}`, { role: 'admin' }, s.adminToken)
      await s.api('PATCH', `/api/users/${member.id}`, { role: 'member' }, s.adminToken)
    }
    await followNav(page, 'Audit log')
    await page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor()
    await page
      .getByRole('status')
      .filter({ hasText: /Showing 50 entries; more are available/ })
      .waitFor()
    const table = page.getByRole('table', { name: 'Audit log entries, newest first' })
    for (const header of ['Time', 'Actor', 'Action', 'Target', 'Details']) await table.getByRole('columnheader', { name: header }).waitFor()
    // Newest first: the last change (back to member) heads the list.
    const first = table.getByRole('row').nth(1)
    await first.getByText('user.role_change').waitFor()
    await first.getByText('admin@example.com').waitFor()
    expect(await first.getByRole('cell').nth(3).textContent()).toContain(member.id)
    expect(await first.getByRole('cell').nth(4).textContent()).toContain('auditee@example.com')
    await page.getByRole('button', { name: 'Load more' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: /^Showing \d+ entries\.$/ })
      .waitFor()
    const total = (await s.api('GET', '/api/audit?limit=500', undefined, s.adminToken)).length as number
    expect(await table.getByRole('row').count()).toBe(total + 1)
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0)

    // By action: the users created (the two members), each with its e-mail in the details.
    await page.getByLabel('Action', { exact: true }).fill('user.create')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByRole('status').filter({ hasText: 'Showing 2 entries.' }).waitFor()
    await table.getByRole('row', { name: /auditee@example\.com/ }).waitFor()
    await table.getByRole('row', { name: /writer@example\.com/ }).waitFor()
    await s.shot('admin-audit-filtered')

    // By actor: the member did nothing audited.
    await page.getByLabel('Action', { exact: true }).fill('')
    await page.getByLabel('Actor').selectOption({ label: 'auditee@example.com' })
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByRole('status').filter({ hasText: 'No entries match.' }).waitFor()
    await table.waitFor({ state: 'detached' })

    // By dates: from tomorrow nothing; today, everything; an end before the start is blamed on the end.
    const day = (offset: number) => page.evaluate((n) => new Date(Date.now() + n * 86_400_000).toLocaleDateString('en-CA'), offset)
    await page.getByLabel('Actor').selectOption({ label: 'admin@example.com' })
    await page.getByLabel('From (date)').fill(await day(1))
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByRole('status').filter({ hasText: 'No entries match.' }).waitFor()
    await page.getByLabel('From (date)').fill(await day(0))
    await page.getByLabel('To (date, inclusive)').fill(await day(-1))
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.locator('#audit-to-error').filter({ hasText: 'before the start' }).waitFor()
    await page.getByLabel('To (date, inclusive)').fill(await day(0))
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: /Showing 50 entries; more are available/ })
      .waitFor()

    // On a phone the table turns into cards: nothing scrolls sideways.
    await page.setViewportSize({ width: 375, height: 800 })
    try {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }

    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.waitForFunction(() => (document.getElementById('audit-from') as HTMLInputElement | null)?.value === '')
    await page
      .getByRole('status')
      .filter({ hasText: /Showing 50 entries/ })
      .waitFor()
    expect(s.pageErrors).toEqual([])
  }, 30_000)

  test("task runs: a task's runs (status, duration) and a run's output, polled while running; another's output is theirs", async () => {
    const { page } = s
    const body = { name: 'Standup digest', prompt: 'Summarise the standup.', schedule: { frequency: 'manual' }, chat_model: { provider: 'mock' } }
    const task = await s.api('POST', '/api/task', body, s.adminToken)
    await page.getByRole('link', { name: 'Tasks' }).click()
    await page.getByRole('heading', { name: 'Tasks', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Runs of Standup digest' }).click()
    await page.getByRole('heading', { name: 'Runs of "Standup digest"' }).waitFor()
    expect(await page.getByRole('button', { name: 'Runs of Standup digest' }).getAttribute('aria-expanded')).toBe('true')
    await page.getByRole('status').filter({ hasText: 'This task has not run yet.' }).waitFor()

    // Run from the page: the open list picks it up and follows it until it ends.
    await page.getByRole('button', { name: 'Run now Standup digest' }).click()
    const runs = page.getByRole('table', { name: 'Runs of Standup digest, newest first' })
    await runs.getByRole('row').nth(1).getByText('Succeeded').waitFor()
    await runs.getByRole('row').nth(1).getByText('Manual').waitFor()
    expect(await runs.getByRole('row').nth(1).getByRole('cell').nth(2).textContent()).toMatch(/^(< )?\d+(\.\d)? s$/)

    // And one through the API: "Refresh runs" lists it first.
    await s.api('POST', `/api/task/${task.id}/run`, undefined, s.adminToken)
    await page.getByRole('button', { name: 'Refresh runs' }).click()
    await page.getByRole('status').filter({ hasText: '2 runs' }).waitFor()
    expect(await runs.getByRole('row').count()).toBe(3)
    await runs.getByRole('row').nth(1).getByText('Succeeded').waitFor()

    await runs
      .getByRole('row')
      .nth(1)
      .getByRole('button', { name: /^Show output/ })
      .click()
    const output = page.getByRole('region', { name: /^Output of the run started/ })
    const messages = output.getByRole('list', { name: 'Messages of the run' })
    // Only this run's messages: its prompt and the mock's reply.
    await messages.getByRole('listitem').nth(1).getByText('Model reply').waitFor()
    await messages
      .getByRole('listitem')
      .nth(1)
      .getByText(/\[mock reply\].*Summarise the standup\./)
      .waitFor()
    await messages.getByRole('listitem').nth(0).getByText('Prompt').waitFor()
    await messages.getByRole('listitem').nth(0).getByText('Summarise the standup.').waitFor()
    expect(await messages.getByRole('listitem').count()).toBe(2)
    await s.shot('admin-task-run-output')
    await page.setViewportSize({ width: 375, height: 800 })
    try {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await s.shot('admin-task-run-output-phone')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
    await runs
      .getByRole('row')
      .nth(1)
      .getByRole('button', { name: /^Hide output/ })
      .click()
    await output.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Close runs' }).click()
    await page.getByRole('heading', { name: 'Runs of "Standup digest"' }).waitFor({ state: 'detached' })

    // A member's public task: the admin sees its runs and, as an admin may read any thread, what they wrote.
    const member = await s.createMember('runner@example.com')
    const theirs = await s.api('POST', '/api/task', { ...body, name: 'Their digest', visibility: 'public' }, member.token)
    await s.api('POST', `/api/task/${theirs.id}/run`, undefined, member.token)
    await page.reload()
    await page.getByRole('button', { name: 'Runs of Their digest' }).click()
    const theirRuns = page.getByRole('table', { name: 'Runs of Their digest, newest first' })
    await theirRuns.getByRole('row').nth(1).getByText('Succeeded').waitFor()
    await theirRuns.getByRole('button', { name: /^Show output/ }).click()
    const theirMessages = page.getByRole('list', { name: 'Messages of the run' })
    await theirMessages.getByRole('listitem').nth(1).getByText('Model reply').waitFor()
    expect(await theirMessages.getByRole('listitem').count()).toBe(2)
    expect(s.pageErrors).toEqual([])
  }, 30_000)
})
