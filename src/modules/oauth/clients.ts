// OAuth clients: registered ones (RFC 7591: anonymous, so limited per address and removed when never used within an
// hour) and client ID metadata documents (an https URL as client_id, read through the guarded outbound client and
// cached for a while).
import type { Kysely } from 'kysely'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { throttleKey } from '../../platform/http/client-address.ts'
import type { OauthClientKind } from '../../platform/db/tables/oauth.ts'
import { OutboundError } from '../../platform/outbound/errors.ts'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import { type ClientMetadata, isLoopbackHost, parseClientMetadata } from './client-metadata.ts'
import { OauthError } from './errors.ts'
import { newClientId } from './tokens.ts'

/** Registrations kept at most; bounds the table. Past it, registration answers 503 until unused ones expire. */
export const MAX_REGISTERED_CLIENTS = 10_000
/** A registration that has no grant and no pending authorization request this long after it was made is removed. */
export const UNUSED_REGISTRATION_TTL_MS = 3600 * 1000
/** Anonymous registrations one client address (an IPv6 address's /64) may make in an hour; past it, 429. */
export const REGISTRATIONS_PER_ADDRESS_PER_HOUR = 20
const REGISTRATION_WINDOW_MS = 3600 * 1000
/** Unused registrations removed per statement: each holds the writer a few milliseconds at most. */
const PRUNE_BATCH = 1000
/** A metadata document is read again after this long, so a client's change of redirect URIs applies soon. */
export const METADATA_DOCUMENT_TTL_MS = 5 * 60 * 1000
const METADATA_DOCUMENT_MAX_BYTES = 64 * 1024
const METADATA_DOCUMENT_TIMEOUT_MS = 5_000

export interface OauthClient extends ClientMetadata {
  readonly client_id: string
  readonly kind: OauthClientKind
  readonly created_at: string
}

/** What POST /oauth/register answers (RFC 7591 §3.2.1). */
export interface RegisteredClient {
  client_id: string
  client_id_issued_at: number
  client_name?: string
  client_uri?: string
  logo_uri?: string
  redirect_uris: string[]
  grant_types: string[]
  response_types: ['code']
  token_endpoint_auth_method: 'none'
}

/**
 * A client id that names a metadata document: https with a path (draft-ietf-oauth-client-id-metadata-document §3), or
 * http on a loopback host for a client under development (the outbound policy still refuses loopback unless allowed).
 */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://') && !clientId.startsWith('http://')) return false
  try {
    const url = new URL(clientId)
    if (url.hash !== '' || url.username !== '' || url.password !== '' || url.pathname === '/') return false
    return url.protocol === 'https:' || isLoopbackHost(url.hostname)
  } catch {
    return false
  }
}

