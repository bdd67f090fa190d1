// Per-user settings: stored fields merged over defaults on read; update compares, then writes or skips (docs/api.md "Settings").
import type { Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { SettingsFields, UpdateSettingsBody } from './schema.ts'

/** What a user may store; every field optional, a provided one replaces the stored one whole. The request schema is the definition. */
export type SettingsInput = Static<typeof UpdateSettingsBody>
export type ConversationStarter = Static<typeof SettingsFields.conversation_starters>[number]
export type PersonalContext = Static<typeof SettingsFields.personal_context>
export type PromptPreset = Static<typeof SettingsFields.prompt_presets>[number]

export interface EffectiveSettings {
  conversation_starters: ConversationStarter[]
  dark_mode: string | null
  personal_context: PersonalContext
  enable_follow_up_suggestions: boolean
  prompt_presets: PromptPreset[]
  language: string
  direction: 'ltr' | 'rtl'
}

export interface UpdateOutcome {
  message: string
  updated: boolean
}

export const SETTINGS_UPDATED = 'Settings updated'
export const SETTINGS_SKIPPED = 'Settings unchanged, update skipped'

const RTL_LANGUAGES = new Set(['he', 'ar', 'fa', 'ur'])
const FIELDS = ['conversation_starters', 'dark_mode', 'personal_context', 'enable_follow_up_suggestions', 'prompt_presets', 'language'] as const

/** By the primary subtag, so he-IL and AR are right-to-left too. */
export const directionOf = (language: string): 'ltr' | 'rtl' => (RTL_LANGUAGES.has(language.split('-')[0]!.toLowerCase()) ? 'rtl' : 'ltr')

/** JSON with object keys sorted at every depth: two settings that differ only in key order serialise identically. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  )
}

export class SettingsService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db
    this.#clock = clock
  }

  async get(userId: string): Promise<EffectiveSettings> {
    const row = await this.#db.selectFrom('user_settings').select('settings').where('user_id', '=', userId).executeTakeFirst()
    const stored: SettingsInput = row ? JSON.parse(row.settings) : {}
    const language = stored.language ?? 'en'
    return {
      conversation_starters: stored.conversation_starters ?? [],
      dark_mode: stored.dark_mode ?? null,
      personal_context: stored.personal_context ?? {},
      enable_follow_up_suggestions: stored.enable_follow_up_suggestions ?? false,
      prompt_presets: stored.prompt_presets ?? [],
      language,
      direction: directionOf(language),
    }
  }

  /**
   * The provided fields replace the stored ones; the result is compared with what is stored (as canonical JSON, so key
   * order does not count) and written only if it differs. A user with no record gets one, which counts as an update.
   */
  async update(userId: string, input: SettingsInput): Promise<UpdateOutcome> {
    const provided = Object.fromEntries(FIELDS.filter((field) => input[field] !== undefined).map((field) => [field, input[field]]))
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('user_settings').select('settings').where('user_id', '=', userId).executeTakeFirst()
      const next = canonicalJson({ ...(row ? JSON.parse(row.settings) : {}), ...provided })
      if (row && row.settings === next) return { message: SETTINGS_SKIPPED, updated: false }
      const now = isoTime(this.#clock.now())
      await trx
        .insertInto('user_settings')
        .values({ user_id: userId, settings: next, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ settings: next, updated_at: now }))
        .execute()
      return { message: SETTINGS_UPDATED, updated: true }
    })
  }
}
