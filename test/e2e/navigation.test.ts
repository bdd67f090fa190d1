// The console's main navigation in Chromium, against the compiled binary: the main pages as links and the rest under a
// More disclosure button hold one row at 1366, 1280 and 1024 px (the boxes' tops compared), every page is reachable,
// the menu works from the keyboard (Enter and Space open it, Tab reaches its links, Escape closes it and gives focus
// back), the current page is marked with aria-current inside the menu too and More says it holds it; a member's menu
// has no admin pages; under 1024 px (a tablet, a phone) one Menu button holds every page.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { type ConsoleSession, followNav, hasChromium, startConsole } from './harness.ts'

// Every page of the console, in the navigation's order, with the path its link opens.
const PAGES: readonly (readonly [string, string])[] = [
  ['Overview', '/overview'],
  ['Chat', '/chat'],
  ['Agents', '/agents'],
  ['Marketplace', '/marketplace'],
  ['Tasks', '/tasks'],
  ['Applications', '/applications'],
  ['MCP servers', '/mcp-servers'],
  ['GPTs', '/gpt-apps'],
  ['Context types', '/context-types'],
  ['Approvals', '/approvals'],
  ['History', '/history'],
  ['Usage', '/usage'],
  ['Insights', '/insights'],
  ['Users', '/users'],
  ['Audit log', '/audit'],
  ['Connected clients', '/connected-clients'],
  ['Settings', '/settings'],
]
const ON_ROW = ['Overview', 'Chat', 'Agents', 'Tasks', 'Applications', 'Approvals', 'History', 'Insights']
const WIDTHS = [1366, 1280, 1024] as const

