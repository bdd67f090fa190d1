// POST /api/tenant/setup: provisions the instance; needs the one-time setup token as its bearer (docs/api.md "First run and licences").
import { Elysia } from 'elysia'
import { SetupBody, SetupResponse } from './schema.ts'
import type { TenantService } from './service.ts'

export function tenantRoutes(tenant: TenantService) {
  return new Elysia({ name: 'tenant-routes' }).post(
    '/api/tenant/setup',
    async ({ body }) => ({ message: 'Tenant provisioned', ...(await tenant.setup(body)) }),
    {
      // Before validation, so that a provisioned instance answers 409 and a stranger 401, whatever they send.
      transform({ request }) {
        tenant.authorizeSetup(request.headers.get('authorization'))
      },
      body: SetupBody,
      response: { 200: SetupResponse },
      detail: {
        tags: ['tenant'],
        summary: 'Provision the tenant from a licence',
        description: 'Needs `Authorization: Bearer <setup token>` (printed at first boot, stored in secrets/setup-token). 409 once provisioned.',
        security: [{ bearer: [] }],
        responses: { 409: { description: 'Tenant already provisioned' } },
      },
    },
  )
}
