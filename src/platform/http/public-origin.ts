// The origin the instance hands out in URLs (MCP URLs, the OAuth issuer and resources): AGENTBOX_PUBLIC_URL when the
// operator set it (behind a TLS-terminating proxy the request arrives as http), else the origin the request came to.
// Forwarded headers are not trusted: any client can send them.
export type PublicOrigin = (request: Request) => string

export const publicOrigin =
  (publicUrl: string | null): PublicOrigin =>
  (request) =>
    publicUrl ?? new URL(request.url).origin
