// The chat page in Chromium against the compiled binary, with the built-in mock model: an agent picked, an answer
// streamed with its tool call shown as it happens (collapsed), a workflow waiting for approval linked, starters,
// presets and follow-up chips, the compare view with its warning, "Try in mock mode" from the agent designer, threads
// listed and reopened, and the right-to-left layout for a Hebrew-speaking user.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, hasChromium, startConsole } from './harness.ts'

describe.skipIf(!hasChromium)('chat in the console', () => {
  let s: ConsoleSession
  const AGENT = 'desk-bot'

  beforeAll(async () => {
    s = await startConsole()
    const token = s.adminToken
    await s.api('POST', '/api/agents', { name: AGENT, description: 'Answers at the desk', instructions: 'Be helpful.' }, token)
    const echo = { nodes: [{ id: 'out', type: 'agentbox.output', params: { value: { echo: '{{ $json.text }}' } } }], connections: [] }
    await s.api('POST', `/api/workflows/${AGENT}`, { name: 'echo', definition: echo }, token)
    const gate = {
      nodes: [
        { id: 'gate', type: 'agentbox.approval', params: { message: 'Send {{ $json.amount }}?' } },
        { id: 'out', type: 'agentbox.output', params: { value: '{{ $json }}' } },
      ],
      connections: [{ from: 'gate', port: 'approved', to: 'out' }],
    }
    await s.api('POST', `/api/workflows/${AGENT}`, { name: 'payout', definition: gate }, token)
    await s.api('POST', `/api/agents/${AGENT}/publish`, {}, token)
  }, 120_000)

  afterAll(async () => {
    await s?.stop()
  })

  const send = async (text: string) => {
    const { page } = s
    await page.getByLabel('Message').fill(text)
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByRole('button', { name: 'Send' }).waitFor()
    await page.locator('[data-testid="chat-side"][aria-busy="false"]').last().waitFor()
  }

  test('an agent answers, its tool call shown collapsed; a waiting workflow is linked to Approvals', async () => {
    const { page, base } = s
    await page.goto(`${base}/chat`)
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor()
    await page.getByLabel('Agent').selectOption(AGENT)
    await send('run_workflow {"workflow": "echo", "input": {"text": "ping"}}')
    const call = page.getByTestId('tool-call').last()
    expect(await call.textContent()).toContain('run_workflow — done')
    expect(await call.locator('details').getAttribute('open')).toBeNull()
    await call.locator('summary').click()
    expect(await call.getByTestId('tool-result').textContent()).toContain('"echo": "ping"')
    expect(await page.getByTestId('assistant-text').last().textContent()).toStartWith('[mock reply] The tool "run_workflow" returned')
    await s.shot('30-chat-tool-call')

    await send('run_workflow {"workflow": "payout", "input": {"amount": 9}}')
    const approval = page.locator('.chat-approval').last()
    expect(await approval.textContent()).toContain('“payout” waits for your approval: Send 9?')
    const href = await approval.getByRole('link').getAttribute('href')
    expect(href).toStartWith('/approvals#run-')
    await approval.getByRole('link').click()
    await page.getByText('Send 9?').first().waitFor()
    expect(new URL(page.url()).pathname).toBe('/approvals')
    // The conversation is listed and reopens with its turns and tool calls.
    await page.goto(`${base}/chat`)
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('button', { name: /run_workflow/ })
      .first()
      .click()
    await page.getByTestId('user-message').nth(1).waitFor()
    expect(await page.getByTestId('user-message').allTextContents()).toEqual([
      'run_workflow {"workflow": "echo", "input": {"text": "ping"}}',
      'run_workflow {"workflow": "payout", "input": {"amount": 9}}',
    ])
    expect(await page.getByTestId('tool-call').count()).toBe(2)
    expect(await page.locator('.chat-approval').getByRole('link').getAttribute('href')).toBe(href)
    expect(await page.getByLabel('Agent', { exact: true }).inputValue()).toBe(AGENT)
    expect(s.pageErrors).toEqual([])
  }, 60_000)

  test('starters, presets and follow-up chips', async () => {
    const { page, base } = s
    await s.api(
      'POST',
      '/api/user/settings/update',
      {
        conversation_starters: [{ name: 'Say hello', action: [{ api_name: AGENT, user_input: 'Hello from a starter' }] }],
        prompt_presets: [{ id: 'short', name: 'Short answers', prompt: 'Keep it short.' }],
        enable_follow_up_suggestions: true,
      },
      s.adminToken,
    )
    await page.goto(`${base}/chat`)
    await page.getByRole('group', { name: 'Conversation starters' }).getByRole('button', { name: 'Say hello' }).click()
    await page.getByRole('group', { name: 'Follow-up suggestions' }).waitFor()
    expect(await page.getByTestId('user-message').last().textContent()).toBe('Hello from a starter')
    const chips = page.getByRole('group', { name: 'Follow-up suggestions' }).getByRole('button')
    expect(await chips.allTextContents()).toEqual(['Summarise that in one sentence'])
    await chips.first().click()
    await page.getByTestId('user-message').nth(1).waitFor()
    expect(await page.getByTestId('user-message').nth(1).textContent()).toBe('Summarise that in one sentence')
    await page.locator('[data-testid="chat-side"][aria-busy="false"]').nth(1).waitFor()

    await page.getByLabel('Preset').selectOption('short')
    await send('What is this?')
    expect(await page.getByTestId('assistant-text').last().textContent()).toContain('You said: "Keep it short.\n\nWhat is this?"')
    await s.api('POST', '/api/user/settings/update', { enable_follow_up_suggestions: false }, s.adminToken)
  }, 60_000)

  test('the compare view, with its warning shown before sending', async () => {
    const { page, base } = s
    await page.goto(`${base}/chat`)
    await page.getByLabel('Compare with a second model').check()
    expect(await page.getByTestId('compare-warning').textContent()).toBe('Comparing runs this turn on both models: tools may execute twice, and tokens double.')
    await page.getByLabel('Second model: model name').fill('mock-rival')
    await send('Which of you is better?')
    const sides = page.getByTestId('compare-view').getByTestId('chat-side')
    expect(await sides.count()).toBe(2)
    expect(await sides.nth(0).textContent()).toContain('mock · mock')
    expect(await sides.nth(1).textContent()).toContain('mock · mock-rival')
    expect(await sides.nth(1).textContent()).toContain('built-in mock model "mock-rival"')
    await s.shot('31-chat-compare')
    // Reopened, the thread still shows both answers.
    await page.reload()
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('button', { name: /Which of you is better/ })
      .click()
    await page.getByTestId('compare-view').waitFor()
    expect(await page.getByTestId('compare-view').getByTestId('chat-side').nth(1).textContent()).toContain('mock-rival')
  }, 60_000)

  test('"Try in mock mode" on the agent designer opens the chat on the draft with every tool simulated', async () => {
    const { page, base } = s
    await page.goto(`${base}/agents/${AGENT}`)
    await page.getByRole('link', { name: 'Try in mock mode' }).click()
    await page.getByTestId('mock-banner').waitFor()
    expect(await page.getByTestId('mock-banner').textContent()).toBe('Mock mode on the draft: every tool is simulated — nothing is changed or recorded.')
    expect(await page.getByLabel('Agent', { exact: true }).inputValue()).toBe(AGENT)
    expect(await page.getByLabel('Mode', { exact: true }).inputValue()).toBe('mock')
    expect(await page.getByLabel('Version', { exact: true }).inputValue()).toBe('draft')
    await send('run_workflow {"workflow": "payout", "input": {"amount": 1}}')
    const call = page.getByTestId('tool-call').last()
    await call.locator('summary').click()
    const result = await call.getByTestId('tool-result').textContent()
    expect(result).toContain('"dry_run": true')
    expect(result).toContain('"status": "succeeded"')
    expect(await page.locator('.chat-approval').count()).toBe(0)
    await s.shot('32-chat-mock-draft')
  }, 60_000)

  test('right to left for a Hebrew-speaking user; each message laid out by its own text', async () => {
    const { page, base } = s
    await s.api('POST', '/api/user/settings/update', { language: 'he' }, s.adminToken)
    await page.goto(`${base}/chat`)
    const chat = page.getByTestId('chat')
    await chat.waitFor()
    expect(await chat.getAttribute('dir')).toBe('rtl')
    expect(await chat.evaluate((e) => getComputedStyle(e).direction)).toBe('rtl')
    await send('שלום, מה שלומך?')
    const user = page.getByTestId('user-message').last()
    expect(await user.getAttribute('dir')).toBe('auto')
    expect(await user.evaluate((e) => getComputedStyle(e).direction)).toBe('rtl')
    const answer = page.getByTestId('assistant-text').last()
    expect(await answer.getAttribute('dir')).toBe('auto')
    // The mock answers in English: dir=auto lays that message out left to right inside the right-to-left page.
    expect(await answer.evaluate((e) => getComputedStyle(e).direction)).toBe('ltr')
    // Mirrored: the conversations list sits on the right of the conversation, the user's bubble on the left.
    const threads = await page.getByRole('navigation', { name: 'Conversations' }).boundingBox()
    const main = await page.locator('.chat-main').boundingBox()
    expect(threads!.x).toBeGreaterThan(main!.x)
    const bubble = await user.boundingBox()
    expect(bubble!.x).toBeLessThan(main!.x + main!.width / 2)
    await s.shot('33-chat-rtl')
    await s.api('POST', '/api/user/settings/update', { language: 'en' }, s.adminToken)
    expect(s.pageErrors).toEqual([])
  }, 60_000)
})
