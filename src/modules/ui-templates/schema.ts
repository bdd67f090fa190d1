// Request and response schemas of UI templates, their repository and its sync.
import { t } from 'elysia'
import { DateTime } from '../../platform/http/schema-pieces.ts'

/** 1 MiB of UTF-8: the most HTML one template holds. */
export const MAX_HTML_BYTES = 1024 * 1024
export const MAX_TYPE_LENGTH = 32
/**
 * The body cap of the routes that take a template's HTML (create and change), above the API's 1 MiB: a template of
 * MAX_HTML_BYTES must fit however its client's JSON escapes it. No encoder writes more than six bytes for one byte of
 * UTF-8 (a control character, or `<` from an HTML-safe encoder, as `\u003c`; non-ASCII as `\uXXXX` is at most three
 * per byte), so six times the HTML and 1 MiB for the other fields: 7 MiB.
 */
export const TEMPLATE_BODY_LIMIT = 6 * MAX_HTML_BYTES + 1024 * 1024
/** The only template format: an MCP App (HTML served as `text/html;profile=mcp-app`). */
export const TEMPLATE_FORMAT = 'mcp-app'
/** Most templates one operation may hold (each may be 1 MiB, and a list returns them all). */
export const MAX_TEMPLATES_PER_OPERATION = 50

// An origin (or origin with a path) a CSP directive may name: http(s) or ws(s), an optional `*.` wildcard subdomain,
// an optional port. No white space, quote, comma or semicolon: the value becomes part of a CSP header or meta tag.
const CSP_SOURCE = '^(https?|wss?)://(\\*\\.)?[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*(:([0-9]{1,5}|\\*))?(/[^\\s;,\'"]*)?$'
const Domains = (what: string) => t.Optional(t.Array(t.String({ maxLength: 300, pattern: CSP_SOURCE }), { maxItems: 64, description: `Origins for ${what}` }))

export const CspConfig = t.Object(
  {
    resourceDomains: Domains('scripts, images, styles, fonts and media (script-src, img-src, style-src, font-src, media-src)'),
    connectDomains: Domains('fetch, XHR and WebSocket (connect-src)'),
    frameDomains: Domains('nested iframes (frame-src)'),
    baseUriDomains: Domains('<base> (base-uri)'),
  },
  { description: 'The MCP Apps CSP domains: https://api.example.com, https://*.example.com; none given means none allowed' },
)

const Permission = t.Optional(t.Object({}, { description: 'Asked for when present (an empty object)' }))

export const UiMeta = t.Object(
  {
    csp: t.Optional(CspConfig),
    permissions: t.Optional(
      t.Object(
        { camera: Permission, microphone: Permission, geolocation: Permission, clipboardWrite: Permission },
        { description: 'Permission Policy features the view asks the host for' },
      ),
    ),
    domain: t.Optional(t.String({ minLength: 1, maxLength: 253, pattern: '^[^\\s;,\'"]+$', description: "A dedicated sandbox origin, in the host's format" })),
    prefersBorder: t.Optional(t.Boolean({ description: 'True: the host draws a border and background' })),
  },
  { description: "MCP Apps resource metadata, served as the resource's _meta.ui" },
)

const Html = t.String({
  maxLength: MAX_HTML_BYTES,
  description: 'The template: an HTML document, at most 1 MiB (1,048,576 bytes) once encoded as UTF-8, however the JSON escapes it',
})
const Type = t.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH, description: 'What the template shows; default "result"' })
const Format = t.Literal(TEMPLATE_FORMAT, { description: 'Only "mcp-app"' })
const NullableCsp = t.Union([CspConfig, t.Null()])
const NullableMeta = t.Union([UiMeta, t.Null()])

export const TemplateParams = t.Object({ api_name: t.String(), template_id: t.String() })
export const OperationTemplatesParams = t.Object({ api_name: t.String(), operation_id: t.String() })
export const RepositoryParams = t.Object({ api_name: t.String() })
export const NoContent = t.Undefined({ description: 'No content' })

