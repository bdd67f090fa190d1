// The Actions schema an admin imports in the GPT builder (GET /api/gpt_public/openapi.json): the OpenAPI 3.1 document of
// the two actions a GPT calls, built by the same builder and from the same route schemas as /api/openapi.json, with
// the `x-api-key` scheme only and this instance's URL as the server.
import { buildOpenApiDocument, type RouteDescription } from '../../platform/http/openapi-document.ts'

export const GPT_KEY_SCHEME = 'gpt_key'
export const GPT_BEARER_SCHEME = 'gpt_bearer'

/** The schemes a GPT's key is accepted in, as the documents name them. */
export const GPT_SECURITY_SCHEMES = {
  [GPT_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "A GPT app's key (abx_gpt_…): accepted on /api/gpt_public/* only" },
  [GPT_BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: "The same GPT app's key sent as a bearer token" },
}

type JsonObject = Record<string, unknown>

/** The document for `routes` (the two actions), served from `origin`. */
export function actionsDocument(routes: readonly RouteDescription[], origin: string, version: string): JsonObject {
  const built = buildOpenApiDocument(routes, version)
  const paths = built.paths as Record<string, Record<string, JsonObject>>
  for (const operations of Object.values(paths))
    for (const operation of Object.values(operations)) {
      operation.security = [{ [GPT_KEY_SCHEME]: [] }]
      delete operation.tags
    }
  const components = built.components as JsonObject
  return {
    ...built,
    info: {
      title: 'Agentbox GPT actions',
      version: '1.0.0',
      description:
        `Call apps_list at the start of every session, before any other action: it answers your instructions and the operations ` +
        `app_execute_action can run. Agentbox server ${version}.`,
    },
    servers: [{ url: origin, description: 'This Agentbox server' }],
    security: [{ [GPT_KEY_SCHEME]: [] }],
    paths,
    components: { ...components, securitySchemes: { [GPT_KEY_SCHEME]: GPT_SECURITY_SCHEMES[GPT_KEY_SCHEME] } },
  }
}
