// The applications module's public entry: what other modules may use of applications (operations as tools).
export type { ApplicationRef, McpApplication, OperationInfo, OperationTool, OperationToolOptions, OperationTools } from './tools.ts'
