// The built-in catalog: sample agents embedded in the binary, each made into a bundle the same way an export makes one
// (and checked as an import checks one), so installing a sample is an ordinary import.
import { type AgentFile, assembleBundle, bundleJson } from '../../bundles/index.ts'
import { expenseApproval } from './expense-approval.ts'
import { incidentTriage } from './incident-triage.ts'
import type { CatalogAgent } from './types.ts'

export const BUILT_IN_CATALOG: readonly CatalogAgent[] = [expenseApproval, incidentTriage]

/** When the built-in bundles say they were exported: fixed, so the same binary always serves the same bytes. */
const BUILT_AT = '2026-01-01T00:00:00.000Z'

const encoder = new TextEncoder()
const skillName = (content: string) => /^name:\s*(\S+)\s*$/m.exec(content)![1]!

/** The sample as a bundle (version 1). */
export function catalogBundle(agent: CatalogAgent): Promise<Uint8Array> {
  const files = new Map<string, Uint8Array>()
  for (const content of agent.skills) files.set(`skills/${skillName(content)}/SKILL.md`, encoder.encode(content))
  for (const workflow of agent.workflows) files.set(`workflows/${workflow.id}.json`, bundleJson(workflow))
  files.set(`applications/${agent.application.api_name}/openapi.json`, bundleJson(agent.application.document))
  const agentFile: AgentFile = {
    description: agent.description,
    instructions: agent.instructions,
    applications: [{ api_name: agent.application.api_name }],
    skills: agent.skills.map(skillName),
    workflows: agent.workflows.map((workflow) => workflow.id),
  }
  files.set('agent.json', bundleJson(agentFile))
  return assembleBundle(files, { agent: agent.name, version: 1, exported_at: BUILT_AT })
}
