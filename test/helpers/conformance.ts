// Checks a response against the OpenAPI document the server publishes: its status is documented, its body matches the schema (issue 14, item 20);
// and a request the server accepted against the operation's request body: its media type and fields (issue 26, item 3).
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

type JsonObject = Record<string, any>

/** On unless AGENTBOX_TEST_CONFORMANCE=0: every request a test makes through startTestServer().request is checked. */
export const CONFORMANCE_ENABLED = process.env.AGENTBOX_TEST_CONFORMANCE !== '0'

const DOCUMENT_ID = 'openapi.json'
const CHECKED_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

interface PathTemplate {
  readonly path: string
  readonly segments: readonly (string | null)[]
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1')

/** The documented path `pathname` is served by; a static segment wins over a parameter, as in the router. */
function matchPath(templates: readonly PathTemplate[], pathname: string): string | undefined {
  const parts = pathname.split('/')
  let best: { path: string; rank: string } | undefined
  for (const template of templates) {
    if (template.segments.length !== parts.length) continue
    if (!template.segments.every((segment, i) => (segment === null ? parts[i] !== '' : segment === parts[i]))) continue
    const rank = template.segments.map((segment) => (segment === null ? '1' : '0')).join('')
    if (!best || rank < best.rank) best = { path: template.path, rank }
  }
  return best?.path
}

/** One compiled document: validators are compiled on first use and kept for every server that publishes the same bytes. */
export class ConformanceChecker {
  readonly #document: JsonObject
  readonly #ajv: Ajv2020
  readonly #templates: PathTemplate[]
  readonly #validators = new Map<string, ValidateFunction>()

