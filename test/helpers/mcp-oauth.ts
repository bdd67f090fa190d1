// An MCP client's OAuth state kept in memory, for the SDK's client flow in tests: the browser redirect is recorded for
// the test to follow (to the consent page, approved through the console's API).
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'

export class MemoryOauthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  authorizationUrl: URL | undefined
  readonly redirectUrl = 'http://127.0.0.1:33418/callback'
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP Client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation = () => this.information
  saveClientInformation = (information: OAuthClientInformationMixed) => {
    this.information = information
  }
  tokens = () => this.saved
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens
  }
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url
  }
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier
  }
  codeVerifier = () => this.verifier
}