describe.skipIf(!hasChromium)('console: the main navigation', () => {
  let s: ConsoleSession

  beforeAll(async () => {
    s = await startConsole()
  }, 60_000)

  afterAll(async () => {
    await s?.stop()
  })

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' })
  const more = (page: Page) => nav(page).getByRole('button', { name: /^More\b/ })

  /** What the row shows: its visible links' names, the distinct tops and bottoms of its items' boxes, and overflow. */
  const rowGeometry = (page: Page) =>
    page.evaluate(() => {
      const nav = document.querySelector('nav[aria-label="Main"]') as HTMLElement
      const items = [...nav.querySelectorAll('.nav-row > li')].filter((li) => (li as HTMLElement).offsetParent !== null) as HTMLElement[]
      const boxes = items.map((li) => (li.querySelector(':scope > a, :scope > button') as HTMLElement).getBoundingClientRect())
      return {
        links: items.map((li) => li.querySelector(':scope > a')?.textContent ?? null).filter((name) => name !== null),
        tops: [...new Set(boxes.map((box) => Math.round(box.top)))],
        bottoms: [...new Set(boxes.map((box) => Math.round(box.bottom)))],
        lastRight: Math.round(boxes.at(-1)!.right),
        overflow: nav.scrollWidth - nav.clientWidth,
        pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        headerHeight: Math.round((document.querySelector('header') as HTMLElement).getBoundingClientRect().height),
      }
    })

  /** The names of the links the open menu shows (visible ones only). */
  const menuLinks = (page: Page) => nav(page).locator('#nav-more-menu a:visible').allTextContents()

  test('at 1366, 1280 and 1024 px the row is one line, and the row and More together hold every page once', async () => {
    const { page, base } = s
    try {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 768 })
        await page.goto(`${base}/overview`)
        await page.getByRole('heading', { name: 'Overview' }).waitFor()
        const row = await rowGeometry(page)
        expect(row.links).toEqual(ON_ROW)
        expect(row.tops).toHaveLength(1)
        expect(row.bottoms).toHaveLength(1)
        expect(row.lastRight).toBeLessThanOrEqual(width)
        expect(row.overflow).toBeLessThanOrEqual(0)
        expect(row.pageOverflow).toBeLessThanOrEqual(0)
        // Brand and account above, the navigation below: two rows, not a wrapped one.
        expect(row.headerHeight).toBeLessThan(110)
        await expect(more(page).getAttribute('aria-expanded')).resolves.toBe('false')
        await more(page).click()
        await expect(more(page).getAttribute('aria-expanded')).resolves.toBe('true')
        const inMenu = await menuLinks(page)
        expect([...ON_ROW, ...inMenu].sort()).toEqual(PAGES.map(([title]) => title).sort())
        // The open menu stays on the screen.
        const menu = (await nav(page).locator('#nav-more-menu').boundingBox())!
        expect(menu.x + menu.width).toBeLessThanOrEqual(width)
        expect(menu.y + menu.height).toBeLessThanOrEqual(768)
        await s.shot(`nav-${width}-more-open`)
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 60_000)

  test('at 1024 px every page opens from the navigation and is marked current, in the menu too; More says it holds it', async () => {
    const { page, base } = s
    try {
      await page.setViewportSize({ width: 1024, height: 768 })
      await page.goto(`${base}/overview`)
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      for (const [title, path] of PAGES) {
        await followNav(page, title)
        await page.waitForURL(`${base}${path}`)
        // Following a link closes the menu (once the new page has rendered: the URL changes first).
        await nav(page).locator('button[aria-controls="nav-more-menu"][aria-expanded="false"]').waitFor()
        const onRow = ON_ROW.includes(title)
        if (onRow) {
          expect(await nav(page).getByRole('link', { name: title, exact: true }).getAttribute('aria-current')).toBe('page')
          expect(await more(page).getAttribute('data-current')).toBeNull()
          await nav(page).getByRole('button', { name: 'More', exact: true }).waitFor() // no page named on it
        } else {
          // Closed, More carries the mark and names the page, to the eye and to a screen reader.
          expect(await more(page).getAttribute('data-current')).toBe('true')
          expect(await more(page).getAttribute('aria-expanded')).toBe('false')
          await nav(page)
            .getByRole('button', { name: `More · ${title} (current page)` })
            .waitFor()
          await more(page).click()
          expect(await nav(page).getByRole('link', { name: title, exact: true }).getAttribute('aria-current')).toBe('page')
          await page.keyboard.press('Escape')
        }
        // One link is the current page: the row's (and its copy in the phone's menu) or the menu's.
        expect(await nav(page).locator('a[aria-current="page"]').count()).toBe(onRow ? 2 : 1)
        expect(await nav(page).locator('a[aria-current="page"]:visible').count()).toBe(onRow ? 1 : 0)
      }
      await s.shot('nav-1024-settings-current')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 90_000)

  test('the keyboard: Enter and Space open More, Tab walks its links, Escape closes it and gives focus back', async () => {
    const { page, base } = s
    await page.goto(`${base}/overview`)
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    // Tab from the last link of the row reaches More.
    await nav(page).getByRole('link', { name: 'Insights', exact: true }).focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.classList.contains('nav-more-button'))).toBe(true)

    await page.keyboard.press('Enter')
    expect(await more(page).getAttribute('aria-expanded')).toBe('true')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Marketplace')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('MCP servers')
    await page.keyboard.press('Escape')
    expect(await more(page).getAttribute('aria-expanded')).toBe('false')
    expect(await page.evaluate(() => document.activeElement?.classList.contains('nav-more-button'))).toBe(true)
    expect(await nav(page).locator('#nav-more-menu').isVisible()).toBe(false)

    // Space opens it too; Enter on a link follows it and the menu closes.
    await page.keyboard.press('Space')
    expect(await more(page).getAttribute('aria-expanded')).toBe('true')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await page.waitForURL(`${base}/mcp-servers`)
    await page.getByRole('heading', { name: 'MCP servers', level: 1 }).waitFor()
    // Closed once the new page has rendered, which may come after its heading: waited for, not read once.
    await nav(page).locator('button[aria-controls="nav-more-menu"][aria-expanded="false"]').waitFor()

    // Tabbing past the menu's last link closes it; so does a click elsewhere on the page.
    await more(page).focus()
    await page.keyboard.press('Enter')
    const last = nav(page).locator('#nav-more-menu a:visible').last()
    await last.focus()
    await page.keyboard.press('Tab')
    expect(await more(page).getAttribute('aria-expanded')).toBe('false')
    await more(page).click()
    expect(await more(page).getAttribute('aria-expanded')).toBe('true')
    await page.locator('.brand').click()
    expect(await more(page).getAttribute('aria-expanded')).toBe('false')
    // The button itself toggles it closed.
    await more(page).click()
    await more(page).click()
    expect(await more(page).getAttribute('aria-expanded')).toBe('false')
    expect(s.pageErrors).toEqual([])
  }, 30_000)

  test("a member's navigation has no admin pages, and still holds one row at 1024 px", async () => {
    const { page } = s
    await s.createMember('nav-member@example.com')
    try {
      await s.signIn('nav-member@example.com')
      await page.setViewportSize({ width: 1024, height: 768 })
      const row = await rowGeometry(page)
      expect(row.tops).toHaveLength(1)
      await more(page).click()
      const inMenu = await menuLinks(page)
      expect(inMenu).not.toContain('Users')
      expect(inMenu).not.toContain('Audit log')
      expect(inMenu).toContain('Connected clients')
      expect(inMenu).toContain('Settings')
      await page.keyboard.press('Escape')
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
      await s.signIn()
    }
  }, 30_000)

  test('under 1024 px, and on a phone, one Menu button holds every page, on the screen, the current one marked', async () => {
    const { page, base } = s
    try {
      await page.setViewportSize({ width: 1023, height: 768 })
      await page.goto(`${base}/overview`)
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      expect((await rowGeometry(page)).links).toEqual([])
      await nav(page).getByRole('button', { name: 'Menu · Overview (current page)' }).waitFor()
      expect(await more(page).count()).toBe(0)
      await page.setViewportSize({ width: 375, height: 800 })
      await page.goto(`${base}/history`)
      await page.getByRole('heading', { name: 'History', level: 1 }).waitFor()
      // No link on the row: only the button, which names the current page.
      expect((await rowGeometry(page)).links).toEqual([])
      const menuButton = nav(page).getByRole('button', { name: 'Menu · History (current page)' })
      await menuButton.click()
      expect(await menuButton.getAttribute('aria-expanded')).toBe('true')
      expect(await menuLinks(page)).toEqual(PAGES.map(([title]) => title))
      expect(await nav(page).locator('#nav-more-menu a[aria-current="page"]:visible').textContent()).toBe('History')
      const rights = await nav(page)
        .locator('#nav-more-menu a:visible')
        .evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().right)))
      expect(rights.every((right) => right <= 375)).toBe(true)
      expect((await rowGeometry(page)).pageOverflow).toBeLessThanOrEqual(0)
      await s.shot('nav-phone-menu-open')
      await followNav(page, 'Settings')
      await page.waitForURL(`${base}/settings`)
      expect(await menuButton.isVisible()).toBe(false) // its name now says Settings
      await nav(page).getByRole('button', { name: 'Menu · Settings (current page)' }).waitFor()
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 30_000)
})
