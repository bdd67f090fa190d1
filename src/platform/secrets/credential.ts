// The one credential model: what a sealed secret holds, whoever keeps it (applications' security schemes, git
// repositories, external MCP servers). Each type is defined once here: its fields, which of them a caller gives, and
// how it is checked; how a consumer applies it to a request (a header, a query parameter, git's Basic password) is
// the consumer's business, with the helpers at the end for the common cases.
import type { InputIssue } from '../errors.ts'

export type CredentialType = 'basic' | 'bearer' | 'api_key' | 'oauth2'
export const CREDENTIAL_TYPES: readonly CredentialType[] = ['basic', 'bearer', 'api_key', 'oauth2']

export interface BasicCredential {
  readonly type: 'basic'
  readonly username: string
  /** May be empty (some APIs take a key as the user name and no password). */
  readonly password: string
}

export interface BearerCredential {
  readonly type: 'bearer'
  readonly token: string
}

export interface ApiKeyCredential {
  readonly type: 'api_key'
  readonly api_key: string
}

/** How the client authenticates at the token endpoint (RFC 6749 §2.3.1, RFC 8414 names). */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none'

/** OAuth 2 tokens with what refreshing them takes. Without a refresh token it is used until it expires. */
export interface OAuth2Credential {
  readonly type: 'oauth2'
  readonly access_token: string
  readonly refresh_token?: string
  /** ISO 8601; absent when the server gave no lifetime (the token is used until refused). */
  readonly expires_at?: string
  readonly token_endpoint?: string
  readonly client_id?: string
  readonly client_secret?: string
  /** Default: client_secret_post with a client secret, none without. */
  readonly token_endpoint_auth_method?: TokenEndpointAuthMethod
  readonly scope?: string
  /** The RFC 8707 resource indicator the tokens were issued for, sent again with each refresh (MCP servers ask for it). */
  readonly resource?: string
}

export type Credential = BasicCredential | BearerCredential | ApiKeyCredential | OAuth2Credential
export type CredentialOf<T extends CredentialType> = Extract<Credential, { type: T }>

/** A field as a caller gives it; `secret` fields are never echoed in an error's `input`. */
interface FieldDefinition {
  readonly required: boolean
  readonly secret: boolean
  /** An empty string is accepted (a Basic password). */
  readonly mayBeEmpty?: boolean
}

interface CredentialDefinition {
  readonly label: string
  readonly fields: Readonly<Record<string, FieldDefinition>>
}

const secret = (required: boolean, mayBeEmpty = false): FieldDefinition => ({ required, secret: true, mayBeEmpty })
const plain = (required: boolean): FieldDefinition => ({ required, secret: false })

/** Every credential type and its fields: the single definition the checks, the parser and the docs follow. */
export const CREDENTIAL_DEFINITIONS: Readonly<Record<CredentialType, CredentialDefinition>> = {
  basic: { label: 'HTTP Basic', fields: { username: plain(true), password: secret(true, true) } },
  bearer: { label: 'Bearer token', fields: { token: secret(true) } },
  api_key: { label: 'API key', fields: { api_key: secret(true) } },
  oauth2: {
    label: 'OAuth 2 tokens',
    fields: {
      access_token: secret(true),
      refresh_token: secret(false),
      expires_at: plain(false),
      token_endpoint: plain(false),
      client_id: plain(false),
      client_secret: secret(false),
      token_endpoint_auth_method: plain(false),
      scope: plain(false),
      resource: plain(false),
    },
  },
}

const AUTH_METHODS: readonly string[] = ['client_secret_basic', 'client_secret_post', 'none']

/** Thrown when a stored value is not a credential this version understands (a bug or a foreign row, never input). */
export class CredentialFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CredentialFormatError'
  }
}

/**
 * The problems with `fields` as a credential of `type`, located at each field (a caller prefixes its own path):
 * missing required fields, empty strings, fields of another type (`extra_forbidden`, the value masked), and the
 * rules a field carries (no ":" in a Basic user name; an OAuth 2 refresh needs its endpoint and client). Fields
 * whose value is `undefined` are absent.
 */
export function credentialIssues(type: CredentialType, fields: Readonly<Record<string, unknown>>): InputIssue[] {
  const definition = CREDENTIAL_DEFINITIONS[type]
  const issues: InputIssue[] = []
  for (const [name, field] of Object.entries(definition.fields)) {
    const value = fields[name]
    if (value === undefined) {
      if (field.required) issues.push({ loc: [name], msg: 'Field required', type: 'missing', input: maskSecrets(type, fields) })
    } else if (typeof value !== 'string') {
      issues.push({ loc: [name], msg: 'Input should be a valid string', type: 'string_type', input: field.secret ? '***' : value })
    } else if (value === '' && !field.mayBeEmpty) {
      issues.push({ loc: [name], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } })
    }
  }
  for (const [name, value] of Object.entries(fields))
    if (value !== undefined && !(name in definition.fields))
      issues.push({ loc: [name], msg: `Not used by ${definition.label} credentials`, type: 'extra_forbidden', input: '***' })
  if (type === 'basic' && typeof fields.username === 'string' && fields.username.includes(':'))
    issues.push({ loc: ['username'], msg: 'A Basic user name cannot contain ":"', type: 'value_error', input: fields.username })
  if (type === 'oauth2') issues.push(...oauth2Issues(fields))
  return issues
}

