// Request and response schemas of user settings (spec "Settings", docs/api.md "Settings"): every field optional, nested shapes enforced.
import { t } from 'elysia'

const Text = t.String({ maxLength: 10_000 })
const ShortText = t.String({ maxLength: 500 })

const ConversationStarterAction = t.Object({
  api_name: ShortText,
  domain_url: t.Optional(t.String({ maxLength: 2_000 })),
  user_input: t.Optional(Text),
})

const ConversationStarter = t.Object({
  name: t.String({ minLength: 1, maxLength: 500 }),
  action: t.Optional(t.Array(ConversationStarterAction, { maxItems: 50 })),
})

const PersonalContext = t.Object({
  name: t.Optional(ShortText),
  position: t.Optional(ShortText),
  traits: t.Optional(Text),
  // Free-form by the spec ("array of objects"): any keys, kept as given.
  additional_personalization: t.Optional(t.Array(t.Record(t.String(), t.Unknown()), { maxItems: 100 })),
})

const PromptPreset = t.Object({
  id: t.String({ minLength: 1, maxLength: 200 }),
  name: t.String({ minLength: 1, maxLength: 500 }),
  prompt: t.String({ maxLength: 20_000 }),
  agent_id: t.Optional(t.String({ maxLength: 200 })),
  agent_name: t.Optional(t.String({ maxLength: 200 })),
})

/** A language tag such as en, he, pt-BR (BCP 47 shape, not a registry check). */
const Language = t.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$', maxLength: 35 })

export const SettingsFields = {
  conversation_starters: t.Array(ConversationStarter, { maxItems: 200 }),
  dark_mode: t.String({ maxLength: 32 }),
  personal_context: PersonalContext,
  enable_follow_up_suggestions: t.Boolean(),
  prompt_presets: t.Array(PromptPreset, { maxItems: 200 }),
  language: Language,
}

export const UpdateSettingsBody = t.Object({
  conversation_starters: t.Optional(SettingsFields.conversation_starters),
  dark_mode: t.Optional(SettingsFields.dark_mode),
  personal_context: t.Optional(SettingsFields.personal_context),
  enable_follow_up_suggestions: t.Optional(SettingsFields.enable_follow_up_suggestions),
  prompt_presets: t.Optional(SettingsFields.prompt_presets),
  language: t.Optional(SettingsFields.language),
})

export const UpdateSettingsResponse = t.Object({
  message: t.String(),
  updated: t.Boolean({ description: 'false when the provided settings equal the stored ones and nothing was written' }),
})

export const Settings = t.Object({
  conversation_starters: SettingsFields.conversation_starters,
  dark_mode: t.Union([t.String(), t.Null()], { description: 'null until the user picks one' }),
  personal_context: SettingsFields.personal_context,
  enable_follow_up_suggestions: t.Boolean(),
  prompt_presets: SettingsFields.prompt_presets,
  language: t.String(),
  direction: t.Union([t.Literal('ltr'), t.Literal('rtl')], { description: 'rtl for he, ar, fa and ur (by the primary subtag)' }),
})
