// The console's only door to the server: JSON over fetch with the session's bearer token, errors turned into sentences.

const TOKEN_KEY = 'agentbox.access_token'

/**
 * sessionStorage: the access token survives a reload but not the tab, and is never written to a cookie or
 * localStorage. A new tab gets its own from the console session's refresh cookie, which scripts cannot read
 * (HttpOnly): see refreshAccessToken.
 */
export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  save: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
}

/** A FastAPI-shaped error: `message` for the form, `fields` keyed by the body field the server blamed. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string> = {},
    /** The 422 entries as sent (some carry `ctx`, e.g. the JSON pointer of an API description problem). */
    readonly entries: readonly { loc?: (string | number)[]; msg?: string; ctx?: Record<string, unknown> }[] = [],
  ) {
    super(message)
  }
}

interface DetailEntry {
  loc?: (string | number)[]
  msg?: string
}

function toError(status: number, body: unknown): ApiError {
  const detail = (body as { detail?: unknown } | null)?.detail
  if (typeof detail === 'string') return new ApiError(status, detail)
  if (Array.isArray(detail)) {
    const fields: Record<string, string> = {}
    for (const entry of detail as DetailEntry[]) {
      const key = (entry.loc ?? []).slice(1).join('.')
      if (key && !fields[key]) fields[key] = entry.msg ?? 'Invalid value'
    }
    const first = detail[0] as DetailEntry | undefined
    return new ApiError(status, first?.msg ?? 'The request was not valid', fields, detail as DetailEntry[])
  }
  return new ApiError(status, `The server answered ${status}`)
}

/** Called when a signed-in request gets 401 and the session cannot be refreshed: it ended (signed out, expired, revoked). */
let onSessionEnded: () => void = () => {}
export const whenSessionEnds = (fn: () => void) => void (onSessionEnded = fn)
export const endSession = () => onSessionEnded()

let refreshing: Promise<string | null> | null = null

/**
 * A new access token for this tab from the console session (the HttpOnly refresh cookie the browser sends to
 * /api/auth/refresh), saved in the tab's storage; null when there is no live session. One request at a time per tab.
 */
export function refreshAccessToken(): Promise<string | null> {
  refreshing ??= (async () => {
    try {
      const res = await fetch('/api/auth/refresh', { method: 'POST', headers: { accept: 'application/json' } })
      const body = res.ok ? ((await res.json()) as { access_token?: unknown }) : null
      if (typeof body?.access_token !== 'string') return null
      session.save(body.access_token)
      return body.access_token
    } catch {
      return null
    } finally {
      refreshing = null
    }
  })()
  return refreshing
}

/**
 * Sends a request with the tab's token. A 401 on it (the access token expired or its session moved on) is retried once
 * with a token refreshed from the session; if that fails too the session has ended.
 */
async function send(request: (token: string | null) => Promise<Response>, bearer: string | undefined): Promise<Response> {
  const token = bearer ?? session.token()
  let res: Response
  try {
    res = await request(token)
    if (res.status === 401 && bearer === undefined && token) {
      const fresh = await refreshAccessToken()
      if (fresh) res = await request(fresh)
      if (res.status === 401) onSessionEnded()
    }
  } catch {
    throw new ApiError(0, 'The server could not be reached')
  }
  return res
}

// biome-ignore lint/suspicious/noExplicitAny: callers name the response type; untyped calls read JSON as they need
export async function api<T = any>(method: string, path: string, body?: unknown, bearer?: string): Promise<T> {
  const res = await send((token) => {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (token) headers.authorization = `Bearer ${token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    return fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  }, bearer)
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = null
  }
  if (!res.ok) throw toError(res.status, parsed)
  return parsed as T
}

/** A multipart upload (API descriptions); errors as for api(). */
// biome-ignore lint/suspicious/noExplicitAny: as for api()
export async function upload<T = any>(path: string, form: FormData): Promise<T> {
  const res = await send(
    (token) => fetch(path, { method: 'POST', headers: token ? { authorization: `Bearer ${token}`, accept: 'application/json' } : {}, body: form }),
    undefined,
  )
  const parsed = await res.json().catch(() => null)
  if (!res.ok) throw toError(res.status, parsed)
  return parsed as T
}

/** A file the API answers (a bundle), saved by the browser under the name Content-Disposition gives; errors as for api(). */
export async function download(path: string, fallbackName: string): Promise<void> {
  const res = await send((token) => fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} }), undefined)
  if (!res.ok) throw toError(res.status, await res.json().catch(() => null))
  const filename = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName
  const url = URL.createObjectURL(await res.blob())
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))
