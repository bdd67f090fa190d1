// The applications module's public entry: what other modules may use of applications (operations as tools).
export type { ApplicationRef, McpApplication, OperationInfo, OperationTool, OperationToolOptions, OperationTools } from './tools.ts'
export { applicationNotFound, canChange, canSee, changeableApplication, visibleApplication } from './access.ts'
export type { ApplicationDeleteHook, ApplicationsService } from './service.ts'
