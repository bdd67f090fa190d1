// The protected resources: this instance's MCP URLs (agents, MCP apps and the MCP gateway). A token is requested for one of them (RFC 8707 `resource`) and
// only accepted there; the protected-resource metadata (RFC 9728) names the authorization server for each.

export type McpResourceKind = 'agent' | 'agent_design' | 'app' | 'gateway'

export interface McpResource {
  /** origin + path, the form verifyAccessToken compares. */
  readonly url: string
  readonly kind: McpResourceKind
  /** The agent's name, the application's api_name, or `gateway`. */
  readonly name: string
}

const SHAPES: readonly (readonly [RegExp, McpResourceKind])[] = [
  [/^\/agent\/([^/]+)\/mcp$/, 'agent'],
  [/^\/agent\/([^/]+)\/design\/mcp$/, 'agent_design'],
  [/^\/app\/([^/]+)\/mcp$/, 'app'],
  [/^\/mcp\/(gateway)$/, 'gateway'],
]

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource'
export const OAUTH_SCOPES = ['mcp'] as const

/** The MCP resource `raw` names on this origin, or null (another origin, a query or fragment, not an MCP path). */
export function parseMcpResource(raw: string, origin: string): McpResource | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  if (url.origin !== origin || url.search !== '' || url.hash !== '' || raw.includes('#') || url.username !== '' || url.password !== '') return null
  for (const [shape, kind] of SHAPES) {
    const match = shape.exec(url.pathname)
    if (!match) continue
    let name: string
    try {
      name = decodeURIComponent(match[1]!)
    } catch {
      return null
    }
    return { url: `${url.origin}${url.pathname}`, kind, name }
  }
  return null
}

/** How the consent page and the metadata name a resource to a person. */
export function describeResource(resource: McpResource): string {
  if (resource.kind === 'agent') return `Agentbox agent "${resource.name}"`
  if (resource.kind === 'agent_design') return `Agentbox agent "${resource.name}" (design)`
  if (resource.kind === 'gateway') return 'Agentbox MCP gateway (the MCP servers you connected)'
  return `Agentbox application "${resource.name}"`
}

export interface ProtectedResourceMetadata {
  resource: string
  authorization_servers: string[]
  scopes_supported: string[]
  bearer_methods_supported: ['header']
  resource_name?: string
}

/**
 * RFC 9728 metadata for `origin` + `path` (an MCP path, or '' for the root document). The agent or application is not
 * looked up: an anonymous caller learns nothing about which names exist.
 */
export function protectedResourceMetadata(origin: string, path: string): ProtectedResourceMetadata {
  const resource = path === '' ? null : parseMcpResource(`${origin}${path}`, origin)
  return {
    resource: resource?.url ?? origin,
    authorization_servers: [origin],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    ...(resource && { resource_name: describeResource(resource) }),
  }
}

/** RFC 8414 metadata: every endpoint under the issuer, which is the origin the request came to. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    registration_endpoint: `${origin}/oauth/register`,
    revocation_endpoint: `${origin}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...OAUTH_SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  }
}
