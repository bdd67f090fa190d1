// Request and response schemas of tenant setup (spec "Tenant setup", docs/api.md "First run and licences").
import { t } from 'elysia'
import { MIN_PASSWORD_LENGTH } from '../auth/passwords.ts'

export const SetupBody = t.Object({
  license_token: t.String({
    description: 'The signed licence, or `evaluation` to start a 30-day evaluation with 5 seats (once per instance; apply a signed licence later)',
  }),
  admin_email: t.String({ format: 'email' }),
  admin_name: t.String({ minLength: 1, maxLength: 200 }),
  admin_password: t.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 }),
})

export const SetupResponse = t.Object({ message: t.String(), tenant_org_token: t.String() })
