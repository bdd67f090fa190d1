// The auth module's public entry: what other modules may use of auth: minting API tokens (setup's org token), the password rules (users, setup).
export { mintApiToken } from './api-tokens.ts'
export { MIN_PASSWORD_LENGTH, type Passwords } from './passwords.ts'
