// Where a set of skills lives: an agent's draft (owners write it, publish carries it) or an MCP app (its owner or an
// admin writes it, whoever sees the app reads it). The skill operations (service.ts) work on either through this.
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime } from '../../platform/clock.ts'
import { authorizeAgent, OWNERS_ONLY_DESIGN, readDraft, updateDraft, type AgentsStore } from '../agents/index.ts'
import { skillsOf, type StoredSkill } from './records.ts'

export interface SkillsHome {
  /** How messages name the holder: "A skill named 'x' already exists in this agent". */
  readonly noun: 'agent' | 'application'
  /** The skills a reader sees; 404 for those who may not see the holder, 403 for those who may not read its skills. */
  read(principal: Principal): Promise<StoredSkill[]>
  /** The skills as they are now, after checking `principal` may change them (404/403 otherwise). */
  writable(principal: Principal): Promise<StoredSkill[]>
  /** Runs `change` on the skills in one transaction, checking the caller again, and stores what it did to the array. */
  change<R>(principal: Principal, change: (skills: StoredSkill[], now: string) => R): Promise<R>
}

/** The skills of applications, as the applications module keeps them. */
export interface ApplicationSkills {
  home(apiName: string): SkillsHome
  /** The skills of the MCP app `apiName` (imported with create_mcp) if the caller sees it, else null. */
  ofMcpApp(principal: Principal, apiName: string): Promise<StoredSkill[] | null>
}

/** An agent's draft: owners only (viewers read the live skills through list_skills and load_skill). */
export function agentSkillsHome(store: AgentsStore, agentName: string): SkillsHome {
  const draftSkills = async (principal: Principal, forbiddenDetail?: string) => {
    const agent = await authorizeAgent(store.db, agentName, principal, 'own', forbiddenDetail)
    const draft = await readDraft(store.db, agent.id)
    return draft ? skillsOf(draft) : []
  }
  return {
    noun: 'agent',
    read: (principal) => draftSkills(principal, OWNERS_ONLY_DESIGN),
    writable: (principal) => draftSkills(principal),
    change: (principal, change) =>
      store.db.transaction().execute(async (trx) => {
        const agent = await authorizeAgent(trx, agentName, principal, 'own')
        const now = isoTime(store.clock.now())
        return updateDraft({ db: trx, clock: store.clock }, agent.id, principal.userId, (draft) => change(skillsOf(draft), now))
      }),
  }
}
