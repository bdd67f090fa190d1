// The agent designer's skills editor in Chromium: an owner adds a skill (a validation error shown on its line, Save
// disabled until it is fixed), sees a 409 on a taken name, edits, imports a SKILL.md file and deletes; a viewer reads
// the live version's skills. Screenshots go to test-results/console/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ConsoleSession, hasChromium, startConsole } from './harness.ts'

const AGENT = 'skills-e2e'
const skillMd = (name: string, description: string, body = '# Steps\n\nRead the PDF, then summarise it.') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`

describe.skipIf(!hasChromium)('skills editor of the agent designer', () => {
  let session: ConsoleSession

  beforeAll(async () => {
    session = await startConsole()
    await session.api('POST', '/api/agents', { name: AGENT, description: 'Skills in the browser', instructions: 'Use your skills.' }, session.adminToken)
  }, 60_000)

  afterAll(async () => {
    await session?.stop()
  })

  /** The agent page with its Design tab selected (the tab is absent when the page shows only the panel). */
  async function openDesign() {
    const { page, base } = session
    await page.goto(`${base}/agents/${AGENT}`)
    const design = page.getByRole('tab', { name: 'Design' })
    const skills = page.getByRole('heading', { name: 'Skills', exact: true })
    await design.or(skills).first().waitFor()
    if ((await design.count()) > 0) await design.click()
    await skills.waitFor()
  }

  const draftSkills = async () =>
    ((await session.api('GET', `/api/agents/${AGENT}/skills`, undefined, session.adminToken)) as { name: string; description: string }[]).map(
      (s) => `${s.name}: ${s.description}`,
    )

  test('an owner adds, fixes, edits, imports and deletes skills', async () => {
    const { page } = session
    await openDesign()
    const panel = page.locator('section.skills-panel')
    await panel.getByRole('button', { name: 'Add a skill' }).click()
    const editor = panel.getByLabel('SKILL.md', { exact: true })
    const save = panel.getByRole('button', { name: 'Save', exact: true })

    // An uppercase name: the error points at line 2 (the name: line), and Save stays disabled.
    await editor.fill(skillMd('PDF-Tools', 'Summarises PDF files.'))
    const problem = panel.getByRole('button', { name: /^Error · line 2 \(name\): Skill name 'PDF-Tools' must be lowercase/ })
    await problem.waitFor()
    expect(await save.isDisabled()).toBe(true)
    expect(await editor.getAttribute('aria-invalid')).toBe('true')
    expect(await panel.locator('.skill-problems').getAttribute('aria-live')).toBe('polite')
    // Clicking the problem puts the cursor at the start of line 2.
    await problem.click()
    expect(await editor.evaluate((el: HTMLTextAreaElement) => [document.activeElement === el, el.selectionStart])).toEqual([true, 4])
    await session.shot('skills-error')

    // Fixed: no problems, Save enabled; saved and listed.
    await editor.fill(skillMd('pdf-tools', 'Summarises PDF files.'))
    await panel.getByText('No problems found.').waitFor()
    expect(await save.isDisabled()).toBe(false)
    await save.click()
    await panel.getByText('Saved the skill pdf-tools.').waitFor()
    await panel.locator('.skill-list li', { hasText: 'pdf-tools' }).getByText('Summarises PDF files.').waitFor()
    expect(await draftSkills()).toEqual(['pdf-tools: Summarises PDF files.'])

    // A second skill of the same name: the 409 is listed at the name line like a validation error.
    await panel.getByRole('button', { name: 'Add a skill' }).click()
    await editor.fill(skillMd('pdf-tools', 'Another one.'))
    await panel.getByText('No problems found.').waitFor()
    await save.click()
    await panel.getByRole('button', { name: /^Error · line 2 \(name\): A skill named 'pdf-tools' already exists/ }).waitFor()
    expect(await save.isDisabled()).toBe(true)
    // Saved before the check answers: the server's 422 (skill_invalid, ctx {field, code}) is listed the same way.
    await page.route('**/api/skill/validate', () => undefined)
    await editor.fill(skillMd('bad name', 'Saved too fast.'))
    await save.click()
    await panel.getByRole('button', { name: /^Error · line 2 \(name\): Skill name 'bad name' contains invalid characters/ }).waitFor()
    expect(await save.isDisabled()).toBe(true)
    await page.unroute('**/api/skill/validate')
    page.once('dialog', (dialog) => void dialog.accept())
    await panel.getByRole('button', { name: 'Cancel' }).click()

    // Edit: the content loads; a body over 500 lines is a warning (at the body's first line) that does not block saving.
    await panel.getByRole('button', { name: 'Edit pdf-tools' }).click()
    await expect(editor.inputValue()).resolves.toContain('name: pdf-tools')
    const longBody = Array.from({ length: 520 }, (_, i) => `Step ${i + 1}.`).join('\n')
    await editor.fill(skillMd('pdf-tools', 'Summarises and indexes PDF files.', longBody))
    await panel.getByRole('button', { name: /^Warning · line 6: SKILL\.md body is 520 lines/ }).waitFor()
    await panel.getByText('0 errors, 1 warning.', { exact: true }).waitFor()
    expect(await save.isDisabled()).toBe(false)
    // The textarea alone sets the editor's height; the line numbers scroll with it.
    const box = (await panel.locator('.skill-code').boundingBox())!
    expect(box.height).toBeLessThan(600)
    await editor.evaluate((el: HTMLTextAreaElement) => {
      el.scrollTop = 900
      el.dispatchEvent(new Event('scroll'))
    })
    expect(await panel.locator('.skill-gutter').evaluate((el) => el.scrollTop)).toBe(await editor.evaluate((el) => el.scrollTop))
    await session.shot('skills-warning')
    await save.click()
    await panel.locator('.skill-list li', { hasText: 'pdf-tools' }).getByText('Summarises and indexes PDF files.').waitFor()

    // Import a SKILL.md written on Windows: loaded into the editor (line breaks as LF) and validated the same way.
    await panel.getByRole('button', { name: 'Add a skill' }).click()
    await panel.getByLabel('Import a SKILL.md file').setInputFiles({
      name: 'SKILL.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(skillMd('Imported_Skill', 'Came from a file.').replace(/\n/g, '\r\n')),
    })
    // The file is read asynchronously: wait for the notice that says it is in the editor.
    await panel.getByText('Imported SKILL.md: check it below, then save.').waitFor()
    expect(await editor.inputValue()).toBe(skillMd('Imported_Skill', 'Came from a file.'))
    await panel.getByRole('button', { name: /^Error · line 2 \(name\): Skill name 'Imported_Skill' contains invalid characters/ }).waitFor()
    await panel.getByLabel('Import a SKILL.md file').setInputFiles({
      name: 'SKILL.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(skillMd('imported-skill', 'Came from a file.')),
    })
    await panel
      .getByRole('button', { name: /^Error · line 2/ })
      .first()
      .waitFor({ state: 'detached' })
    await panel.getByText('No problems found.').waitFor()
    await save.click()
    await panel.getByText('Saved the skill imported-skill.').waitFor()
    expect(await draftSkills()).toEqual(['pdf-tools: Summarises and indexes PDF files.', 'imported-skill: Came from a file.'])

    // Delete, after a confirmation.
    page.once('dialog', (dialog) => void dialog.accept())
    await panel.getByRole('button', { name: 'Delete pdf-tools' }).click()
    await panel.getByText('Deleted the skill pdf-tools.').waitFor()
    await panel.getByRole('button', { name: 'Edit pdf-tools' }).waitFor({ state: 'detached' })
    expect(await draftSkills()).toEqual(['imported-skill: Came from a file.'])
    await session.shot('skills-list')

    // Right to left: the code stays left to right, its line numbers before it.
    await page.evaluate(() => (document.documentElement.dir = 'rtl'))
    await panel.getByRole('button', { name: 'Add a skill' }).click()
    await editor.fill(skillMd('Rtl', 'Hebrew pages too.'))
    await panel.getByRole('button', { name: /^Error · line 2 \(name\)/ }).waitFor()
    const gutterBox = (await panel.locator('.skill-gutter').boundingBox())!
    const editorBox = (await editor.boundingBox())!
    expect(gutterBox.x).toBeLessThan(editorBox.x)
    await session.shot('skills-rtl')
    page.once('dialog', (dialog) => void dialog.accept())
    await panel.getByRole('button', { name: 'Cancel' }).click()
    await page.evaluate(() => (document.documentElement.dir = 'ltr'))
    expect(session.pageErrors).toEqual([])
  }, 30_000)

  test("a viewer reads the live version's skills, read-only", async () => {
    const { page, base } = session
    await session.api('POST', `/api/agents/${AGENT}/publish`, { note: 'skills' }, session.adminToken)
    await session.createMember('viewer@example.com')
    await session.api('POST', `/api/agents/${AGENT}/members`, { email: 'viewer@example.com', role: 'viewer' }, session.adminToken)
    await session.signIn('viewer@example.com')
    await page.goto(`${base}/agents/${AGENT}`)
    const live = page.getByRole('tab', { name: 'Live' })
    const skills = page.getByRole('heading', { name: 'Skills', exact: true })
    await live.or(skills).first().waitFor()
    if ((await live.count()) > 0) await live.click()
    const panel = page.locator('section.skills-panel')
    await panel.getByText("The live version's skills, read-only").waitFor()
    await panel.locator('.skill-list li', { hasText: 'imported-skill' }).getByText('Came from a file.').waitFor()
    expect(await panel.getByRole('button', { name: 'Add a skill' }).count()).toBe(0)
    expect(await panel.getByRole('button', { name: /^(Edit|Delete) / }).count()).toBe(0)
    expect(session.pageErrors).toEqual([])
  }, 20_000)
})
