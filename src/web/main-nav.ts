// The console's main navigation: the pages used most as links on one row, every other page under a More disclosure
// button (grouped as in NAV_GROUPS), so the row holds one line at 1024 px and up without hiding a page. Narrower (a
// tablet, a phone) the row may not fit, so one Menu button holds every page. The menu is a disclosure, not an ARIA menu: a button
// with aria-expanded that shows plain links, reached with Tab; Escape closes it and gives focus back to the button.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { ConsolePage, NavGroup } from './frame.ts'
import type { Me } from './session.ts'
import { h, Link } from './ui.ts'

const MENU_ID = 'nav-more-menu'

const currentMark = (current: ConsolePage, only: string) =>
  h('span', { class: `${only} nav-more-current` }, ` · ${current.title}`, h('span', { class: 'sr-only' }, ' (current page)'))

interface MainNavProps {
  me: Me
  path: string
  groups: readonly NavGroup[]
  current: ConsolePage | undefined
}

export function MainNav({ me, path, groups, current }: MainNavProps) {
  const [open, setOpen] = useState(false)
  const holder = useRef<HTMLLIElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  const visible = groups
    .map((group) => ({ label: group.label, pages: group.pages.filter((p) => !p.admin || me.role === 'admin') }))
    .filter((group) => group.pages.length > 0)

  // A link followed (or the back button) closes the menu.
  useEffect(() => setOpen(false), [path])

  // A click anywhere else closes it, leaving focus where the click put it.
  useEffect(() => {
    if (!open) return
    const outside = (event: PointerEvent) => {
      if (!holder.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open])

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return
    event.preventDefault()
    setOpen(false)
    button.current?.focus()
  }
  // Tabbing past the last link (or back before the button) closes it; a click on the menu's own text does not.
  const onFocusOut = (event: FocusEvent) => {
    const next = event.relatedTarget as Node | null
    if (next && !holder.current?.contains(next)) setOpen(false)
  }

  const link = (p: ConsolePage) => h(Link, { to: p.path, current: p === current }, p.title)
  // From 1024 px the menu holds the pages not on the row; narrower (the row hidden) it holds every page, so the
  // main pages appear in it too, shown only there (display: none keeps the hidden copy out of tab order and the
  // accessibility tree).
  const currentInMore = current !== undefined && !current.main
  return h(
    'nav',
    { class: 'main-nav', 'aria-label': 'Main' },
    h(
      'ul',
      { class: 'nav-row' },
      visible.flatMap((group) => group.pages.filter((p) => p.main).map((p) => h('li', { key: p.path, class: 'nav-wide' }, link(p)))),
      h(
        'li',
        { key: 'more', class: 'nav-more', ref: holder, onKeyDown, onFocusOut },
        h(
          'button',
          {
            type: 'button',
            ref: button,
            class: 'nav-more-button',
            'aria-expanded': open ? 'true' : 'false',
            'aria-controls': MENU_ID,
            'data-current': currentInMore ? 'true' : undefined,
            onClick: () => setOpen(!open),
          },
          h('span', { class: 'nav-wide' }, 'More'),
          h('span', { class: 'nav-narrow' }, 'Menu'),
          // Where the current page is not on the row, the button says which it is (visibly and to screen readers).
          currentInMore ? currentMark(current, 'nav-wide') : null,
          current ? currentMark(current, 'nav-narrow') : null,
          h('span', { class: 'nav-more-caret', 'aria-hidden': 'true' }, open ? ' ▴' : ' ▾'),
        ),
        h(
          'div',
          { id: MENU_ID, class: 'nav-menu', hidden: !open },
          visible.map((group) => {
            const headingId = `nav-group-${group.label.toLowerCase()}`
            const onlyMain = group.pages.every((p) => p.main)
            return h(
              'div',
              { key: group.label, class: onlyMain ? 'nav-group nav-narrow' : 'nav-group' },
              h('p', { class: 'nav-group-label', id: headingId }, group.label),
              h(
                'ul',
                { 'aria-labelledby': headingId },
                group.pages.map((p) => h('li', { key: p.path, class: p.main ? 'nav-narrow' : undefined }, link(p))),
              ),
            )
          }),
        ),
      ),
    ),
  )
}
