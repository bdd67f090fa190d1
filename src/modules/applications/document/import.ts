// One uploaded API description, read and turned into what an application stores: its identity, security schemes,
// scopes and operations, each already serialised so that storing them is cheap. Pure and synchronous after parsing,
// so it runs in the import worker (import-worker.ts) away from the request thread.
import { type ExtractedOperation, extractOperations } from './operations.ts'
import { isObject } from './pointer.ts'
import { type DocumentSource, readApiDocument, type ImportWarning, MAX_WARNINGS } from './read.ts'
import { readSecuritySchemes, noteScope, type DeclaredScope, type SecurityScheme } from './security.ts'

export interface AvailableScope extends DeclaredScope {
  operations: string[]
}

/** An operation as stored: the JSON parts already as text. */
export interface ImportedOperation {
  operation_id: string
  method: string
  path: string
  summary: string
  description: string
  tags: string
  deprecated: number
  input_schema: string
  scopes: string
  security: string
  targets: string
  sample: string
}

export interface ImportedDocument {
  title: string
  description: string
  version: string
  openapi_version: string
  /** The first `servers` URL with its variables at their defaults, or null. May be relative (then base_url is needed). */
  server_url: string | null
  security_schemes: SecurityScheme[]
  scopes: AvailableScope[]
  operations: ImportedOperation[]
  warnings: ImportWarning[]
}

function firstServerUrl(document: Record<string, unknown>): string | null {
  const servers = Array.isArray(document.servers) ? document.servers : []
  const first = servers[0]
  if (!isObject(first) || typeof first.url !== 'string') return null
  const variables = isObject(first.variables) ? first.variables : {}
  return first.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = variables[name]
    return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole
  })
}

const storedOperation = (operation: ExtractedOperation): ImportedOperation => ({
  operation_id: operation.operation_id,
  method: operation.method,
  path: operation.path,
  summary: operation.summary,
  description: operation.description,
  tags: JSON.stringify(operation.tags),
  deprecated: operation.deprecated ? 1 : 0,
  input_schema: JSON.stringify(operation.input_schema),
  scopes: JSON.stringify(operation.scopes),
  security: JSON.stringify(operation.security),
  targets: JSON.stringify(operation.targets),
  sample: JSON.stringify(operation.sample),
})

/** Operations built between two requested collections (each leaves its intermediate schemas and JSON behind). */
const OPERATIONS_PER_COLLECTION = 250

/** `input` as text, or a source whose text is let go once parsed (the import worker's, for memory). */
export async function importApiDocument(input: string | DocumentSource): Promise<ImportedDocument> {
  const { document, openapiVersion, warnings } = await readApiDocument(input)
  const info = document.info as Record<string, unknown>
  const { schemes, declaredScopes } = readSecuritySchemes(document, warnings)
  // Each operation is stored as text as soon as it is built; what the scopes and warnings below need is noted apart.
  const uses: { id: string; scopes: string[]; schemes: string[] }[] = []
  const collectSoon = typeof input === 'string' ? undefined : input.collectSoon
  const { operations, requiredScopes } = extractOperations(document, warnings, (operation) => {
    if (collectSoon && uses.length % OPERATIONS_PER_COLLECTION === OPERATIONS_PER_COLLECTION - 1) collectSoon()
    uses.push({ id: operation.operation_id, scopes: operation.scopes, schemes: operation.security.flatMap((requirement) => Object.keys(requirement)) })
    return storedOperation(operation)
  })
  if (typeof input !== 'string') input.collect?.()
  const known = new Set(schemes.map((scheme) => scheme.name))
  const unknownWarned = new Set<string>()

  const scopes = new Map<string, AvailableScope>()
  for (const entry of declaredScopes.values()) scopes.set(entry.scope, { ...entry, operations: [] })
  for (const entry of requiredScopes.values())
    for (const scheme of entry.security_schemes) {
      noteScope(scopes as Map<string, DeclaredScope>, entry.scope, scheme, '')
      const merged = scopes.get(entry.scope)!
      if (!('operations' in merged)) (merged as AvailableScope).operations = []
    }
  for (const operation of uses) {
    for (const scope of operation.scopes) scopes.get(scope)?.operations.push(operation.id)
    for (const scheme of operation.schemes)
      if (!known.has(scheme) && !unknownWarned.has(scheme)) {
        unknownWarned.add(scheme)
        if (warnings.length < MAX_WARNINGS)
          warnings.push({
            pointer: '/components/securitySchemes',
            message: `Security scheme "${scheme}" is required but not defined; operations that need it cannot be called`,
          })
      }
  }

  return {
    title: (info.title as string).trim().slice(0, 200),
    description: typeof info.description === 'string' ? info.description.slice(0, 8000) : '',
    version: typeof info.version === 'string' ? info.version.slice(0, 100) : String(info.version ?? ''),
    openapi_version: openapiVersion,
    server_url: firstServerUrl(document),
    security_schemes: schemes,
    scopes: [...scopes.values()].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0)),
    operations,
    warnings: warnings.slice(0, MAX_WARNINGS),
  }
}
