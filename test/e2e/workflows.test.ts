// Workflows in the agent designer, in Chromium: a workflow with an approval gate pasted as JSON and drawn as a graph
// (nodes, port labels), a save refused with the error placed on its node, a dry run of the draft with its steps, then
// (published through the API) a live run from the Live tab that waits at the gate, found in the runs history and
// cancelled; and what a viewer gets: the live version's workflow, read-only, with Run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, hasChromium, startConsole } from './harness.ts'

const AGENT = 'refund-desk'

const gateFlow = (gateParams: Record<string, unknown> = {}) => ({
  nodes: [
    { id: 'prep', type: 'agentbox.set', params: { values: { amount: '{{ $json.amount }}', note: 'refund' } } },
    { id: 'gate', type: 'agentbox.approval', name: 'Manager approval', params: { message: 'Refund {{ $json.amount }}?', ...gateParams } },
    { id: 'out', type: 'agentbox.output', params: { value: '{{ $json }}' } },
    { id: 'no', type: 'agentbox.output', params: { value: { rejected: true } } },
  ],
  connections: [
    { from: 'prep', to: 'gate' },
    { from: 'gate', port: 'approved', to: 'out' },
    { from: 'gate', port: 'rejected', to: 'no' },
  ],
})

describe.skipIf(!hasChromium)('workflows in the agent designer', () => {
  let s: ConsoleSession
  let viewer: { id: string; token: string }

  beforeAll(async () => {
    s = await startConsole()
    viewer = await s.createMember('viewer@example.com')
    await s.api('POST', '/api/agents', { name: AGENT, description: 'Refunds with a human in the loop', instructions: 'Be careful.' }, s.adminToken)
    await s.api('POST', `/api/agents/${AGENT}/members`, { email: 'viewer@example.com', role: 'viewer' }, s.adminToken)
    s.page.on('dialog', (dialog) => void dialog.accept())
  }, 60_000)

  afterAll(async () => {
    await s?.stop()
  })

  test('an owner pastes, saves (an error at its node), dry-runs, then runs live, finds the run in the history and cancels it', async () => {
    const { page, base } = s
    await page.goto(`${base}/agents/${AGENT}`)
    const design = page.getByRole('tab', { name: 'Design' })
    if (await design.count()) await design.click()
    const panel = page.locator('section.wf-panel')
    await panel.getByRole('heading', { name: 'Workflows' }).waitFor()
    await panel.getByText('No workflows in the draft yet.').waitFor()

    // New: paste the definition; the graph follows the JSON (nodes, ports on the arrows).
    await panel.getByRole('button', { name: 'New workflow' }).click()
    await panel.getByLabel('Workflow name').fill('refunds')
    const json = panel.getByLabel('Definition (JSON)')
    await json.fill(JSON.stringify(gateFlow(), null, 2))
    const graph = panel.locator('.wf-design svg[role="img"]')
    await graph.locator('[data-node="no"]').waitFor()
    for (const id of ['prep', 'gate', 'out']) await graph.locator(`[data-node="${id}"]`).waitFor()
    expect(await graph.locator('[data-node="gate"]').textContent()).toContain('Manager approval')
    expect(await graph.locator('.wf-port text').allTextContents()).toEqual(expect.arrayContaining(['approved', 'rejected']))
    expect(await graph.getAttribute('aria-label')).toContain('4 steps, 3 connections')
    // The steps as a list, for screen readers.
    expect(await panel.locator('.wf-design ol.sr-only').textContent()).toContain('gate (Manager approval): approval; leads to out (approved), no (rejected)')
    // JSON that does not parse yet keeps the last graph and says so.
    await json.fill('{"nodes": [')
    await panel.getByText(/Not valid JSON yet/).waitFor()
    expect(await graph.locator('[data-node]').count()).toBe(4)
    await json.fill(JSON.stringify(gateFlow(), null, 2))
    await panel.getByRole('button', { name: 'Create workflow' }).click()
    await panel.getByText('Saved refunds in the draft.').waitFor()
    await panel.getByRole('button', { name: /^refunds/ }).waitFor()

    // An invalid definition: the 422 is listed under the editor with its node, and the node is marked in the graph.
    await panel.getByLabel('Definition (JSON)').fill(JSON.stringify(gateFlow({ timeout_s: 0 }), null, 2))
    await panel.getByRole('button', { name: 'Save', exact: true }).click()
    const problem = panel.locator('.wf-problems li[data-node="gate"]')
    await problem.waitFor()
    expect(await problem.textContent()).toContain('Node gate (params.timeout_s): timeout_s must be an integer')
    await panel.locator('.wf-design svg [data-node="gate"].wf-problem').waitFor()
    expect(await panel.locator('.wf-design svg .wf-problem').count()).toBe(1)
    expect(await panel.getByLabel('Definition (JSON)').getAttribute('aria-invalid')).toBe('true')
    await s.shot('workflows-save-error')
    // Fixed and saved again: the marks go.
    await panel.getByLabel('Definition (JSON)').fill(JSON.stringify(gateFlow({ timeout_s: 3600 }), null, 2))
    await panel.getByRole('button', { name: 'Save', exact: true }).click()
    await panel.locator('.wf-problems').waitFor({ state: 'detached' })
    await panel.getByText('Saved refunds in the draft.').waitFor()

    // A dry run of the draft (the owner's default): every step with its status; the gate approves by default.
    await panel.getByLabel('Input (JSON)').fill('{"amount": 5}')
    await panel.getByRole('button', { name: 'Dry run', exact: true }).click()
    const run = panel.locator('section.wf-run')
    await run.getByText('Status: succeeded').waitFor()
    expect(await run.getByRole('heading').first().textContent()).toBe('Dry run of refunds (draft)')
    const steps = run.locator('table.wf-steps tbody tr')
    // Each step with its status (the branch not taken is skipped) and its time.
    const statusOf = () =>
      steps.evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-step')} ${r.querySelector('[data-label="Status"]')?.textContent}`))
    expect(await statusOf()).toEqual(['prep succeeded', 'gate succeeded (simulated)', 'no skipped', 'out succeeded'])
    expect(await run.locator('tr[data-step="prep"] [data-label="Time"]').textContent()).toMatch(/^\d+ ms$/)
    expect(await run.locator('tr[data-step="gate"]').textContent()).toContain('approved')
    expect(JSON.parse((await run.getByTestId('run-result').textContent()) ?? 'null')).toMatchObject({ amount: 5, note: 'refund' })
    await run.locator('svg [data-node="out"].wf-status-succeeded').waitFor()
    // A rejection through step data takes the rejected port.
    await panel.getByText('Step data for dry runs').click()
    await panel.getByLabel('Step data (JSON)').fill('{"gate": {"decision": "reject", "reason": "too much"}}')
    await panel.getByRole('button', { name: 'Dry run', exact: true }).click()
    // (The first dry run's view is replaced: wait for the new result.)
    await run.getByTestId('run-result').filter({ hasText: '"rejected": true' }).waitFor()
    expect(await run.locator('tr[data-step="gate"] [data-label="Port"]').textContent()).toBe('rejected')
    expect(JSON.parse((await run.getByTestId('run-result').textContent()) ?? 'null')).toEqual({ rejected: true })
    // Dry runs are not recorded.
    await panel.getByText('No recorded runs yet (dry runs are not recorded).').waitFor()

    // Published through the API; the Live tab runs the live version: it waits at the gate.
    await s.api('POST', `/api/agents/${AGENT}/publish`, {}, s.adminToken)
    await page.goto(`${base}/agents/${AGENT}`)
    await page.getByRole('tab', { name: 'Live' }).click()
    const live = page.locator('section.wf-panel')
    await live.getByRole('button', { name: /^refunds/ }).waitFor()
    expect(await live.getByLabel('Definition (JSON, read-only)').getAttribute('readonly')).not.toBeNull()
    expect(await live.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0)
    await live.getByLabel('Input (JSON)').fill('{"amount": 12}')
    await live.getByRole('button', { name: 'Run', exact: true }).click()
    const liveRun = live.locator('section.wf-run')
    await liveRun.getByText('Status: waiting for approval').waitFor()
    expect(await liveRun.getByRole('heading').first().textContent()).toBe('Run of refunds (live v1)')
    await liveRun.getByText('Waiting at gate: Refund 12?').waitFor()
    expect(await liveRun.getByRole('link', { name: 'Decide it in Approvals' }).getAttribute('href')).toBe('/approvals')
    await liveRun.locator('svg [data-node="gate"].wf-status-waiting_human').waitFor()

    // The history has it; opening it shows the recorded steps; Cancel ends it.
    const history = live.locator('table.wf-history tbody tr')
    await history.first().waitFor()
    expect(await history.count()).toBe(1)
    expect(await history.first().textContent()).toContain('waiting for approval')
    await page.reload()
    await page.getByRole('tab', { name: 'Live' }).click()
    await history.first().waitFor()
    await history
      .first()
      .getByRole('button', { name: /^Open run/ })
      .click()
    await liveRun.getByText('Status: waiting for approval').waitFor()
    expect(await liveRun.locator('table.wf-steps tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step')))).toEqual(['prep', 'gate'])
    await s.shot('workflows-live-run')
    await liveRun.getByRole('button', { name: 'Cancel run' }).click()
    await liveRun.getByText('Status: cancelled').waitFor()
    await history.first().getByText('cancelled').waitFor()
    expect(await liveRun.getByRole('button', { name: 'Cancel run' }).count()).toBe(0)

    expect(s.pageErrors).toEqual([])
  }, 40_000)

  test('a viewer sees the live workflow read-only and runs it', async () => {
    const { page, base } = s
    await s.signIn('viewer@example.com')
    await page.goto(`${base}/agents/${AGENT}`)
    const liveTab = page.getByRole('tab', { name: 'Live' })
    if ((await liveTab.count()) && (await liveTab.getAttribute('aria-selected')) !== 'true') await liveTab.click()
    const panel = page.locator('section.wf-panel')
    await panel.getByText("The live version's workflows (read-only).", { exact: false }).waitFor()
    await panel.locator('svg[role="img"] [data-node="gate"]').first().waitFor()
    expect(await panel.getByRole('button', { name: 'New workflow' }).count()).toBe(0)
    expect(await panel.getByRole('group', { name: 'Version' }).count()).toBe(0)
    await panel.getByLabel('Input (JSON)').fill('{"amount": 3}')
    await panel.getByRole('button', { name: 'Run', exact: true }).click()
    await panel.locator('section.wf-run').getByText('Status: waiting for approval').waitFor()
    // Members see only their own runs: the admin's cancelled run is not in the viewer's history.
    const rows = panel.locator('table.wf-history tbody tr')
    await rows.first().waitFor()
    expect(await rows.count()).toBe(1)
    expect(viewer.id).toBeTruthy()
    expect(s.pageErrors).toEqual([])
  }, 30_000)
})