  constructor(document: JsonObject) {
    this.#document = document
    // strict off: OpenAPI documents carry keywords JSON Schema does not know (the document itself is added as one schema).
    this.#ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(this.#ajv)
    this.#ajv.addSchema(document, DOCUMENT_ID)
    this.#templates = Object.keys(document.paths).map((path) => ({
      path,
      segments: path.split('/').map((segment) => (/^\{.+\}$/.test(segment) ? null : segment)),
    }))
  }

  #response(operationPointer: string, status: number): { pointer: string; response: JsonObject } | undefined {
    const operation = this.#resolve(operationPointer)
    for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
      const response = operation.responses?.[key]
      if (!response) continue
      if (typeof response.$ref === 'string') return { pointer: response.$ref.slice(1), response: this.#resolve(response.$ref.slice(1)) }
      return { pointer: `${operationPointer}/responses/${escapePointer(key)}`, response }
    }
    return undefined
  }

  #resolve(pointer: string): JsonObject {
    let node: any = this.#document
    for (const part of pointer.split('/').slice(1)) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
    return node
  }

  #validator(schemaPointer: string): ValidateFunction {
    let validate = this.#validators.get(schemaPointer)
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}#${schemaPointer}` })
      this.#validators.set(schemaPointer, validate)
    }
    return validate
  }

  /** What is wrong with this response according to the document; empty when it conforms or the path is not documented. */
  problems(method: string, pathname: string, response: { status: number; headers: Headers; text: string }): string[] {
    if (!CHECKED_METHODS.has(method)) return []
    const path = matchPath(this.#templates, pathname)
    if (!path) return []
    const operationPointer = `/paths/${escapePointer(path)}/${method.toLowerCase()}`
    if (!this.#document.paths[path][method.toLowerCase()]) return this.#methodNotAllowedProblems(path, response)

    const found = this.#response(operationPointer, response.status)
    // A server failure is outside the contract: a test that provokes one asserts it itself.
    if (!found && response.status >= 500) return []
    if (!found)
      return [
        `status ${response.status} is not documented for ${method} ${path}: declare it in the route's detail.responses ({ ${response.status}: { description: '…' } })`,
      ]
    const problems: string[] = []
    for (const header of Object.keys(found.response.headers ?? {})) {
      if (!response.headers.has(header)) problems.push(`status ${response.status} lacks its documented ${header} header`)
    }
    const content = found.response.content as JsonObject | undefined
    if (!content) {
      if (response.text.length > 0) problems.push(`status ${response.status} is documented without a body but has one: ${response.text.slice(0, 200)}`)
      return problems
    }
    // A body documented as any media type (a file as uploaded) or sent encoded (gzip) has no schema to check here.
    if (content['*/*'] && (!content['application/json'] || !(response.headers.get('content-type') ?? '').includes('json'))) return problems
    // A file of a named media type (a zip): the response must be of that type; its bytes have no schema to check.
    const sentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
    const file = content[sentType] as { schema?: { format?: string } } | undefined
    if (sentType !== 'application/json' && file?.schema?.format === 'binary') return problems
    if (response.headers.has('content-encoding')) return problems
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      if (!content['text/event-stream']) return [...problems, `status ${response.status} is an event stream, which the document does not describe`]
      return [...problems, ...this.#eventProblems(`${found.pointer}/content/text~1event-stream`, content['text/event-stream'], response.text)]
    }
    if (!content['application/json'])
      return [...problems, `status ${response.status} is documented with ${Object.keys(content).join(', ')}, which this checker does not read`]
    if (!(response.headers.get('content-type') ?? '').includes('application/json')) {
      return [...problems, `status ${response.status} should be application/json, is ${response.headers.get('content-type')}`]
    }
    let body: unknown
    try {
      body = JSON.parse(response.text)
    } catch {
      return [...problems, `status ${response.status} body is not JSON: ${response.text.slice(0, 200)}`]
    }
    const validate = this.#validator(`${found.pointer}/content/application~1json/schema`)
    if (!validate(body)) {
      for (const error of validate.errors ?? []) {
        problems.push(`body${error.instancePath} ${error.message}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`)
      }
    }
    return problems
  }

  /**
   * An event stream against its media type's `x-sse-events` (event name → the schema of its JSON data): every event is
   * named there and its data fits. Comment lines (keep-alives) are skipped.
   */
  #eventProblems(pointer: string, media: JsonObject, text: string): string[] {
    const events = media['x-sse-events'] as Record<string, unknown> | undefined
    if (!events) return []
    const problems: string[] = []
    for (const block of text.split('\n\n')) {
      const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'))
      if (lines.length === 0) continue
      const name = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message'
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n')
      if (!(name in events)) {
        problems.push(`event "${name}" is not documented in x-sse-events`)
        continue
      }
      let value: unknown
      try {
        value = JSON.parse(data)
      } catch {
        problems.push(`event "${name}" data is not JSON: ${data.slice(0, 200)}`)
        continue
      }
      const validate = this.#validator(`${pointer}/x-sse-events/${escapePointer(name)}`)
      if (!validate(value))
        for (const error of validate.errors ?? []) problems.push(`event ${name} data${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`)
    }
    return problems
  }

  /**
   * What the document gets wrong about a request the server accepted (a 2xx): the operation must describe a body of the
   * media type it was sent as (multipart/form-data, or JSON: the server reads every other body as JSON), and the body
   * must fit that description. `body` is the JSON value sent, or the form for a multipart request.
   */
  requestProblems(method: string, pathname: string, request: { contentType: string | null; body: unknown }, status: number): string[] {
    if (status < 200 || status > 299 || request.body === undefined || !CHECKED_METHODS.has(method)) return []
    const path = matchPath(this.#templates, pathname)
    const operation = path ? this.#document.paths[path][method.toLowerCase()] : undefined
    const content = operation?.requestBody?.content as JsonObject | undefined
    if (!content) return []
    const multipart = (request.contentType ?? '').startsWith('multipart/form-data')
    const mediaType = multipart ? 'multipart/form-data' : 'application/json'
    const described = content[mediaType]
    if (!described)
      return [
        `${method} ${path} accepted a ${mediaType} body, but the document describes it as ${Object.keys(content).join(', ')}: clients would send the wrong kind of body`,
      ]
    const pointer = `/paths/${escapePointer(path!)}/${method.toLowerCase()}/requestBody/content/${escapePointer(mediaType)}/schema`
    if (multipart) return formProblems(this.#resolve(pointer), request.body as FormData)
    const validate = this.#validator(pointer)
    if (validate(request.body)) return []
    return (validate.errors ?? []).map(
      (error) => `request body${error.instancePath} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''} (the server accepted it)`,
    )
  }

  #methodNotAllowedProblems(path: string, response: { status: number; headers: Headers; text: string }): string[] {
    if (response.status !== 405) return [`a method ${path} does not document answered ${response.status}, not 405`]
    const problems: string[] = []
    const documented = Object.keys(this.#document.paths[path]).map((m) => m.toUpperCase())
    const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim())
    for (const method of documented) if (!allow.includes(method)) problems.push(`405 Allow header "${response.headers.get('allow')}" lacks ${method}`)
    if (response.text !== JSON.stringify({ detail: 'Method Not Allowed' })) problems.push(`405 body is ${response.text.slice(0, 200)}`)
    return problems
  }
}

/** A form the server accepted against its schema: required fields present; files where `format: binary` says so, text elsewhere. */
function formProblems(schema: JsonObject, form: FormData): string[] {
  const problems: string[] = []
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>
  for (const name of (schema.required ?? []) as string[]) if (!form.has(name)) problems.push(`form field ${name} is required by the document but was not sent`)
  for (const [name, value] of form.entries()) {
    const property = properties[name]
    if (!property) continue
    const binary = property.format === 'binary' || property.items?.format === 'binary'
    if (binary && typeof value === 'string') problems.push(`form field ${name} is a file in the document, but a text value was accepted`)
    if (!binary && typeof value !== 'string') problems.push(`form field ${name} is not a file in the document, but a file was accepted`)
  }
  return problems
}

const checkers = new Map<string, ConformanceChecker>()

/** The checker for a published document, shared by every server in this test process that publishes the same bytes. */
export function conformanceChecker(documentText: string): ConformanceChecker {
  let checker = checkers.get(documentText)
  if (!checker) {
    checker = new ConformanceChecker(JSON.parse(documentText))
    checkers.set(documentText, checker)
  }
  return checker
}

/** The error a test sees when a response breaks the document: which request, which response, what is wrong. */
export class ConformanceError extends Error {
  constructor(method: string, path: string, status: number, problems: string[]) {
    super(
      `${method} ${path} → ${status} does not conform to /api/openapi.json:\n  ${problems.join('\n  ')}\n` +
        '(checked by test/helpers/conformance.ts; fix the schema or the handler, or set AGENTBOX_TEST_CONFORMANCE=0 to look at something else first)',
    )
    this.name = 'ConformanceError'
  }
}
