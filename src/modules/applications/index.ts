// The applications module's public entry: what other modules may use of applications.
// Bundles: imports inside the caller's transaction, and an application's current document.
export type { ApplicationsService, ImportInput, PreparedImport } from './service.ts'
export { readApiName } from './names.ts'
export type { StoredDocument } from './source-document.ts'
