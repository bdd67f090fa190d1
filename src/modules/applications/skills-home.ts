// An application's skills (those of an MCP app): whoever sees the application reads them, its owner or an admin
// changes them. Stored as one JSON array per application; a write moves the applications revision, so MCP app
// surfaces built from the old skills are dropped.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { StoredSkill } from '../skills/index.ts'
import type { ApplicationSkills, SkillsHome } from '../skills/index.ts'
import { canSee, changeableApplication, visibleApplication } from './access.ts'
import type { ApplicationsRevision } from './revision.ts'

async function storedSkills(db: Kysely<Database>, applicationId: string): Promise<StoredSkill[]> {
  const row = await db.selectFrom('application_skills').select('skills').where('application_id', '=', applicationId).executeTakeFirst()
  return row ? (JSON.parse(row.skills) as StoredSkill[]) : []
}

function applicationSkillsHome(db: Kysely<Database>, clock: Clock, revision: ApplicationsRevision, apiName: string): SkillsHome {
  return {
    noun: 'application',
    read: async (principal: Principal) => storedSkills(db, (await visibleApplication(db, principal, apiName)).id),
    writable: async (principal: Principal) => storedSkills(db, (await changeableApplication(db, principal, apiName)).id),
    async change(principal, change) {
      const result = await db.transaction().execute(async (trx) => {
        const app = await changeableApplication(trx, principal, apiName)
        const skills = await storedSkills(trx, app.id)
        const now = isoTime(clock.now())
        const outcome = change(skills, now)
        const row = { application_id: app.id, skills: JSON.stringify(skills), updated_at: now }
        await trx
          .insertInto('application_skills')
          .values(row)
          .onConflict((conflict) => conflict.column('application_id').doUpdateSet({ skills: row.skills, updated_at: now }))
          .execute()
        await revision.changed(trx)
        return outcome
      })
      return result
    },
  }
}

export function applicationSkills(db: Kysely<Database>, clock: Clock, revision: ApplicationsRevision): ApplicationSkills {
  return {
    home: (apiName) => applicationSkillsHome(db, clock, revision, apiName),
    async ofMcpApp(principal, apiName) {
      const app = await db.selectFrom('applications').select(['id', 'create_mcp', 'global_spec', 'owner_id']).where('api_name', '=', apiName).executeTakeFirst()
      return app && app.create_mcp === 1 && canSee(principal, app) ? storedSkills(db, app.id) : null
    },
  }
}
