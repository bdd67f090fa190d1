// One operation call as an HTTP request: the path template filled with percent-encoded values (a value can never
// leave its segment), query, header and cookie parameters serialised as the document says, the body encoded for its
// media type, then the credentials applied. Credentials come last, so an argument can never replace them.
import { invalidInput, type InputIssue } from '../../platform/errors.ts'
import type { OpenedCredential } from './credentials.ts'
import type { ArgumentTarget } from './document/operations.ts'

export interface BuiltRequest {
  url: URL
  method: string
  headers: Headers
  body: Uint8Array | string | null
  /** Header and query names that carry credentials: dropped by the outbound client when a redirect leaves the origin. */
  secretHeaders: string[]
  secretQueryParams: string[]
}

type Scalar = string | number | boolean | null

const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value)
const text = (value: Scalar): string => (value === null ? '' : String(value))
const JSON_TYPE = /^application\/(.+\+)?json\b/i
// A header value may not break out of its line (Headers would throw; we say which argument).
const UNSAFE_HEADER_VALUE = /[\r\n\0]/

/** A path, query or header value as text, per OpenAPI's default `simple`/`form` styles. */
function joined(value: unknown, separator: string): string {
  if (isScalar(value)) return text(value)
  if (Array.isArray(value)) return value.map((item) => (isScalar(item) ? text(item) : JSON.stringify(item))).join(separator)
  return Object.entries(value as Record<string, unknown>)
    .flatMap(([key, item]) => [key, isScalar(item) ? text(item) : JSON.stringify(item)])
    .join(separator)
}

function appendQuery(params: URLSearchParams, target: Extract<ArgumentTarget, { in: 'query' }> | ArgumentTarget, value: unknown): void {
  if (!('name' in target)) return
  const style = 'style' in target && target.style ? target.style : 'form'
  const explode = 'explode' in target && target.explode !== undefined ? target.explode : style === 'form'
  if ('json' in target && target.json) return params.append(target.name, JSON.stringify(value))
  if (isScalar(value)) return params.append(target.name, text(value))
  if (Array.isArray(value)) {
    if (explode && style === 'form') for (const item of value) params.append(target.name, isScalar(item) ? text(item) : JSON.stringify(item))
    else params.append(target.name, joined(value, style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ','))
    return
  }
  const entries = Object.entries(value as Record<string, unknown>)
  if (style === 'deepObject') for (const [key, item] of entries) params.append(`${target.name}[${key}]`, isScalar(item) ? text(item) : JSON.stringify(item))
  else if (explode) for (const [key, item] of entries) params.append(key, isScalar(item) ? text(item) : JSON.stringify(item))
  else params.append(target.name, joined(value, ','))
}

function decodeBase64(value: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(Buffer.from(value, 'base64'))
  } catch {
    return null
  }
}

async function encodeBody(
  contentType: string,
  value: unknown,
  bodySchema: Record<string, unknown> | undefined,
  headers: Headers,
): Promise<Uint8Array | string> {
  if (JSON_TYPE.test(contentType)) {
    headers.set('content-type', contentType)
    return JSON.stringify(value)
  }
  const properties = (bodySchema?.properties ?? {}) as Record<string, { contentEncoding?: string }>
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const params = new URLSearchParams()
    for (const [name, item] of Object.entries(value)) {
      if (Array.isArray(item)) for (const entry of item) params.append(name, isScalar(entry) ? text(entry) : JSON.stringify(entry))
      else params.append(name, isScalar(item) ? text(item) : JSON.stringify(item))
    }
    headers.set('content-type', 'application/x-www-form-urlencoded')
    return params.toString()
  }
  if (/^multipart\/form-data\b/i.test(contentType) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const form = new FormData()
    for (const [name, item] of Object.entries(value)) {
      const bytes = typeof item === 'string' && properties[name]?.contentEncoding === 'base64' ? decodeBase64(item) : null
      if (bytes) form.append(name, new Blob([bytes]), name)
      else form.append(name, isScalar(item) ? text(item) : JSON.stringify(item))
    }
    const encoded = new Response(form)
    // Read before the body: Bun forgets a FormData response's content-type (with its boundary) once it is consumed.
    headers.set('content-type', encoded.headers.get('content-type')!)
    return new Uint8Array(await encoded.arrayBuffer())
  }
  headers.set('content-type', contentType)
  if (typeof value === 'string') {
    const bytes = bodySchema?.contentEncoding === 'base64' ? decodeBase64(value) : null
    return bytes ?? value
  }
  return JSON.stringify(value)
}

