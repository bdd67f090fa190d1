// The external MCP servers module's public entry: what the agent toolbox uses to offer their tools (chat, the gateway).
export type { ExternalServers, ExternalServerTools } from './external-servers.ts'
export type { ListedTool } from './mcp-client.ts'
export { gatewayToolNames } from './tool-names.ts'
