// What an external MCP server keeps sealed, all in the vault's `mcp_server_token` namespace with the server's id as the
// subject: each user's token (bearer, or OAuth 2 tokens with what refreshing them takes), the organisation's client
// secret at the server's authorization server, and the PKCE verifier of each authorization waiting for its callback.
import { ORG_OWNER, type SecretNamespaceDefinition, type SecretRef } from '../../platform/secrets/index.ts'

export const MCP_SERVER_SECRETS: SecretNamespaceDefinition = {
  name: 'mcp_server_token',
  label: 'external MCP server tokens',
  types: ['bearer', 'oauth2', 'basic'],
}

/** A user's token for a server (name ''). */
export const userToken = (serverId: string, userId: string): SecretRef => ({ subject: serverId, owner: userId })

/** The OAuth client's id and secret (Basic: id as the user name, secret as the password), when the client has a secret. */
export const clientSecret = (serverId: string): SecretRef => ({ subject: serverId, owner: ORG_OWNER, name: 'client' })

/** The PKCE verifier of one pending authorization, named by its state's hash. */
export const pkceVerifier = (serverId: string, userId: string, stateHash: string): SecretRef => ({
  subject: serverId,
  owner: userId,
  name: `pkce_${stateHash}`,
})
