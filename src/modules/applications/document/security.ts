// Security schemes and OAuth scopes of a document: what credentials an application can hold and which scopes exist.
import type { ImportWarning } from './read.ts'
import { followRefs, isObject } from './pointer.ts'

/** How a credential of this scheme is sent: what `PUT …/credentials` accepts for it. */
export type CredentialType = 'basic' | 'bearer' | 'api_key'

export interface SecurityScheme {
  name: string
  /** The document's type: `http`, `apiKey`, `oauth2`, `openIdConnect`, `mutualTLS`. */
  type: string
  /** For `http`: `basic`, `bearer`… (lowercase). */
  scheme?: string
  /** For `apiKey`: `header`, `query` or `cookie`. */
  in?: string
  /** For `apiKey`: the header, query parameter or cookie name. */
  param_name?: string
}

/** One alternative of an operation's security: every named scheme is needed, with these scopes. */
export type SecurityRequirement = Record<string, string[]>

export interface DeclaredScope {
  scope: string
  description: string
  security_schemes: string[]
}

/** How a scheme's credential is applied, or null when Agentbox cannot hold one (mutual TLS, HTTP digest…). */
export function credentialTypeOf(scheme: SecurityScheme): CredentialType | null {
  if (scheme.type === 'http') return scheme.scheme === 'basic' ? 'basic' : scheme.scheme === 'bearer' ? 'bearer' : null
  if (scheme.type === 'apiKey') return scheme.in === 'header' || scheme.in === 'query' || scheme.in === 'cookie' ? 'api_key' : null
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return 'bearer'
  return null
}

export function readSecuritySchemes(
  document: Record<string, unknown>,
  warnings: ImportWarning[],
): { schemes: SecurityScheme[]; declaredScopes: Map<string, DeclaredScope> } {
  const components = isObject(document.components) ? document.components : {}
  const raw = isObject(components.securitySchemes) ? components.securitySchemes : {}
  const schemes: SecurityScheme[] = []
  const declaredScopes = new Map<string, DeclaredScope>()
  for (const [name, value] of Object.entries(raw)) {
    const object = followRefs(document, value)
    if (!isObject(object) || typeof object.type !== 'string') {
      warnings.push({ pointer: `/components/securitySchemes/${name}`, message: 'Security scheme without a type is ignored' })
      continue
    }
    const scheme: SecurityScheme = { name, type: object.type }
    if (object.type === 'http' && typeof object.scheme === 'string') scheme.scheme = object.scheme.toLowerCase()
    if (object.type === 'apiKey') {
      if (typeof object.in === 'string') scheme.in = object.in
      if (typeof object.name === 'string') scheme.param_name = object.name
    }
    if (credentialTypeOf(scheme) === null)
      warnings.push({
        pointer: `/components/securitySchemes/${name}`,
        message: `Security scheme "${name}" (${object.type}${scheme.scheme ? ` ${scheme.scheme}` : ''}) cannot hold a credential here; operations that need it cannot be called`,
      })
    if (object.type === 'apiKey' && !scheme.param_name)
      warnings.push({ pointer: `/components/securitySchemes/${name}`, message: `API key scheme "${name}" names no header, query parameter or cookie` })
    schemes.push(scheme)
    if (object.type === 'oauth2' && isObject(object.flows)) {
      for (const flow of Object.values(object.flows)) {
        if (!isObject(flow) || !isObject(flow.scopes)) continue
        for (const [scope, description] of Object.entries(flow.scopes))
          noteScope(declaredScopes, scope, name, typeof description === 'string' ? description : '')
      }
    }
  }
  return { schemes, declaredScopes }
}

export function noteScope(scopes: Map<string, DeclaredScope>, scope: string, schemeName: string, description: string): void {
  const entry = scopes.get(scope) ?? { scope, description: '', security_schemes: [] }
  if (!entry.description && description) entry.description = description
  if (!entry.security_schemes.includes(schemeName)) entry.security_schemes.push(schemeName)
  scopes.set(scope, entry)
}

/** A `security` array as requirements; anything malformed is skipped. `[]` means no authentication. */
export function readRequirements(value: unknown): SecurityRequirement[] {
  if (!Array.isArray(value)) return []
  const requirements: SecurityRequirement[] = []
  for (const item of value) {
    if (!isObject(item)) continue
    const requirement: SecurityRequirement = {}
    for (const [scheme, scopes] of Object.entries(item))
      requirement[scheme] = Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === 'string') : []
    requirements.push(requirement)
  }
  return requirements
}
