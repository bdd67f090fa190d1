// A stand-in for an external MCP server's tools as the chat's port receives them: a ToolSet named `weather` whose tools
// are `weather__forecast` (read-only, with a UI template: `_meta.ui.resourceUri`) and `weather__alert` (changes
// something), and the template as a `ui://` resource.
import { Type } from '@sinclair/typebox'
import type { Tool, ToolMode } from '../../src/platform/tools/tool.ts'
import { toolSet } from '../../src/modules/toolbox/tool-set.ts'

export const UI = { resourceUri: 'ui://weather/forecast' }

export function weatherSet(mode: ToolMode, template: string, alerts: string[] = [], csp: Record<string, string[]> = { connectDomains: [] }) {
  const forecast: Tool = {
    name: 'weather__forecast',
    description: 'The forecast for a city',
    inputSchema: Type.Object({ city: Type.String() }),
    annotations: { readOnlyHint: true },
    meta: { ui: UI, 'ui/resourceUri': UI.resourceUri },
    handler: async (_principal, args) => ({ city: (args as { city: string }).city, temp: 21 }),
  }
  const alert: Tool = {
    name: 'weather__alert',
    description: 'Sends a storm alert',
    inputSchema: Type.Object({}),
    annotations: { readOnlyHint: false },
    handler: async (principal) => {
      alerts.push(principal.email)
      return { sent: true }
    },
  }
  return toolSet({
    name: 'weather',
    title: 'Weather',
    mode,
    recordKind: 'mcp_tool',
    tools: [forecast, alert],
    resources: [
      {
        uri: UI.resourceUri,
        name: 'forecast',
        mimeType: 'text/html;profile=mcp-app',
        meta: { ui: { prefersBorder: true, csp } },
        read: async () => ({ text: template }),
      },
    ],
    operations: { mode: 'per_operation', count: 0, limit: 64 },
    hiddenTools: 0,
  })
}
