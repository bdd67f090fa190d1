// History-API routing: real paths (/overview, /usage…) that the server also answers, so reloads and links work.
import { useEffect, useState } from 'preact/hooks'

const listeners = new Set<() => void>()

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  for (const fn of listeners) fn()
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname)
  useEffect(() => {
    const update = () => setPath(location.pathname)
    listeners.add(update)
    addEventListener('popstate', update)
    return () => {
      listeners.delete(update)
      removeEventListener('popstate', update)
    }
  }, [])
  return path
}

/** Plain left clicks on in-app links navigate without a reload; modified clicks (new tab…) keep the browser's behaviour. */
export function linkClick(event: MouseEvent, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  navigate(to)
}
