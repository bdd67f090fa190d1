// The agent toolbox's public entry (docs/architecture.md "The agent toolbox"): how a transport gets a caller's tool set
// and runs its calls. MCP uses it today; chat, the MCP gateway and GPT apps build on the same API.
export type { AgentToolsRequest, ApplicationsToolsRequest, Toolbox, ToolCall } from './toolbox.ts'
export { APP_NOT_FOUND } from './toolbox.ts'
export type { ToolRun } from './run-tool.ts'
export type { OperationsOffer, ResourceContents, ToolboxResource, ToolDescription, ToolSet } from './tool-set.ts'
export { CALL_OPERATION, FIND_OPERATIONS } from './dynamic-operations.ts'