function oauth2Issues(fields: Readonly<Record<string, unknown>>): InputIssue[] {
  const issues: InputIssue[] = []
  if (typeof fields.refresh_token === 'string') {
    if (fields.token_endpoint === undefined)
      issues.push({ loc: ['token_endpoint'], msg: 'A refresh token needs the token endpoint it is sent to', type: 'missing', input: null })
    if (fields.client_id === undefined)
      issues.push({ loc: ['client_id'], msg: 'A refresh token needs the client id it was issued to', type: 'missing', input: null })
  }
  if (typeof fields.token_endpoint === 'string' && !isHttpUrl(fields.token_endpoint))
    issues.push({ loc: ['token_endpoint'], msg: 'Input should be an absolute http(s) URL', type: 'value_error', input: fields.token_endpoint })
  if (typeof fields.expires_at === 'string' && Number.isNaN(Date.parse(fields.expires_at)))
    issues.push({ loc: ['expires_at'], msg: 'Input should be an ISO 8601 date and time', type: 'value_error', input: fields.expires_at })
  const method = fields.token_endpoint_auth_method
  if (typeof method === 'string' && !AUTH_METHODS.includes(method))
    issues.push({
      loc: ['token_endpoint_auth_method'],
      msg: `Input should be ${AUTH_METHODS.map((name) => `'${name}'`).join(', ')}`,
      type: 'literal_error',
      input: method,
      ctx: { expected: AUTH_METHODS.join(', ') },
    })
  return issues
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
  } catch {
    return false
  }
}

/** `fields` with every secret field of `type` (and every unknown one) replaced by `***`: what an error may quote. */
export function maskSecrets(type: CredentialType, fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const definition = CREDENTIAL_DEFINITIONS[type].fields
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, definition[name] && !definition[name].secret ? value : '***']),
  )
}

/**
 * A credential from checked fields (`credentialIssues` found nothing): only the type's own fields, in its order.
 * Throws CredentialFormatError otherwise, so nothing unchecked is ever sealed.
 */
export function buildCredential<T extends CredentialType>(type: T, fields: Readonly<Record<string, unknown>>): CredentialOf<T> {
  const issues = credentialIssues(type, fields)
  if (issues.length > 0) throw new CredentialFormatError(`not a valid ${type} credential: ${issues.map((issue) => issue.loc.join('.')).join(', ')}`)
  const credential: Record<string, unknown> = { type }
  for (const name of Object.keys(CREDENTIAL_DEFINITIONS[type].fields)) if (fields[name] !== undefined) credential[name] = fields[name]
  return credential as unknown as CredentialOf<T>
}

/**
 * The credential a sealed value held. Values stored before the model had a `type` (applications' credentials up to
 * migration 0015: `{username, password}`, `{token}` or `{api_key}`) are recognised by their fields.
 */
export function parseCredential(json: string): Credential {
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    throw new CredentialFormatError('the stored secret is not JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CredentialFormatError('the stored secret is not an object')
  const { type, ...fields } = parsed as Record<string, unknown>
  const known = typeof type === 'string' && (CREDENTIAL_TYPES as readonly string[]).includes(type) ? (type as CredentialType) : legacyType(fields)
  if (!known) throw new CredentialFormatError('the stored secret is not a credential this version knows')
  // Checked in full when it was stored (and authenticated since): on the call path, only its shape.
  const credential: Record<string, unknown> = { type: known }
  for (const [name, field] of Object.entries(CREDENTIAL_DEFINITIONS[known].fields)) {
    const value = fields[name]
    if (typeof value === 'string') credential[name] = value
    else if (value !== undefined || field.required) throw new CredentialFormatError(`the stored ${known} credential lacks ${name}`)
  }
  return credential as unknown as Credential
}

function legacyType(fields: Record<string, unknown>): CredentialType | null {
  if ('api_key' in fields) return 'api_key'
  if ('username' in fields) return 'basic'
  if ('token' in fields) return 'bearer'
  return null
}

export const serializeCredential = (credential: Credential): string => JSON.stringify(credential)

/** The `Authorization` header value of a Basic, bearer or OAuth 2 credential; null for an API key (placed by its consumer). */
export function authorizationHeader(credential: Credential): string | null {
  switch (credential.type) {
    case 'basic':
      return `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`
    case 'bearer':
      return `Bearer ${credential.token}`
    case 'oauth2':
      return `Bearer ${credential.access_token}`
    case 'api_key':
      return null
  }
}

/** The token a bearer or OAuth 2 credential sends (git sends it as a Basic password); null for other types. */
export function bearerToken(credential: Credential): string | null {
  return credential.type === 'bearer' ? credential.token : credential.type === 'oauth2' ? credential.access_token : null
}

/** Every secret string a credential holds: what a recorder masks if an upstream echoes it back. */
export function secretValues(credential: Credential): string[] {
  const fields = CREDENTIAL_DEFINITIONS[credential.type].fields
  return Object.entries(credential)
    .filter(([name, value]) => fields[name]?.secret && typeof value === 'string' && value !== '')
    .map(([, value]) => value as string)
}
