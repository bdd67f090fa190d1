// The license module's public entry: the licence service other modules are handed (health, setup, seats).
export type { LicenseService } from './service.ts'
