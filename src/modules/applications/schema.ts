// Request and response schemas of applications, operations, credentials and the outbound call.
import { t } from 'elysia'
import { pageQueryFields } from '../../platform/http/paging.ts'
import { DateTime, DisplayName, NullableDateTime } from '../../platform/http/schema-pieces.ts'
import { APPLICATION_PAGING, OPERATION_PAGING } from './service.ts'

// A record, not an open object: the server's TypeBox Clean keeps a record's entries but drops an open object's unknown keys.
const Free = t.Record(t.String(), t.Unknown())

export const ApiNameParams = t.Object({ api_name: t.String() })
export const OperationParams = t.Object({ api_name: t.String(), operation_id: t.String() })
export const CredentialParams = t.Object({ api_name: t.String(), scheme: t.String() })
export const NoContent = t.Undefined({ description: 'No content' })

const Flag = (description: string) => t.Optional(t.BooleanString({ description: `${description} Default false.` }))

export const SpecUploadBody = t.Object({
  file: t.File({ description: 'OpenAPI 3.0 or 3.1, or Swagger 2.0, as JSON or YAML; at most 32 MiB' }),
  api_name: t.Optional(t.String({ maxLength: 200, description: "The application's name (kebab-case); default: derived from info.title" })),
  replace: Flag('Import a new revision of an existing application, keeping its credentials, base_url and metadata.'),
  global_spec: Flag('Visible to every member (admins only); else to the uploader and admins.'),
  shared_security_info: Flag('One organisation-wide credential set by an admin is used for everyone; else each user connects their own.'),
  create_mcp: Flag('Also serve the application as an MCP app.'),
})

const SecurityScheme = t.Object({
  name: t.String(),
  type: t.String({ description: 'http, apiKey, oauth2, openIdConnect or mutualTLS' }),
  scheme: t.Optional(t.String({ description: 'For http: basic, bearer…' })),
  in: t.Optional(t.String({ description: 'For apiKey: header, query or cookie' })),
  param_name: t.Optional(t.String({ description: 'For apiKey: the header, query parameter or cookie name' })),
})
const ImportWarning = t.Object({ pointer: t.String({ description: 'JSON pointer into the uploaded document' }), message: t.String() })

export const ImportResult = t.Object({
  api_name: t.String(),
  application_id: t.String({ description: 'The same as api_name' }),
  title: t.String(),
  version: t.String(),
  openapi_version: t.String({ description: 'The uploaded document\'s version ("2.0" for Swagger)' }),
  operations_count: t.Integer(),
  scopes: t.Array(t.String()),
  security_schemes: t.Array(SecurityScheme),
  global_spec: t.Boolean(),
  shared_security_info: t.Boolean(),
  create_mcp: t.Boolean(),
  mcp_url: t.Union([t.String(), t.Null()]),
  warnings: t.Array(ImportWarning),
  revision: t.Integer({ description: '1 for a new application, +1 per replace' }),
})

export const Application = t.Object({
  api_name: t.String(),
  application_id: t.String(),
  title: t.String(),
  description: t.String(),
  version: t.String(),
  openapi_version: t.String(),
  base_url: t.Union([t.String(), t.Null()], { description: 'Where calls go; wins over server_url' }),
  server_url: t.Union([t.String(), t.Null()], { description: "The document's first server URL" }),
  metadata: Free,
  global_spec: t.Boolean(),
  shared_security_info: t.Boolean(),
  create_mcp: t.Boolean(),
  mcp_url: t.Union([t.String(), t.Null()]),
  operations_count: t.Integer(),
  scopes: t.Array(t.String()),
  security_schemes: t.Array(SecurityScheme),
  warnings: t.Array(ImportWarning, { description: 'What the last import noticed' }),
  owner_id: t.String(),
  revision: t.Integer(),
  created_at: DateTime,
  updated_at: DateTime,
})

export const ApplicationListQuery = t.Object({
  min_priority: t.Optional(t.Integer({ minimum: 1, maximum: 10, description: 'Only applications whose metadata.priority is at least this' })),
  q: t.Optional(t.String({ maxLength: 200, description: 'Case-insensitive text in name, title or description' })),
  ...pageQueryFields(APPLICATION_PAGING),
})

