// Request and response schemas of the authorization server, its metadata documents and the console's consent and
// connected-clients API. The OAuth endpoints check their own parameters (their errors are RFC 6749's, not 422s), so
// their request schemas only document.
import { t } from 'elysia'
import { DateTime, NullableDateTime } from '../../platform/http/schema-pieces.ts'

export const OauthErrorBody = t.Object({
  error: t.String({ description: 'invalid_request, invalid_client, invalid_grant, unsupported_grant_type, invalid_target, invalid_redirect_uri…' }),
  error_description: t.Optional(t.String()),
})

export const ProtectedResourceMetadata = t.Object({
  resource: t.String({ description: 'The MCP URL (path-aware document) or the origin (root document)' }),
  authorization_servers: t.Array(t.String()),
  scopes_supported: t.Array(t.String()),
  bearer_methods_supported: t.Array(t.String()),
  resource_name: t.Optional(t.String()),
})

export const AuthorizationServerMetadata = t.Object({
  issuer: t.String(),
  authorization_endpoint: t.String(),
  token_endpoint: t.String(),
  registration_endpoint: t.String(),
  revocation_endpoint: t.String(),
  response_types_supported: t.Array(t.String()),
  response_modes_supported: t.Array(t.String()),
  grant_types_supported: t.Array(t.String()),
  code_challenge_methods_supported: t.Array(t.String()),
  token_endpoint_auth_methods_supported: t.Array(t.String()),
  revocation_endpoint_auth_methods_supported: t.Array(t.String()),
  scopes_supported: t.Array(t.String()),
  client_id_metadata_document_supported: t.Boolean(),
  authorization_response_iss_parameter_supported: t.Boolean(),
})

export const RegisterClientBody = t.Object({
  redirect_uris: t.Array(t.String({ maxLength: 1024 }), {
    minItems: 1,
    maxItems: 10,
    description: 'Exact URIs: https, http only on 127.0.0.1, [::1] or localhost, or an app scheme (vscode://…); no fragment',
  }),
  client_name: t.Optional(t.String({ maxLength: 200 })),
  client_uri: t.Optional(t.String({ maxLength: 1024 })),
  logo_uri: t.Optional(t.String({ maxLength: 1024 })),
  grant_types: t.Optional(t.Array(t.String(), { description: 'Must include authorization_code; refresh_token is the only other' })),
  response_types: t.Optional(t.Array(t.String(), { description: 'Must include code' })),
  token_endpoint_auth_method: t.Optional(t.String({ description: 'Always none: clients are public and use PKCE' })),
})

export const RegisteredClient = t.Object({
  client_id: t.String(),
  client_id_issued_at: t.Integer({ description: 'Seconds since the Unix epoch' }),
  client_name: t.Optional(t.String()),
  client_uri: t.Optional(t.String()),
  logo_uri: t.Optional(t.String()),
  redirect_uris: t.Array(t.String()),
  grant_types: t.Array(t.String()),
  response_types: t.Array(t.String()),
  token_endpoint_auth_method: t.Literal('none'),
})

export const TokenRequest = t.Object({
  grant_type: t.Union([t.Literal('authorization_code'), t.Literal('refresh_token')]),
  client_id: t.String(),
  code: t.Optional(t.String({ description: 'authorization_code' })),
  redirect_uri: t.Optional(t.String({ description: 'authorization_code: as sent to /oauth/authorize' })),
  code_verifier: t.Optional(t.String({ description: 'authorization_code: the PKCE verifier' })),
  refresh_token: t.Optional(t.String({ description: 'refresh_token: the newest one; it is replaced by the answer' })),
  resource: t.Optional(t.String({ description: 'If given, the MCP URL the grant was made for' })),
})

export const TokenResponse = t.Object({
  access_token: t.String({ description: 'abx_oat_…, valid for expires_in seconds at the one MCP URL it was issued for' }),
  token_type: t.Literal('Bearer'),
  expires_in: t.Integer(),
  refresh_token: t.String({ description: 'abx_ort_…, single use: each refresh returns a new one' }),
  scope: t.String(),
})

export const RevokeRequest = t.Object({
  token: t.String(),
  token_type_hint: t.Optional(t.String()),
  client_id: t.Optional(t.String()),
})

export const AuthorizationRequest = t.Object({
  id: t.String(),
  client_id: t.String(),
  client_name: t.Union([t.String(), t.Null()]),
  client_uri: t.Union([t.String(), t.Null()]),
  redirect_uri: t.String(),
  redirect_host: t.String({ description: 'Where the code will be sent: the host, or the app scheme' }),
  resource: t.String({ description: 'The MCP URL the tokens will be bound to' }),
  resource_kind: t.Union([t.Literal('agent'), t.Literal('agent_design'), t.Literal('app'), t.Literal('gateway')]),
  resource_name: t.String({ description: "The agent's name or the application's api_name" }),
  resource_description: t.String(),
  scope: t.String(),
  expires_at: DateTime,
})

export const DecideBody = t.Object({ approve: t.Boolean() })
export const DecideResponse = t.Object({ redirect_to: t.String({ description: "The client's redirect URI with the code, or with error=access_denied" }) })

export const Grant = t.Object({
  id: t.String(),
  client_id: t.String(),
  client_name: t.Union([t.String(), t.Null()]),
  resource: t.String(),
  scope: t.String(),
  created_at: DateTime,
  last_used_at: NullableDateTime,
  expires_at: DateTime,
})