export const CreateTemplateBody = t.Object({
  html: Html,
  type: t.Optional(Type),
  is_default: t.Optional(t.Boolean({ description: "The operation's default template (its tool points at it); setting it clears the others. Default false." })),
  template_format: t.Optional(Format),
  csp_config: t.Optional(NullableCsp),
  ui_meta: t.Optional(NullableMeta),
})

export const UpdateTemplateBody = t.Object(
  {
    html: t.Optional(Html),
    type: t.Optional(Type),
    is_default: t.Optional(t.Boolean()),
    template_format: t.Optional(Format),
    csp_config: t.Optional(NullableCsp),
    ui_meta: t.Optional(NullableMeta),
  },
  { description: 'The fields to change; those left out keep their value' },
)

export const Template = t.Object({
  id: t.String(),
  html: t.String(),
  application_id: t.String({ description: 'The api_name' }),
  operation_id: t.String(),
  type: t.String(),
  is_default: t.Boolean(),
  template_format: t.String(),
  csp_config: NullableCsp,
  ui_meta: NullableMeta,
  resource_uri: t.String({ description: 'ui://{api_name}/{operation_id}/{template_id}: the MCP resource that serves it' }),
  created_at: DateTime,
  updated_at: DateTime,
})

export const TemplateList = t.Object({ templates: t.Array(Template, { description: 'The default template first, then oldest first' }) })

export const RepositoryBody = t.Object({
  repo_url: t.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL of the repository (no user name or password in it)' }),
  branch: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Default "main"; created on the first push when missing' })),
  path: t.Optional(t.String({ maxLength: 200, description: 'The folder templates live under; default "agentbox"; "" for the root' })),
  username: t.Optional(
    t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Null()], { description: 'The HTTP Basic user name sent with the token; default "agentbox"' }),
  ),
  token: t.Optional(
    t.Union([t.String({ minLength: 1, maxLength: 4096 }), t.Null()], {
      description: 'Sent as the HTTP Basic password; kept sealed and never returned. Left out: the stored one is kept; null: cleared',
    }),
  ),
  author_name: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 200 }), t.Null()], { description: 'Commit author; default "Agentbox"' })),
  author_email: t.Optional(
    t.Union([t.String({ minLength: 3, maxLength: 320 }), t.Null()], { description: 'Commit author e-mail; default "agentbox@localhost"' }),
  ),
})

export const Repository = t.Object({
  application_id: t.String(),
  repo_url: t.String(),
  branch: t.String(),
  path: t.String(),
  username: t.Union([t.String(), t.Null()]),
  token_set: t.Boolean({ description: 'Whether a token is stored (it is never returned)' }),
  token_problem: t.Union([t.String(), t.Null()], { description: 'Why the stored token cannot be used (restored without its keys), else null' }),
  author_name: t.Union([t.String(), t.Null()]),
  author_email: t.Union([t.String(), t.Null()]),
  created_at: DateTime,
  updated_at: DateTime,
})

const Direction = t.Union([t.Literal('push'), t.Literal('pull')], { description: "push: the server's templates to the repository; pull: the other way" })

export const SyncBody = t.Object({
  direction: Direction,
  commit_message: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()], { description: 'The commit message of a push' })),
  force: t.Optional(
    t.Boolean({
      description:
        "Resolve a conflict by overwriting: a push writes the server's version over the repository's, a pull the repository's over the server's. Default false.",
    }),
  ),
})

export const SyncResult = t.Object({
  success: t.Boolean(),
  commit_sha: t.Union([t.String(), t.Null()], { description: 'The commit the template now matches (after a push: the new one)' }),
  message: t.String(),
  has_conflict: t.Boolean({ default: false }),
})

export const TemplateSyncResult = t.Object({
  template_id: t.String(),
  operation_id: t.String(),
  success: t.Boolean(),
  has_conflict: t.Boolean(),
  message: t.String(),
})

export const ApplicationSyncResult = t.Object({
  success: t.Boolean({ description: 'True when every template synced' }),
  commit_sha: t.Union([t.String(), t.Null()]),
  message: t.String(),
  has_conflict: t.Boolean({ description: 'True when any template has a conflict' }),
  results: t.Array(TemplateSyncResult),
})
