// POST /api/org/apply_license and GET /api/org/license (admin only, docs/api.md "First run and licences").
import { Elysia } from 'elysia'
import type { authGuard } from '../../platform/auth/guard.ts'
import { ApplyLicenseBody, ApplyLicenseResponse, LicenseSummary } from './schema.ts'
import type { LicenseService } from './service.ts'

export function licenseRoutes(guard: ReturnType<typeof authGuard>, license: LicenseService) {
  return new Elysia({ name: 'license-routes' })
    .use(guard)
    .post(
      '/api/org/apply_license',
      async ({ body, principal }) => ({ message: 'License applied', license: await license.apply(body.license_token, principal.email, principal.userId) }),
      {
        auth: { role: 'admin', whenLicenseLapsed: 'allowed' },
        body: ApplyLicenseBody,
        response: { 200: ApplyLicenseResponse },
        detail: { tags: ['organisation'], summary: 'Apply a signed licence' },
      },
    )
    .get('/api/org/license', () => license.summary(), {
      auth: 'admin',
      response: { 200: LicenseSummary },
      detail: { tags: ['organisation'], summary: 'The current licence' },
    })
}
