// The UI templates module's public entry: what other modules may use (the toolbox serves templates over MCP and its
// design tools read and write them; chat renders tool results with them; bundles export them).
export type { TemplateCatalog, TemplateSummary } from './catalog.ts'
export { CreateTemplateBody, UpdateTemplateBody } from './schema.ts'
export {
  MCP_APP_MIME_TYPE,
  templateUri,
  uiResourceMeta,
  type TemplateChanges,
  type TemplateInput,
  type TemplateRecord,
  type TemplatesService,
} from './templates.ts'
