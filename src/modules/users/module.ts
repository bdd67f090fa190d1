// The users capability as the server wires it: admin user management, bounded by the licence's seats.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { Passwords } from '../auth/index.ts'
import type { LicenseService } from '../license/index.ts'
import { usersRoutes } from './routes.ts'
import { UsersService } from './service.ts'

export type UsersModule = CapabilityModule<UsersService>

export function createUsersModule(ctx: ModuleContext, deps: { readonly license: LicenseService; readonly passwords: Passwords }): UsersModule {
  const service = new UsersService(ctx.database.db, ctx.clock, deps.license, deps.passwords)
  return { routes: usersRoutes(ctx.guard, service), service }
}
