// Who the client of a request is. The socket's peer, unless the peer is a trusted proxy (AGENTBOX_TRUSTED_PROXIES):
// then the nearest address in X-Forwarded-For that is not itself a trusted proxy. X-Forwarded-For from any other peer
// is ignored (any client can send it), but noticed: health warns that a proxy in front is not trusted.
import type { Clock } from '../clock.ts'
import type { Logger } from '../log.ts'
import { cidrContains, formatIpAddress, networkOf, parseCidr, parseIpAddress, unmapIPv4, type Cidr, type IpAddress } from '../outbound/address-policy.ts'

/** What a request whose peer address is not known (no socket, as in tests) is counted as. */
export const UNKNOWN_ADDRESS = 'unknown'

/** An entry of AGENTBOX_TRUSTED_PROXIES that is not an address or a CIDR; the message names it. */
export class TrustedProxyError extends Error {}

/** `::ffff:10.0.0.0/104` is the IPv4 network 10.0.0.0/8, as the addresses in it are (see unmapIPv4). */
function canonical(network: Cidr): Cidr {
  if (network.family !== 6 || network.prefix < 96) return network
  const first = unmapIPv4({ family: 6, value: network.base })
  return first.family === 4 ? { family: 4, base: first.value, prefix: network.prefix - 96 } : network
}

/** `10.0.0.5, 10.1.0.0/16, fd00::/8`: addresses or CIDRs separated by commas; empty → none. Host names are refused. */
export function parseTrustedProxies(text: string): Cidr[] {
  const networks: Cidr[] = []
  for (const raw of text.split(',')) {
    const entry = raw.trim()
    if (entry === '') continue
    if (entry.includes('/')) {
      const cidr = parseCidr(entry)
      if (!cidr) throw new TrustedProxyError(`"${entry}" is not a CIDR (like 10.0.0.0/8 or fd00::/8)`)
      const network = networkOf(cidr)
      if (network.base !== cidr.base)
        throw new TrustedProxyError(
          `"${entry}" has host bits set: did you mean ${formatIpAddress({ family: network.family, value: network.base })}/${network.prefix}?`,
        )
      networks.push(canonical(network))
      continue
    }
    const address = parseIpAddress(entry)
    if (!address) throw new TrustedProxyError(`"${entry}" is not an IP address or a CIDR (host names are not accepted: a proxy is known by its address)`)
    const single = unmapIPv4(address)
    networks.push({ family: single.family, base: single.value, prefix: single.family === 4 ? 32 : 128 })
  }
  return networks
}

/** An address as the server compares and counts it: IPv4-mapped IPv6 as IPv4, IPv6 in RFC 5952 text. */
function normalise(text: string | undefined): { text: string; address: IpAddress | null } {
  if (!text) return { text: UNKNOWN_ADDRESS, address: null }
  const parsed = parseIpAddress(text)
  if (!parsed) return { text, address: null }
  const address = unmapIPv4(parsed)
  return { text: formatIpAddress(address), address }
}

/**
 * One X-Forwarded-For entry: `203.0.113.7`, `2001:db8::1`, and the forms some proxies write with a port
 * (`203.0.113.7:4711`, `[2001:db8::1]:4711`). Null for anything else (`unknown`, obfuscated ids, garbage).
 */
function forwardedEntry(raw: string): IpAddress | null {
  const entry = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry)
  if (bracketed) return parseIpAddress(bracketed[1]!)
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry)
  const address = parseIpAddress(withPort ? withPort[1]! : entry)
  return address ? unmapIPv4(address) : null
}

/** Hops read from the right of X-Forwarded-For at most: a chain of more trusted proxies than this is not real. */
const MAX_HOPS = 32
/** Peers remembered as trusted or not; behind a proxy there are a handful, so the check is a Map lookup. */
const TRUST_MEMO_LIMIT = 1024
/** Distinct untrusted peers logged once each, at most this many per process. */
const LOGGED_PEERS_LIMIT = 64

export interface UntrustedForwarding {
  /** Requests that carried X-Forwarded-For from a peer that is not a trusted proxy, since the process started. */
  readonly requests: number
  /** When the last one came (clock ms), or null. */
  readonly lastSeenAt: number | null
}

