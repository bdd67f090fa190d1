// The tenant module's public entry: the tenant service other modules are handed (health, the console, the signing key).
export type { TenantService } from './service.ts'
