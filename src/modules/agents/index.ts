// The agents module's public entry: what other modules may use of agents (access, documents, the design operations).
export {
  authorizeAgent,
  applicationsOf,
  getAgent,
  OWNERS_ONLY_DESIGN,
  readDraft,
  readLive,
  saveAgent,
  type AgentRow,
  type AgentsStore,
  type ApplicationUse,
  type ApplicationUsesCheck,
} from './service.ts'
export type { AgentDesignStore } from './draft.ts'
export { PublishBody, SaveAgentBody } from './schema.ts'
export { publishAgentVersion } from './versions.ts'
export { agentNameIssue, MAX_NAME_LENGTH, NAME_PATTERN, normaliseAgentName } from './names.ts'
export { readSourceDocument, updateDraft, type AgentDocument, type DocumentItem } from './service.ts'
