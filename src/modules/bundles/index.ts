// The bundles module's public entry: what other modules (the marketplace) may use of bundles.
export { BundlesService, type BundleSummary, type ExportVersion, type ImportOptions, type ImportOutcome } from './service.ts'
export { assembleBundle, bundleJson } from './exporter.ts'
export { AGENT_PATH, type AgentFile, DryRunResult, ImportedAgent, ImportPlan } from './format.ts'
export { DryRunQuery, OnConflict } from './schema.ts'
