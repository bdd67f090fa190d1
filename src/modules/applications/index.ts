// The applications module's public entry: what other modules may use of applications (operations as tools).
export type { ApplicationRef, McpApplication, OperationInfo, OperationTool, OperationToolOptions, OperationTools } from './tools.ts'
// Bundles: imports inside the caller's transaction, and an application's current document.
export type { ApplicationInUse, ApplicationsService, ImportInput, PreparedImport } from './service.ts'
export { readApiName } from './names.ts'
export type { StoredDocument } from './source-document.ts'
