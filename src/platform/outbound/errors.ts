// Why an outbound call failed, as a code every transport can map: HTTP routes to 502/504, MCP tools to isError text.

/**
 * - `invalid_url`: the URL the caller gave is not an absolute http(s) URL, or carries a user name or password.
 * - `request_too_large`: the request body is over the limit (1 MiB unless the caller said otherwise).
 * - `destination_not_allowed`: the host resolves to an address the policy refuses and no allow-list entry opens
 *   it, or a redirect points somewhere refused (or not http(s)).
 * - `unreachable`: the name does not resolve, the connection fails (refused, reset, TLS), or the response breaks off.
 * - `timeout`: the whole call (every hop and the body) took longer than its time-out; for a streamed call also
 *   the response headers or the next chunk of the body (reason `headers`, `idle` or `total`).
 * - `too_many_redirects`: more redirects than allowed (5 by default).
 * - `response_too_large`: a streamed response passed its byte limit (announced by Content-Length, or mid-stream): the
 *   stream fails with this error rather than ending early, so a cut-off body is never taken for a whole one.
 */
export type OutboundErrorCode =
  | 'invalid_url'
  | 'request_too_large'
  | 'destination_not_allowed'
  | 'unreachable'
  | 'timeout'
  | 'too_many_redirects'
  | 'response_too_large'

const MESSAGES: Record<OutboundErrorCode, string> = {
  invalid_url: 'Invalid URL',
  request_too_large: 'Request body too large',
  destination_not_allowed: 'Destination not allowed',
  unreachable: 'Destination unreachable',
  timeout: 'Destination timed out',
  too_many_redirects: 'Too many redirects',
  response_too_large: 'Response body too large',
}

/**
 * The message is one of the fixed sentences above (the contract's "Destination not allowed" among them), fit to
 * show a caller. `reason` is a short technical word for logs (`loopback`, `ECONNREFUSED`, `scheme`): never a URL,
 * a header or a resolved address, so neither secrets in a query string nor the internal network leak through it.
 * The underlying error is deliberately not kept as `cause`: Bun's fetch errors carry the full URL.
 */
export class OutboundError extends Error {
  readonly code: OutboundErrorCode
  readonly reason: string | null

  constructor(code: OutboundErrorCode, reason: string | null = null) {
    super(MESSAGES[code])
    this.name = 'OutboundError'
    this.code = code
    this.reason = reason
  }
}