export class OauthClients {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly outbound: OutboundClient,
  ) {}

  /**
   * `clientAddress`: who asks (behind trusted proxies, the forwarded client). The per-address count, the room check and
   * the insert run in one transaction, so parallel registrations from one address cannot all pass the count.
   */
  async register(body: Record<string, unknown>, clientAddress: string): Promise<RegisteredClient> {
    const metadata = parseClientMetadata(body)
    const from = throttleKey(clientAddress)
    const now = this.clock.now()
    const clientId = newClientId()
    await this.db.transaction().execute(async (trx) => {
      await this.#withinAddressLimit(trx, from, now)
      await this.#makeRoom(trx, now)
      await trx
        .insertInto('oauth_clients')
        .values({ client_id: clientId, kind: 'registered', ...this.#columns(metadata), created_at: isoTime(now), fetched_at: null, registered_from: from })
        .execute()
    })
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      ...(metadata.client_name !== null && { client_name: metadata.client_name }),
      ...(metadata.client_uri !== null && { client_uri: metadata.client_uri }),
      ...(metadata.logo_uri !== null && { logo_uri: metadata.logo_uri }),
      redirect_uris: [...metadata.redirect_uris],
      grant_types: [...metadata.grant_types],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  /** The client `clientId` names, reading its metadata document when it is one and the cached copy is stale. Throws OauthError invalid_client. */
  async resolve(clientId: string): Promise<OauthClient> {
    const row = await this.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst()
    if (row?.kind === 'registered') return this.#fromRow(row)
    if (!isMetadataDocumentUrl(clientId)) throw new OauthError('invalid_client', 'Unknown client_id: register the client first (POST /oauth/register)', 401)
    const now = this.clock.now()
    if (row?.fetched_at && Date.parse(row.fetched_at) + METADATA_DOCUMENT_TTL_MS > now) return this.#fromRow(row)
    const metadata = await this.#readMetadataDocument(clientId)
    const columns = { ...this.#columns(metadata), fetched_at: isoTime(now) }
    await this.db
      .insertInto('oauth_clients')
      .values({ client_id: clientId, kind: 'metadata_document', created_at: isoTime(now), ...columns })
      .onConflict((oc) => oc.column('client_id').doUpdateSet(columns))
      .execute()
    return { client_id: clientId, kind: 'metadata_document', created_at: row?.created_at ?? isoTime(now), ...metadata }
  }

  /** A known client without reading any document: the token and revocation endpoints only compare ids. */
  async known(clientId: string): Promise<boolean> {
    return (await this.db.selectFrom('oauth_clients').select('client_id').where('client_id', '=', clientId).executeTakeFirst()) !== undefined
  }

  async #readMetadataDocument(url: string): Promise<ClientMetadata> {
    const unusable = (why: string) => new OauthError('invalid_client', `The client metadata document at ${url.slice(0, 200)} ${why}`, 401)
    let response: Awaited<ReturnType<OutboundClient['fetch']>>
    try {
      // No redirects: the document must live at the URL that is the client's identity.
      response = await this.outbound.fetch(url, {
        headers: { accept: 'application/json' },
        maxRedirects: 0,
        maxResponseBytes: METADATA_DOCUMENT_MAX_BYTES,
        timeoutMs: METADATA_DOCUMENT_TIMEOUT_MS,
      })
    } catch (error) {
      if (error instanceof OutboundError) throw unusable(`could not be read: ${error.message}`)
      throw error
    }
    if (response.status !== 200) throw unusable(`answered HTTP ${response.status}`)
    if (response.truncated) throw unusable(`is larger than ${METADATA_DOCUMENT_MAX_BYTES / 1024} KiB`)
    let document: unknown
    try {
      document = JSON.parse(new TextDecoder().decode(response.body))
    } catch {
      throw unusable('is not JSON')
    }
    if (document === null || typeof document !== 'object' || Array.isArray(document)) throw unusable('is not a JSON object')
    if ((document as Record<string, unknown>).client_id !== url) throw unusable('does not name itself as client_id')
    try {
      return parseClientMetadata(document as Record<string, unknown>)
    } catch (error) {
      if (error instanceof OauthError) throw unusable(`is not valid: ${error.description}`)
      throw error
    }
  }

  /** 429 with Retry-After once `from` made REGISTRATIONS_PER_ADDRESS_PER_HOUR registrations in the last hour. */
  async #withinAddressLimit(trx: Kysely<Database>, from: string, now: number): Promise<void> {
    const recent = await trx
      .selectFrom('oauth_clients')
      .select('created_at')
      .where('registered_from', '=', from)
      .where('created_at', '>', isoTime(now - REGISTRATION_WINDOW_MS))
      .orderBy('created_at', 'desc')
      .limit(REGISTRATIONS_PER_ADDRESS_PER_HOUR)
      .execute()
    if (recent.length < REGISTRATIONS_PER_ADDRESS_PER_HOUR) return
    const retryAfter = Math.max(1, Math.ceil((Date.parse(recent.at(-1)!.created_at) + REGISTRATION_WINDOW_MS - now) / 1000))
    throw new OauthError('temporarily_unavailable', `Too many client registrations from this address; try again in ${retryAfter} seconds`, 429, {
      'retry-after': String(retryAfter),
      'access-control-expose-headers': 'retry-after',
    })
  }

  /** At the cap, removes unused registrations over an hour old; still full → 503 (until the oldest unused one is an hour old). */
  async #makeRoom(trx: Kysely<Database>, now: number): Promise<void> {
    if ((await this.#registeredCount(trx)) < MAX_REGISTERED_CLIENTS) return
    await this.#removeUnused(trx, now)
    if ((await this.#registeredCount(trx)) >= MAX_REGISTERED_CLIENTS)
      throw new OauthError('temporarily_unavailable', 'Too many clients are registered; try again later', 503)
  }

  /** Removes up to PRUNE_BATCH registrations over an hour old with no grant and no pending authorization request; answers how many. */
  async #removeUnused(db: Kysely<Database>, now: number): Promise<number> {
    const cutoff = isoTime(now - UNUSED_REGISTRATION_TTL_MS)
    const result = await db
      .deleteFrom('oauth_clients')
      .where('client_id', 'in', (eb) =>
        eb
          .selectFrom('oauth_clients as c')
          .select('c.client_id')
          .where('c.kind', '=', 'registered')
          .where('c.created_at', '<', cutoff)
          .where(({ not, exists, selectFrom }) => not(exists(selectFrom('oauth_grants as g').select('g.id').whereRef('g.client_id', '=', 'c.client_id'))))
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('oauth_requests as r').select('r.id').whereRef('r.client_id', '=', 'c.client_id').where('r.expires_at', '>', isoTime(now)))),
          )
          .orderBy('c.created_at')
          .limit(PRUNE_BATCH),
      )
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /**
   * Housekeeping (every 10 minutes and at the cap): removes every registration never used within an hour, a batch at a
   * time with a turn of the event loop between batches, and forgets the address of registrations over an hour old.
   */
  async prune(): Promise<void> {
    const now = this.clock.now()
    while ((await this.#removeUnused(this.db, now)) === PRUNE_BATCH) await new Promise((resolve) => setImmediate(resolve))
    await this.db
      .updateTable('oauth_clients')
      .set({ registered_from: null })
      .where('registered_from', 'is not', null)
      .where('created_at', '<=', isoTime(now - REGISTRATION_WINDOW_MS))
      .execute()
  }

  async #registeredCount(db: Kysely<Database>): Promise<number> {
    const { count } = await db
      .selectFrom('oauth_clients')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('kind', '=', 'registered')
      .executeTakeFirstOrThrow()
    return Number(count)
  }

  #columns(metadata: ClientMetadata) {
    return {
      client_name: metadata.client_name,
      client_uri: metadata.client_uri,
      logo_uri: metadata.logo_uri,
      redirect_uris: JSON.stringify(metadata.redirect_uris),
      grant_types: JSON.stringify(metadata.grant_types),
    }
  }

  #fromRow(row: Database['oauth_clients']): OauthClient {
    return {
      client_id: row.client_id,
      kind: row.kind,
      created_at: row.created_at,
      client_name: row.client_name,
      client_uri: row.client_uri,
      logo_uri: row.logo_uri,
      redirect_uris: JSON.parse(row.redirect_uris) as string[],
      grant_types: JSON.parse(row.grant_types) as string[],
    }
  }
}
