// The whole journey of issue 19 in one browser session, the way a new admin builds an agent without the API: create an
// agent, add a skill (a validation error first, then fixed), build a workflow with an approval gate, dry-run it,
// publish, run it live, approve it on the Approvals page, find the run in the history, restore v1 and switch live.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, hasChromium, startConsole } from './harness.ts'

const skillMd = (name: string) => `---\nname: ${name}\ndescription: How to word a refund answer.\n---\n\nThank the customer, then give the amount.\n`
const refundFlow = {
  nodes: [
    { id: 'prep', type: 'agentbox.set', params: { values: { amount: '{{ $json.amount }}' } } },
    { id: 'gate', type: 'agentbox.approval', params: { message: 'Refund {{ $json.amount }}?' } },
    { id: 'out', type: 'agentbox.output', params: { value: '{{ $json }}' } },
  ],
  connections: [
    { from: 'prep', to: 'gate' },
    { from: 'gate', port: 'approved', to: 'out' },
  ],
}

describe.skipIf(!hasChromium)('the agent designer, end to end', () => {
  let session: ConsoleSession
  beforeAll(async () => {
    session = await startConsole()
  }, 120_000)
  afterAll(() => session?.stop())

  test('create → skill → workflow → dry run → publish → live run → approve → history → restore v1 → switch live', async () => {
    const { page, base } = session
    // Create the agent.
    await page.goto(`${base}/agents`)
    await page.getByLabel('Name').fill('Refund Desk')
    expect(await page.getByTestId('normalised-name').textContent()).toBe('refund-desk')
    await page.getByLabel('Description').fill('Handles refunds')
    await page.getByLabel('Instructions').fill('Be kind.')
    await page.getByRole('button', { name: 'Create agent' }).click()
    await page.getByRole('heading', { name: 'refund-desk', level: 1 }).waitFor()
    const status = page.getByTestId('agent-status')

    // A skill: a validation error shown on its line, then fixed and saved.
    const skills = page.locator('section', { has: page.getByRole('heading', { name: 'Skills' }) }).last()
    await skills.getByRole('button', { name: 'Add a skill' }).click()
    const editor = skills.getByLabel('SKILL.md', { exact: true })
    await editor.fill(skillMd('Refund-Tone'))
    await skills.getByRole('button', { name: /^Error · line 2 \(name\)/ }).waitFor()
    expect(await skills.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true)
    await editor.fill(skillMd('refund-tone'))
    await skills.getByText('No problems found.').waitFor()
    await skills.getByRole('button', { name: 'Save', exact: true }).click()
    await skills.getByText('Saved the skill refund-tone.').waitFor()
    // Renamed by editing its frontmatter name (it keeps its id).
    await skills.getByRole('button', { name: 'Edit refund-tone' }).click()
    await editor.fill(skillMd('refund-voice'))
    await skills.getByText('No problems found.').waitFor()
    await skills.getByRole('button', { name: 'Save', exact: true }).click()
    await skills.getByText('Saved the skill refund-voice.').waitFor()

    // A workflow with an approval gate, dry-run on the draft.
    const flows = page.locator('section.wf-panel')
    await flows.getByRole('button', { name: 'New workflow' }).click()
    await flows.getByLabel('Workflow name').fill('refund')
    await flows.getByLabel('Definition (JSON)').fill(JSON.stringify(refundFlow, null, 2))
    await flows.locator('[data-node="gate"]').first().waitFor()
    await flows.getByRole('button', { name: 'Create workflow' }).click()
    await flows.getByText('Saved refund in the draft.').waitFor()
    await flows.getByLabel('Input (JSON)').fill('{"amount": 7}')
    await flows.getByRole('button', { name: 'Dry run', exact: true }).click()
    await flows.locator('section.wf-run').getByText('Status: succeeded').waitFor()

    // Publish v1.
    await page.getByLabel('Note (optional)').fill('First')
    await page.getByRole('button', { name: 'Publish' }).click()
    await status.getByText('Live: v1').waitFor()
    await session.shot('journey-1-published')

    // Run it live: it waits at the gate; approve it on the Approvals page.
    await page.getByRole('tab', { name: 'Live' }).click()
    const live = page.locator('section.wf-panel')
    await live
      .getByRole('button', { name: /^refund/ })
      .first()
      .click()
    await live.getByLabel('Input (JSON)').fill('{"amount": 9}')
    await live.getByRole('button', { name: 'Run', exact: true }).click()
    await live.locator('section.wf-run').getByText('Status: waiting for approval').waitFor()
    await page.getByRole('link', { name: 'Approvals' }).first().click()
    await page.getByText('Refund 9?').waitFor()
    await page.getByRole('button', { name: 'Approve' }).click()
    await page.getByText('Nothing is waiting for your approval.').waitFor()

    // The run is in the workflow's history, succeeded.
    await page.goto(`${base}/agents/refund-desk/live`)
    const history = page.locator('section.wf-panel')
    await history
      .getByRole('button', { name: /^refund/ })
      .first()
      .click()
    await history
      .getByRole('button', { name: /^Open run/ })
      .first()
      .click()
    await history.locator('section.wf-run').getByText('Status: succeeded').waitFor()

    // Change the draft, publish v2, then bring v1 back into the draft and make v1 live again.
    await page.getByRole('tab', { name: 'Design' }).click()
    await page.getByLabel('Instructions').fill('Be kind and quick.')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.getByText('Draft saved. Publish it to make it live.').waitFor()
    await page.getByRole('button', { name: 'Publish' }).click()
    await status.getByText('Live: v2').waitFor()
    await page.getByRole('tab', { name: 'Versions' }).click()
    const v1 = page.getByRole('row', { name: /^v1\b|^1\b/ }).first()
    page.once('dialog', (dialog) => dialog.accept())
    await v1.getByRole('button', { name: /Restore/ }).click()
    await page.getByText('v1 restored into the draft.').waitFor()
    page.once('dialog', (dialog) => dialog.accept())
    await v1.getByRole('button', { name: /Switch live/ }).click()
    await page.getByText('v1 is live now.').waitFor()
    await status.getByText('Live: v1').waitFor()
    await session.shot('journey-2-v1-live')
    expect(session.pageErrors).toEqual([])
  }, 60_000)
})
