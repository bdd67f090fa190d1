// Shared by the OAuth tests: a registered client, PKCE pairs, and the whole authorization-code dance as a client and a
// signed-in user would do it (authorize → consent API → code → token endpoint).
import { expect } from 'bun:test'
import { createHash, randomBytes } from 'node:crypto'
import type { JsonResponse, TestServer } from '../helpers/server.ts'

export const ORIGIN = 'http://localhost'
export const REDIRECT = 'http://127.0.0.1:33418/callback'
export const resourceOf = (path: string) => `${ORIGIN}${path}`
export const AGENT_A = resourceOf('/agent/alpha/mcp')
export const AGENT_B = resourceOf('/agent/beta/mcp')

export function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** POST with an `application/x-www-form-urlencoded` body, as OAuth clients send to the token and revocation endpoints. */
export function postForm(t: TestServer, path: string, params: Record<string, string>): Promise<JsonResponse> {
  return t.request('POST', path, { rawBody: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
}

export async function registerClient(t: TestServer, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT], client_name: 'Test Client', ...body } })
  expect(res.status).toBe(201)
  return res.body.client_id
}

export function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value)
  return `/oauth/authorize?${query}`
}

/** The parameters a client sends to /oauth/authorize; `overrides` with undefined leave one out. */
export function authorizeParams(clientId: string, challenge: string, overrides: Record<string, string | undefined> = {}) {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'xyz-state',
    scope: 'mcp',
    resource: AGENT_A,
    ...overrides,
  }
}

/** The request id the authorize redirect hands the consent page. */
export async function startAuthorization(t: TestServer, params: Record<string, string | undefined>): Promise<string> {
  const res = await t.request('GET', authorizeUrl(params))
  expect(res.status).toBe(302)
  const location = new URL(res.headers.get('location')!, ORIGIN)
  expect(location.pathname).toBe('/oauth/consent')
  return location.searchParams.get('request')!
}

/** The user approves; answers the code the browser carries back to the client. */
export async function approve(t: TestServer, userToken: string, requestId: string): Promise<string> {
  const res = await t.request('POST', `/api/oauth/requests/${requestId}`, { token: userToken, body: { approve: true } })
  expect(res.status).toBe(200)
  const back = new URL(res.body.redirect_to)
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT)
  return back.searchParams.get('code')!
}

export interface Connected {
  clientId: string
  access_token: string
  refresh_token: string
}

/** Register (unless given a client), authorize, approve as `userToken`, exchange: a connected client for `resource`. */
export async function connect(t: TestServer, userToken: string, resource = AGENT_A, clientId?: string): Promise<Connected> {
  const client = clientId ?? (await registerClient(t))
  const { verifier, challenge } = pkce()
  const code = await approve(t, userToken, await startAuthorization(t, authorizeParams(client, challenge, { resource })))
  const res = await postForm(t, '/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client, code_verifier: verifier })
  expect(res.status).toBe(200)
  return { clientId: client, access_token: res.body.access_token, refresh_token: res.body.refresh_token }
}
