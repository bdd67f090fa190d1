// UI templates in the console (Chromium against the compiled binary): an operation's templates with a live preview in
// a sandbox without the console's origin, drawn under the template's own CSP (its inline script runs, a connection to
// an undeclared domain is blocked), the editor, the repository settings form (the token never shown), and push / pull
// against a real git server with a conflict said plainly and resolved from the page. Screenshots: test-results/console/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { petstore } from '../applications/helpers.ts'
import { type GitServer, HAS_GIT, startGitServer, WorkingCopy } from '../helpers/git-server.ts'
import { type ConsoleSession, hasChromium, startConsole } from './harness.ts'

const APP = 'pets'
const template = (heading: string) => `<!doctype html>
<html><head><meta charset="utf-8"><style>h1 { color: rgb(0, 128, 0); }</style></head>
<body><h1>${heading}</h1><p id="status">waiting</p>
<script>
  document.getElementById('status').textContent = 'script ran'
  document.addEventListener('securitypolicyviolation', (e) => { document.getElementById('status').textContent = 'blocked ' + e.effectiveDirective })
  fetch('https://not-declared.example.com/data').catch(() => {})
</script></body></html>
`

describe.skipIf(!hasChromium || !HAS_GIT)('UI templates in the console', () => {
  let session: ConsoleSession
  let git: GitServer
  let templateId = ''

  beforeAll(async () => {
    git = await startGitServer()
    await git.createRepository('console')
    session = await startConsole({ AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' })
    const form = new FormData()
    form.append('file', new File([JSON.stringify(petstore())], 'spec.json', { type: 'application/json' }))
    form.append('api_name', APP)
    const encoded = new Response(form)
    const type = encoded.headers.get('content-type')!
    const bytes = new Uint8Array(await encoded.arrayBuffer())
    const imported = await fetch(`${session.base}/api/spec_from_file/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.adminToken}`, 'content-type': type },
      body: bytes,
    })
    expect(imported.status).toBe(201)
    const created = await session.api(
      'POST',
      `/api/ui-templates/${APP}/operations/listPets`,
      { html: template('Pets'), is_default: true, csp_config: { connectDomains: ['https://api.example.com'] } },
      session.adminToken,
    )
    templateId = created.id
  }, 90_000)

  afterAll(async () => {
    await session?.stop()
    await git?.stop()
  })

  /** The application page with an operation chosen. */
  async function openOperation(operationId: string) {
    const { page, base } = session
    await page.goto(`${base}/applications/${APP}`)
    await page.getByRole('button', { name: new RegExp(`— ${operationId}`) }).click()
    await page.getByRole('heading', { name: `UI templates of ${operationId}` }).waitFor()
  }

  const view = () => session.page.frameLocator('iframe.template-preview').frameLocator('#view')

  test('the preview draws the template in a sandbox, under its CSP', async () => {
    const { page } = session
    await openOperation('listPets')
    const frame = page.locator('iframe.template-preview')
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts')
    expect(await frame.getAttribute('data-policy')).toContain('connect-src https://api.example.com')
    await view().getByRole('heading', { name: 'Pets' }).waitFor()
    // Its inline style and script run; its fetch to an undeclared domain is refused by the template's own policy.
    expect(
      await view()
        .locator('h1')
        .evaluate((el) => getComputedStyle(el).color),
    ).toBe('rgb(0, 128, 0)')
    await view().getByText('blocked connect-src').waitFor()
    // The sandbox has no access to the console: an opaque origin.
    expect(
      await view()
        .locator('body')
        .evaluate(() => String(window.origin)),
    ).toBe('null')
    // Editing redraws it at once.
    await page.getByLabel('HTML').fill(template('Edited pets'))
    await view().getByRole('heading', { name: 'Edited pets' }).waitFor()
    await session.shot('ui-template-preview')
  }, 30_000)

  test('the repository form stores the token without ever showing it; push writes the files', async () => {
    const { page } = session
    await openOperation('listPets')
    const form = page.getByRole('region', { name: 'Template repository' })
    // Folded until a repository is set.
    expect(await form.getByLabel('Repository URL').isVisible()).toBe(false)
    await form.getByText('Template repository').click()
    await form.getByLabel('Repository URL').fill(git.url('console'))
    await form.getByLabel('User name').fill(git.username)
    await form.getByLabel('Token').fill(git.token)
    await form.getByRole('button', { name: 'Save repository' }).click()
    await page.getByText('Repository saved.').waitFor()
    expect(await form.getByLabel('Token').inputValue()).toBe('')
    await page.getByText('A token is stored; leave empty to keep it.').waitFor()
    expect(await page.content()).not.toContain(git.token)

    // Reload so the editor knows a repository is set, then push.
    await openOperation('listPets')
    await page.getByRole('button', { name: 'Push', exact: true }).click()
    await page.getByText(/Pushed in commit/).waitFor()
    const copy = await WorkingCopy.clone(git, 'console')
    expect(await copy.read(`agentbox/${APP}/listPets/${templateId}.html`)).toContain('<h1>Pets</h1>')
    copy.dispose()
  }, 30_000)

  test('a conflict is said plainly, and taking the repository version resolves it', async () => {
    const { page } = session
    const copy = await WorkingCopy.clone(git, 'console')
    await copy.write(`agentbox/${APP}/listPets/${templateId}.html`, template('Designer pets'))
    await copy.commitAndPush('Designer edit')
    await openOperation('listPets')
    await page.getByLabel('HTML').fill(template('Console pets'))
    await page.getByRole('button', { name: 'Save template' }).click()
    await page.getByText('Template saved.', { exact: false }).waitFor()
    await page.getByRole('button', { name: 'Push', exact: true }).click()
    await page.getByText(/^Conflict: The template changed in the repository since the last sync/).waitFor()
    await session.shot('ui-template-conflict')
    await page.getByRole('button', { name: 'Take the repository version' }).click()
    await page.getByText(/^Pulled from commit/).waitFor()
    await page.getByRole('heading', { name: 'UI templates of listPets' }).waitFor()
    await view().getByRole('heading', { name: 'Designer pets' }).waitFor()
    expect(await page.getByLabel('HTML').inputValue()).toContain('Designer pets')
    copy.dispose()
    expect(session.pageErrors).toEqual([])
  }, 30_000)
})