export class ClientAddresses {
  readonly #trusted: readonly Cidr[]
  readonly #clock: Clock
  readonly #logger: Logger | undefined
  readonly #trustMemo = new Map<string, boolean>()
  readonly #loggedPeers = new Set<string>()
  #untrustedRequests = 0
  #untrustedLastAt: number | null = null

  constructor(trusted: readonly Cidr[], clock: Clock, logger?: Logger) {
    this.#trusted = trusted
    this.#clock = clock
    this.#logger = logger
  }

  #isTrusted(address: IpAddress | null): boolean {
    return address !== null && this.#trusted.some((network) => cidrContains(network, address))
  }

  /** Memoised by the peer's text as the server reports it, so the common case (a few proxies) parses nothing. */
  #peerTrusted(peerText: string | undefined): boolean {
    if (peerText === undefined) return false
    let trusted = this.#trustMemo.get(peerText)
    if (trusted === undefined) {
      trusted = this.#isTrusted(normalise(peerText).address)
      if (this.#trustMemo.size >= TRUST_MEMO_LIMIT) this.#trustMemo.clear()
      this.#trustMemo.set(peerText, trusted)
    }
    return trusted
  }

  /** The client of a request without X-Forwarded-For: its peer. */
  ofPeer(peerText: string | undefined): string {
    return normalise(peerText).text
  }

  /**
   * For a request that carries X-Forwarded-For: decides at once whether the peer is a trusted proxy (noting it for
   * health when it is not) and answers how to find the client when someone asks (only the sign-in throttle and the
   * registration limit do). From a trusted peer the list is walked from the right (the hop the proxy itself appended)
   * past every trusted proxy; the first address that is not one is the client. If an entry cannot be read, the last
   * hop that could is the client (the chain is broken there; never a value a client wrote). From any other peer: the
   * peer.
   */
  forwarded(peerText: string | undefined, forwardedFor: string): () => string {
    if (!this.#peerTrusted(peerText)) {
      this.#noteUntrusted(peerText)
      return () => normalise(peerText).text
    }
    return () => this.#walk(normalise(peerText).address!, forwardedFor)
  }

  /** forwarded(), answered at once. */
  ofForwarded(peerText: string | undefined, forwardedFor: string): string {
    return this.forwarded(peerText, forwardedFor)()
  }

  #walk(peer: IpAddress, forwardedFor: string): string {
    let client = peer
    let end = forwardedFor.length
    for (let hops = 0; hops < MAX_HOPS && this.#isTrusted(client) && end > 0; hops++) {
      const comma = forwardedFor.lastIndexOf(',', end - 1)
      const entry = forwardedEntry(forwardedFor.slice(comma + 1, end))
      if (!entry) break
      client = entry
      end = Math.max(comma, 0)
    }
    return formatIpAddress(client)
  }

  #noteUntrusted(peerText: string | undefined): void {
    this.#untrustedRequests++
    this.#untrustedLastAt = this.#clock.now()
    const key = peerText ?? UNKNOWN_ADDRESS
    if (this.#logger && this.#loggedPeers.size < LOGGED_PEERS_LIMIT && !this.#loggedPeers.has(key)) {
      this.#loggedPeers.add(key)
      this.#logger.warn('X-Forwarded-For ignored: the peer is not in AGENTBOX_TRUSTED_PROXIES', { peer: normalise(peerText).text })
    }
  }

  untrustedForwarding(): UntrustedForwarding {
    return { requests: this.#untrustedRequests, lastSeenAt: this.#untrustedLastAt }
  }
}

/**
 * What rate limits count by: an IPv4 address, or the /64 network of an IPv6 one (one subscriber's LAN: a client that
 * owns a /64 could otherwise take a new address for every attempt). Other text (`unknown`) is its own key.
 */
export function throttleKey(address: string): string {
  const parsed = parseIpAddress(address)
  if (!parsed) return address
  const canonicalAddress = unmapIPv4(parsed)
  if (canonicalAddress.family === 4) return formatIpAddress(canonicalAddress)
  const network = networkOf({ family: 6, base: canonicalAddress.value, prefix: 64 })
  return `${formatIpAddress({ family: 6, value: network.base })}/64`
}
