// Request and response schemas of context types (spec "Context type", docs/api.md "Context types").
import { t } from 'elysia'
import { DateTime } from '../../platform/http/schema-pieces.ts'

const Text = (maxLength: number, description: string) => t.String({ maxLength, description })

/** The body of create and of replace (PUT): name required, every other text optional and empty when omitted. */
export const ContextTypeBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 200, description: 'Unique in the tenant, ignoring ASCII case; surrounding spaces are trimmed' }),
  summary: t.Optional(Text(2_000, 'One line on what this kind of context is')),
  description: t.Optional(Text(20_000, 'Detailed information')),
  when_to_use: t.Optional(Text(20_000, 'Explains to the agent when to use it')),
  how_to_generate: t.Optional(Text(20_000, 'Explains how to generate new context of this type')),
})

export const ContextType = t.Object({
  id: t.String(),
  name: t.String(),
  summary: t.String(),
  description: t.String(),
  when_to_use: t.String(),
  how_to_generate: t.String(),
  created_by: t.String({ description: 'E-mail of the user who created it' }),
  created_at: DateTime,
  updated_at: DateTime,
})

export const ContextTypeIdParams = t.Object({ id: t.String() })
