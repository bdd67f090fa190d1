// The system prompt of a chat turn: who the copilot is (an agent's instructions, the design session's rules), how tools
// behave in mock mode, and the user's settings that shape every answer (personal context and language).

/** The settings fields chat reads (the settings module's effective settings). */
export interface ChatSettings {
  conversation_starters: { name: string; action?: { api_name: string; domain_url?: string; user_input?: string }[] }[]
  personal_context: { name?: string; position?: string; traits?: string; additional_personalization?: Record<string, unknown>[] }
  enable_follow_up_suggestions: boolean
  prompt_presets: { id: string; name: string; prompt: string; agent_id?: string; agent_name?: string }[]
  language: string
}

export interface InstructionParts {
  /** The agent talked to, or null for the plain copilot. */
  readonly agent: string | null
  /** The version's own instructions (live, or the draft's). */
  readonly agentInstructions: string | null
  /** What the design session adds: the design endpoint's description of its tools. */
  readonly designNote: string | null
  readonly mock: boolean
  readonly settings: ChatSettings
}

const MAX_ADDITIONAL_CHARS = 2000

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

let languageNames: Intl.DisplayNames | null | undefined
/** "Hebrew" for he: the model is told the language by name, which every model understands, and by code. */
function languageName(code: string): string {
  if (languageNames === undefined) {
    try {
      languageNames = new Intl.DisplayNames(['en'], { type: 'language' })
    } catch {
      languageNames = null
    }
  }
  try {
    return languageNames?.of(code) ?? code
  } catch {
    return code
  }
}

function aboutTheUser(context: ChatSettings['personal_context']): string | null {
  const lines: string[] = []
  if (context.name) lines.push(`Name: ${context.name}`)
  if (context.position) lines.push(`Position: ${context.position}`)
  if (context.traits) lines.push(`Traits: ${context.traits}`)
  if (context.additional_personalization?.length)
    lines.push(`More about them: ${clip(JSON.stringify(context.additional_personalization), MAX_ADDITIONAL_CHARS)}`)
  return lines.length > 0 ? `About the user you are talking to:\n${lines.join('\n')}` : null
}

export function systemPrompt(parts: InstructionParts): string {
  const sections: string[] = []
  sections.push(
    parts.agent
      ? `You are the Agentbox copilot, speaking as the agent "${parts.agent}". Use its tools when they help; never invent a tool's answer.`
      : 'You are the Agentbox copilot, a helpful assistant.',
  )
  if (parts.agentInstructions) sections.push(`The agent's instructions:\n${parts.agentInstructions}`)
  if (parts.designNote) sections.push(parts.designNote)
  if (parts.mock) sections.push('Mock mode: every tool is simulated. Nothing is changed and nothing is recorded; say so when it matters.')
  const about = aboutTheUser(parts.settings.personal_context)
  if (about) sections.push(about)
  const language = parts.settings.language
  sections.push(`The user's language is ${languageName(language)} (${language}): answer in it unless they write in another language.`)
  return sections.join('\n\n')
}
