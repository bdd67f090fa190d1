// Request and response schemas of tenant setup (spec "Tenant setup", docs/api.md "First run and licences").
import { t } from 'elysia'
import { NOT_BLANK } from '../../platform/http/schema-pieces.ts'
import { MIN_PASSWORD_LENGTH } from '../auth/index.ts'

export const SetupBody = t.Object({
  license_token: t.String({
    description: 'The signed licence, or `evaluation` to start a 30-day evaluation with 5 seats (once per instance; apply a signed licence later)',
  }),
  admin_email: t.String({ format: 'email' }),
  admin_name: t.String({ minLength: 1, maxLength: 200 }),
  admin_password: t.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 }),
  org_name: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 200,
      pattern: NOT_BLANK,
      description:
        'Evaluations only: the organisation\'s name (default "Evaluation"); the first signed licence applied later renames it. A signed licence names its organisation itself: org_name with one is a 422',
    }),
  ),
})

export const SetupResponse = t.Object({ message: t.String(), tenant_org_token: t.String() })
