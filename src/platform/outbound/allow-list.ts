// The outbound allow list: destinations an operator (AGENTBOX_OUTBOUND_ALLOW) or an admin (org setting
// `outbound_allow`) opened although the address policy refuses them, e.g. an API on the office LAN.
import { cidrContains, formatIpAddress, networkOf, parseCidr, parseIpAddress, unmapIPv4, type Cidr, type IpAddress } from './address-policy.ts'

/**
 * One entry. `host`: a DNS name, matched against the URL's host name (every address it resolves to is then
 * accepted). `address`: an IP literal or a CIDR, matched against the address the connection goes to.
 * `port` null: any port.
 */
export type AllowEntry =
  | { readonly kind: 'host'; readonly text: string; readonly host: string; readonly port: number | null }
  | { readonly kind: 'address'; readonly text: string; readonly network: Cidr; readonly port: number | null }

/** An entry that is not a host, host:port or CIDR; the message names the entry and is fit for a 422 `msg`. */
export class AllowEntryError extends Error {
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`"${entry}" ${reason}`)
    this.name = 'AllowEntryError'
  }
}

const EXAMPLES = 'write a host (api.internal), host:port (api.internal:8443), an IP address or a CIDR (10.0.0.0/8)'

function parsePort(entry: string, text: string): number {
  const port = Number(text)
  if (!/^[1-9]\d{0,4}$/.test(text) || port > 65535) throw new AllowEntryError(entry, 'has an invalid port (1-65535)')
  return port
}

/** The host name as the URL parser writes it (lower case, IDN in punycode) without a trailing dot. */
export const normalizeHostName = (host: string): string => host.toLowerCase().replace(/\.$/, '')

function hostEntry(entry: string, host: string, port: number | null): AllowEntry {
  const address = parseIpAddress(host)
  if (address) {
    const single: Cidr = { family: address.family, base: address.value, prefix: address.family === 4 ? 32 : 128 }
    return { kind: 'address', text: entry, network: canonicalNetwork(single), port }
  }
  if (host.includes('*')) throw new AllowEntryError(entry, 'uses a wildcard, which is not supported: list each host, or use a CIDR')
  let parsed: string
  try {
    parsed = new URL(`http://${host}/`).hostname
  } catch {
    throw new AllowEntryError(entry, `is not a host name: ${EXAMPLES}`)
  }
  // The URL parser reads `127.1` or `0x7f000001` as an IPv4 address: ask for the unambiguous spelling.
  if (parseIpAddress(parsed)) throw new AllowEntryError(entry, `reads as the address ${parsed}: write it that way`)
  if (!parsed || parsed.startsWith('[')) throw new AllowEntryError(entry, `is not a host name: ${EXAMPLES}`)
  return { kind: 'host', text: entry, host: normalizeHostName(parsed), port }
}

/** An IPv4-mapped network (`::ffff:10.0.0.0/104`) is the IPv4 network, as its addresses are (see unmapIPv4). */
function canonicalNetwork(network: Cidr): Cidr {
  if (network.family !== 6 || network.prefix < 96) return network
  const first = unmapIPv4({ family: 6, value: network.base })
  return first.family === 4 ? { family: 4, base: first.value, prefix: network.prefix - 96 } : network
}

/** Reads one entry: `host`, `host:port`, `1.2.3.4`, `1.2.3.4:8080`, `::1`, `[::1]:8080`, `10.0.0.0/8`, `fd00::/8`. */
export function parseAllowEntry(raw: string): AllowEntry {
  const entry = raw.trim()
  if (entry === '') throw new AllowEntryError(raw, `is empty: ${EXAMPLES}`)
  if (entry.includes('/')) {
    const cidr = parseCidr(entry)
    if (!cidr) throw new AllowEntryError(entry, `is not a CIDR (10.0.0.0/8, fd00::/8) and hosts take no path`)
    const network = networkOf(cidr)
    if (network.base !== cidr.base) {
      throw new AllowEntryError(entry, `has host bits set: did you mean ${formatIpAddress({ family: network.family, value: network.base })}/${network.prefix}?`)
    }
    return { kind: 'address', text: entry, network: canonicalNetwork(network), port: null }
  }
  const bracketed = /^\[([^\]]*)\](?::([^:]*))?$/.exec(entry)
  if (bracketed) {
    const address = parseIpAddress(bracketed[1]!)
    if (address?.family !== 6) throw new AllowEntryError(entry, 'is not an IPv6 address in brackets')
    return hostEntry(entry, bracketed[1]!, bracketed[2] === undefined ? null : parsePort(entry, bracketed[2]))
  }
  const colons = entry.split(':').length - 1
  if (colons >= 2) {
    if (!parseIpAddress(entry)) throw new AllowEntryError(entry, 'is not an IPv6 address (with a port, write [::1]:8080)')
    return hostEntry(entry, entry, null)
  }
  if (colons === 1) {
    const [host, port] = entry.split(':') as [string, string]
    return hostEntry(entry, host, parsePort(entry, port))
  }
  return hostEntry(entry, entry, null)
}

/** `AGENTBOX_OUTBOUND_ALLOW`: entries separated by commas (spaces around them ignored); empty → none. */
export function parseAllowList(text: string): AllowEntry[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(parseAllowEntry)
}

/** The entries in force for one call: the operator's and the admin's together. */
export class AllowList {
  static readonly none = new AllowList([])
  readonly entries: readonly AllowEntry[]

  constructor(entries: readonly AllowEntry[]) {
    this.entries = Object.freeze([...entries])
  }

  static of(...groups: readonly (readonly AllowEntry[])[]): AllowList {
    return new AllowList(groups.flat())
  }

  /** The URL's host name (as the URL parser wrote it) is listed, for this port or any. */
  permitsHost(hostName: string, port: number): boolean {
    const host = normalizeHostName(hostName)
    return this.entries.some((entry) => entry.kind === 'host' && entry.host === host && (entry.port === null || entry.port === port))
  }

  /** The address the connection would go to lies in a listed address or network, for this port or any. */
  permitsAddress(address: IpAddress, port: number): boolean {
    const canonical = unmapIPv4(address)
    return this.entries.some((entry) => entry.kind === 'address' && cidrContains(entry.network, canonical) && (entry.port === null || entry.port === port))
  }
}
