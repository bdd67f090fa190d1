// The secrets subsystem's public face: what modules and the command line use. The secret box itself stays inside this
// folder (a test refuses imports of it from elsewhere), so every sealed value is stored through a namespace of the
// vault, in its one table, where key rotation and backups find it.
export {
  authorizationHeader,
  bearerToken,
  buildCredential,
  CREDENTIAL_DEFINITIONS,
  CREDENTIAL_TYPES,
  credentialIssues,
  maskSecrets,
  secretValues,
  type ApiKeyCredential,
  type BasicCredential,
  type BearerCredential,
  type Credential,
  type CredentialOf,
  type CredentialType,
  type OAuth2Credential,
  type TokenEndpointAuthMethod,
} from './credential.ts'
export { ORG_OWNER, SecretNamespace, type SecretNamespaceDefinition, type SecretRef, type SecretStatus } from './namespace.ts'
export { CredentialRefreshError, type CredentialRefreshErrorCode, REFRESH_MARGIN_MS } from './oauth-refresh.ts'
export { credentialKeyFiles, keyIdsInKeyring, SecretBoxError, type SecretBoxErrorCode } from './secret-box.ts'
export { SecretStore } from './secret-files.ts'
export { checkSharedKeyring } from './shared-keyring.ts'
export { type KeyRotationResult, type NamespaceRotation, ROTATION_LEASE, SecretVault, type SecretVaultOptions } from './vault.ts'
export { backupSecretsReport, type BackupSecretsReport, type SealedCount } from './backup-check.ts'
