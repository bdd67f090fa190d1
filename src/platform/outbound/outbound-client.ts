// The server's one outbound client: safeFetch with the allow list in force (the operator's AGENTBOX_OUTBOUND_ALLOW
// plus the admin's org setting `outbound_allow`, read per call so a change applies at once), and the check a saved
// URL gets before anything is called (a base URL that names a refused address is refused when saved).
import { forbiddenReason, parseIpAddress } from './address-policy.ts'
import { AllowList, parseAllowEntry, type AllowEntry } from './allow-list.ts'
import { createSafeFetch, type FetchFunction, type Resolver, type SafeFetch, type StartTimer } from './safe-fetch.ts'
import { createSafeStreamFetch, type SafeStreamFetch } from './stream-fetch.ts'

export interface OutboundClient {
  /** Buffered: the whole body in memory, read up to its limit (then `truncated`). */
  readonly fetch: SafeFetch
  /** Streamed: the body as a stream that fails loudly past its limit; streamed uploads too. */
  readonly stream: SafeStreamFetch
  /**
   * The same client with a few more destinations open, for this client only: the model providers get the base URLs
   * the operator configured for them, without opening those hosts to applications or anything else.
   */
  withAllowed(entries: readonly AllowEntry[]): OutboundClient
  /** Null when `url` may be saved as a destination, else why not (a sentence). Names are judged when called. */
  checkSavedUrl(url: string): Promise<string | null>
}

export interface OutboundClientOptions {
  readonly operatorAllow: readonly AllowEntry[]
  /** The admin's entries as stored (already checked when saved); the same array while they have not changed. */
  readonly adminAllow: () => Promise<readonly string[]>
  readonly resolve?: Resolver
  readonly fetch?: FetchFunction
  readonly startTimer?: StartTimer
}

const LOCALHOST = /(^|\.)localhost\.?$/i

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  return clientWith(options, [])
}

function clientWith(options: OutboundClientOptions, extra: readonly AllowEntry[]): OutboundClient {
  // Parsed once per list the admin saved, not on every call.
  let parsed: { raw: readonly string[]; list: AllowList } | null = null
  const allowList = async (): Promise<AllowList> => {
    const raw = await options.adminAllow()
    if (parsed?.raw !== raw) {
      const admin: AllowEntry[] = []
      for (const text of raw) {
        try {
          admin.push(parseAllowEntry(text))
        } catch {
          // Checked when saved; an entry a newer rule refuses is ignored rather than failing every call.
        }
      }
      parsed = { raw, list: AllowList.of(options.operatorAllow, extra, admin) }
    }
    return parsed.list
  }
  const dependencies = { allow: allowList, resolve: options.resolve, fetch: options.fetch, startTimer: options.startTimer }
  return {
    fetch: createSafeFetch(dependencies),
    stream: createSafeStreamFetch(dependencies),
    withAllowed: (entries) => clientWith(options, [...extra, ...entries]),
    async checkSavedUrl(raw) {
      let url: URL
      try {
        url = new URL(raw)
      } catch {
        return 'Input should be an absolute http or https URL'
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Input should be an absolute http or https URL'
      if (url.username !== '' || url.password !== '') return 'The URL cannot carry a user name or password: connect a credential instead'
      const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
      const allow = await allowList()
      const literal = parseIpAddress(url.hostname)
      const reason = literal ? forbiddenReason(literal) : LOCALHOST.test(url.hostname) ? 'loopback' : null
      if (reason === null) return null
      if (literal ? allow.permitsAddress(literal, port) : allow.permitsHost(url.hostname, port)) return null
      return `Destination not allowed (${reason.replaceAll('_', ' ')} address): an admin can allow it in the outbound_allow setting`
    },
  }
}