export interface RequestParts {
  baseUrl: URL
  method: string
  path: string
  targets: readonly ArgumentTarget[]
  bodySchema: Record<string, unknown> | undefined
  args: Record<string, unknown>
  credentials: readonly OpenedCredential[]
  userAgent: string
}

export async function buildRequest(parts: RequestParts): Promise<BuiltRequest> {
  const { args } = parts
  const issues: InputIssue[] = []
  const headers = new Headers({ accept: 'application/json, */*;q=0.8', 'user-agent': parts.userAgent })
  const query = new URLSearchParams(parts.baseUrl.search)
  const cookies: string[] = []
  const pathValues = new Map<string, string>()
  let body: Uint8Array | string | null = null

  for (const target of parts.targets) {
    const value = args[target.arg]
    if (value === undefined) continue
    if (target.in === 'body') {
      body = await encodeBody(target.content_type, value, parts.bodySchema, headers)
      continue
    }
    if (target.in === 'path') {
      const raw = target.json ? JSON.stringify(value) : joined(value, ',')
      // `.` and `..` are the two values percent-encoding cannot keep inside a segment: URLs resolve them as steps.
      if (raw === '.' || raw === '..' || raw === '')
        issues.push({ loc: ['arguments', target.arg], msg: 'A path parameter cannot be empty, "." or ".."', type: 'value_error', input: value })
      pathValues.set(target.name, encodeURIComponent(raw))
    } else if (target.in === 'query') appendQuery(query, target, value)
    else {
      const raw = target.json ? JSON.stringify(value) : joined(value, ',')
      if (UNSAFE_HEADER_VALUE.test(raw)) {
        issues.push({ loc: ['arguments', target.arg], msg: 'A header or cookie value cannot contain line breaks or NUL', type: 'value_error', input: value })
        continue
      }
      if (target.in === 'header') headers.set(target.name, raw)
      else cookies.push(`${target.name}=${encodeURIComponent(raw)}`)
    }
  }
  if (issues.length > 0) throw invalidInput(...issues)

  const expanded = parts.path.replace(/\{([^{}]+)\}/g, (_, name: string) => pathValues.get(name) ?? '')
  const url = new URL(parts.baseUrl.href)
  url.pathname = `${parts.baseUrl.pathname.replace(/\/+$/, '')}${expanded.startsWith('/') ? '' : '/'}${expanded}`
  url.hash = ''

  const secretHeaders: string[] = []
  const secretQueryParams: string[] = []
  for (const credential of parts.credentials) {
    if (credential.type === 'basic') headers.set('authorization', `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`)
    else if (credential.type === 'bearer') headers.set('authorization', `Bearer ${credential.token}`)
    else {
      const name = credential.scheme.param_name ?? ''
      if (credential.scheme.in === 'header') {
        headers.set(name, credential.api_key)
        secretHeaders.push(name.toLowerCase())
      } else if (credential.scheme.in === 'query') {
        query.set(name, credential.api_key)
        secretQueryParams.push(name)
      } else cookies.push(`${name}=${encodeURIComponent(credential.api_key)}`)
    }
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '))
  url.search = query.toString()
  return { url, method: parts.method, headers, body, secretHeaders, secretQueryParams }
}