export const ApplicationPatch = t.Object({
  title: t.Optional(DisplayName(200)),
  description: t.Optional(t.String({ maxLength: 8000 })),
  base_url: t.Optional(
    t.Union([t.String({ maxLength: 2048 }), t.Null()], { description: "Absolute http(s) URL calls go to; null returns to the document's server" }),
  ),
  metadata: t.Optional(t.Record(t.String(), t.Unknown(), { description: 'Replaces the metadata; priority is an integer 1-10' })),
})

export const OperationListQuery = t.Object({
  tag: t.Optional(t.String({ description: 'Only operations with this tag' })),
  ...pageQueryFields(OPERATION_PAGING),
})

export const Operation = t.Object({
  operation_id: t.String(),
  method: t.String(),
  path: t.String(),
  summary: t.String(),
  description: t.String(),
  tags: t.Array(t.String()),
  input_schema: t.Record(t.String(), t.Unknown(), { description: 'JSON Schema 2020-12 of the arguments: parameters by name, the request body as `body`' }),
  scopes: t.Array(t.String()),
  deprecated: t.Boolean(),
})

export const AvailableScope = t.Object({
  scope: t.String(),
  description: t.String(),
  security_schemes: t.Array(t.String()),
  operations: t.Array(t.String()),
})

const CredentialType = t.Union([t.Literal('basic'), t.Literal('bearer'), t.Literal('api_key')])
export const CredentialEntry = t.Object({
  scheme: t.String(),
  type: CredentialType,
  scope: t.Union([t.Literal('org'), t.Literal('user')]),
  connected: t.Boolean(),
  reason: t.Optional(t.String({ description: 'Why a stored credential cannot be used' })),
  updated_at: NullableDateTime,
})
export const CredentialBody = t.Object({
  scheme: t.String({ minLength: 1, maxLength: 200, description: "The security scheme's name in the document" }),
  username: t.Optional(t.String({ maxLength: 1024, description: 'basic' })),
  password: t.Optional(t.String({ maxLength: 4096, description: 'basic' })),
  token: t.Optional(t.String({ maxLength: 16384, description: 'bearer (http bearer, oauth2, openIdConnect)' })),
  api_key: t.Optional(t.String({ maxLength: 16384, description: 'api_key (header, query or cookie)' })),
  refresh_token: t.Optional(t.String({ maxLength: 16384, description: 'oauth2 / openIdConnect: renews `token` when it is about to expire' })),
  expires_in: t.Optional(t.Integer({ minimum: 1, maximum: 10 * 366 * 86400, description: 'oauth2 / openIdConnect: seconds `token` stays valid, from now' })),
  token_url: t.Optional(t.String({ maxLength: 2048, description: 'oauth2 / openIdConnect, with refresh_token: the token endpoint (absolute http(s))' })),
  client_id: t.Optional(t.String({ maxLength: 1024, description: 'oauth2 / openIdConnect, with refresh_token: the client the tokens were issued to' })),
  client_secret: t.Optional(t.String({ maxLength: 4096, description: 'oauth2 / openIdConnect, with refresh_token: the client secret, if the client has one' })),
})

export const ExecuteBody = t.Object({
  arguments: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Checked against the operation's input_schema" })),
  dry_run: t.Optional(t.Boolean({ description: "Answer from the document's example; nothing is sent or recorded" })),
})
export const ExecuteResult = t.Object({
  status: t.Integer({ description: "The upstream's status" }),
  headers: t.Record(t.String(), t.String(), { description: 'content-type and a safe list (paging, rate limits, caching)' }),
  body: t.Unknown({ description: 'Parsed JSON, text, or base64 for binary content' }),
  truncated: t.Boolean({ description: 'The upstream answered more than 5 MiB; the body was cut' }),
  duration_ms: t.Number(),
  interaction_id: t.Union([t.String(), t.Null()]),
  dry_run: t.Boolean(),
})
