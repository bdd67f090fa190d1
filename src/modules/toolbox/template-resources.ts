// The UI templates of a set's operations as MCP Apps: each template a `ui://{api_name}/{operation_id}/{template_id}`
// resource (`text/html;profile=mcp-app`) whose `_meta.ui` carries its CSP, permissions, domain and prefersBorder, and
// each operation tool with a default template pointing at it (`_meta.ui.resourceUri`, and the older flat
// `_meta["ui/resourceUri"]` some hosts still read). Only summaries are kept in the set: the HTML is read from the
// database when a client reads the resource.
import { notFound } from '../../platform/errors.ts'
import type { OperationTool } from '../applications/index.ts'
import { MCP_APP_MIME_TYPE, type TemplateCatalog, type TemplateSummary } from '../ui-templates/index.ts'
import type { ToolboxResource } from './tool-set.ts'

const keyOf = (apiName: string, operationId: string) => `${apiName}\n${operationId}`

/** A copy of the tool whose `_meta` points at a template; the tool's lazy description and schema stay lazy. */
function pointingAt(tool: OperationTool, uri: string): OperationTool {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(tool)) as OperationTool
  Object.defineProperty(copy, 'meta', { value: { ...tool.meta, ui: { resourceUri: uri }, 'ui/resourceUri': uri }, enumerable: true })
  return copy
}

function templateResource(catalog: TemplateCatalog, template: TemplateSummary): ToolboxResource {
  return {
    uri: template.uri,
    name: `${template.apiName}/${template.operationId}/${template.id}`,
    title: `${template.operationId} (${template.type}${template.isDefault ? ', default' : ''})`,
    description: `The ${template.type} view of ${template.apiName}'s operation ${template.operationId}`,
    mimeType: MCP_APP_MIME_TYPE,
    // Given on the list entry and on the read content alike: hosts differ in which one they read.
    meta: { ui: template.ui },
    async read() {
      const html = await catalog.html(template.id)
      if (html === null) throw notFound('Template not found')
      return { text: html }
    },
  }
}

/**
 * The operations with their templates: the tools (those with a default template pointing at it) and one resource per
 * template of any of these operations, in the operations' order.
 */
export async function withTemplates(
  catalog: TemplateCatalog,
  operations: readonly OperationTool[],
): Promise<{ tools: readonly OperationTool[]; resources: ToolboxResource[] }> {
  const byOperation = new Map<string, TemplateSummary[]>()
  for (const apiName of new Set(operations.map((tool) => tool.operation.apiName)))
    for (const template of await catalog.ofApplication(apiName)) {
      const key = keyOf(apiName, template.operationId)
      byOperation.set(key, [...(byOperation.get(key) ?? []), template])
    }
  if (byOperation.size === 0) return { tools: operations, resources: [] }
  const resources: ToolboxResource[] = []
  const listed = new Set<string>()
  const tools = operations.map((tool) => {
    const key = keyOf(tool.operation.apiName, tool.operation.operationId)
    const templates = byOperation.get(key)
    if (!templates) return tool
    // An operation offered twice (under two names) lists its templates once.
    if (!listed.has(key)) for (const template of templates) resources.push(templateResource(catalog, template))
    listed.add(key)
    const chosen = templates.find((template) => template.isDefault)
    return chosen ? pointingAt(tool, chosen.uri) : tool
  })
  return { tools, resources }
}
