// Which IP addresses an outbound call may reach: parsing, CIDR matching, and the table of special-purpose ranges we refuse.
//
// Only ever applied to addresses as the URL parser or the resolver produced them (never to the raw string a
// caller typed): `new URL` has already turned `2130706433`, `0x7f.1`, `0177.0.0.1` and `127.1` into `127.0.0.1`.

/** An IPv4 (32-bit) or IPv6 (128-bit) address as a number, so ranges are one comparison. */
export interface IpAddress {
  readonly family: 4 | 6
  readonly value: bigint
}

/** A network: the address with its host bits cleared, and the prefix length. */
export interface Cidr {
  readonly family: 4 | 6
  readonly base: bigint
  readonly prefix: number
}

/** Why an address is refused; logged, never shown to the caller (the contract's text is "Destination not allowed"). */
export type ForbiddenReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared_cgnat'
  | 'link_local'
  | 'protocol_assignments'
  | 'documentation'
  | 'benchmarking'
  | 'relay_anycast'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'ipv4_compatible'
  | 'nat64_local'
  | 'discard'
  | 'teredo'
  | '6to4'
  | 'unique_local'
  | 'site_local'

const BITS = { 4: 32, 6: 128 } as const

function parseIPv4(text: string): bigint | null {
  const parts = text.split('.')
  if (parts.length !== 4) return null
  let value = 0n
  for (const part of parts) {
    // Decimal only, no leading zeros: `010` is octal to some parsers and decimal to others.
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null
    value = (value << 8n) | BigInt(part)
  }
  return value
}

function parseGroups(text: string, mayEndInIPv4: boolean): number[] | null {
  if (text === '') return []
  const pieces = text.split(':')
  const groups: number[] = []
  for (const [index, piece] of pieces.entries()) {
    if (mayEndInIPv4 && index === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIPv4(piece)
      if (v4 === null) return null
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn))
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
      groups.push(Number.parseInt(piece, 16))
    } else {
      return null
    }
  }
  return groups
}

function parseIPv6(text: string): bigint | null {
  // A zone (`fe80::1%eth0`) names an interface of this machine: never a destination we connect to.
  if (text.includes('%')) return null
  const gap = text.indexOf('::')
  let groups: number[] | null
  if (gap === -1) {
    groups = parseGroups(text, true)
    if (groups?.length !== 8) return null
  } else {
    if (text.indexOf('::', gap + 1) !== -1) return null
    const head = parseGroups(text.slice(0, gap), false)
    const tail = parseGroups(text.slice(gap + 2), true)
    if (!head || !tail || head.length + tail.length > 7) return null
    groups = [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail]
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n)
}

/**
 * Texts already parsed, and the answer: every outbound call parses its host (and the address it dials) again, and the
 * BigInt arithmetic was ~3 % of an execute call. The answers are immutable values; the map is emptied when full, so
 * however many names pass through it holds at most PARSED_LIMIT.
 */
const parsed = new Map<string, IpAddress | null>()
const PARSED_LIMIT = 1024

/** A literal IPv4 (dotted decimal) or IPv6 address, brackets allowed; null for anything else, host names included. */
export function parseIpAddress(text: string): IpAddress | null {
  let address = parsed.get(text)
  if (address === undefined) {
    if (parsed.size >= PARSED_LIMIT) parsed.clear()
    address = parseIpText(text)
    parsed.set(text, address)
  }
  return address
}

function parseIpText(text: string): IpAddress | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  if (bare.includes(':')) {
    const value = parseIPv6(bare)
    return value === null ? null : { family: 6, value }
  }
  const value = parseIPv4(bare)
  return value === null ? null : { family: 4, value }
}

function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.')
}

/** RFC 5952 text: lower case, the longest run of two or more zero groups written `::`. */
function formatIPv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, index) => Number((value >> BigInt((7 - index) * 16)) & 0xffffn))
  let bestStart = -1
  let bestLength = 1
  for (let start = 0; start < 8; start++) {
    let length = 0
    while (start + length < 8 && groups[start + length] === 0) length++
    if (length > bestLength) [bestStart, bestLength] = [start, length]
  }
  const hex = groups.map((group) => group.toString(16))
  if (bestStart === -1) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`
}

/** Texts and refusal reasons of addresses already seen (most are the shared values parseIpAddress hands out). */
const formatted = new WeakMap<IpAddress, string>()
const judged = new WeakMap<IpAddress, ForbiddenReason | null>()

export function formatIpAddress(address: IpAddress): string {
  let text = formatted.get(address)
  if (text === undefined) {
    text = address.family === 4 ? formatIPv4(address.value) : formatIPv6(address.value)
    formatted.set(address, text)
  }
  return text
}

export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/')
  if (slash === -1) return null
  const address = parseIpAddress(text.slice(0, slash))
  const prefixText = text.slice(slash + 1)
  if (!address || !/^(0|[1-9]\d{0,2})$/.test(prefixText)) return null
  const prefix = Number(prefixText)
  if (prefix > BITS[address.family]) return null
  return { family: address.family, base: address.value, prefix }
}

/** The network with host bits cleared; `parseCidr` keeps them so the allow list can point out a likely typo. */
export function networkOf(cidr: Cidr): Cidr {
  const hostBits = BigInt(BITS[cidr.family] - cidr.prefix)
  return { ...cidr, base: (cidr.base >> hostBits) << hostBits }
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.family !== address.family) return false
  const hostBits = BigInt(BITS[cidr.family] - cidr.prefix)
  return address.value >> hostBits === cidr.base >> hostBits
}

const MAPPED = parseCidr('::ffff:0:0/96')!
const NAT64 = parseCidr('64:ff9b::/96')!

/** `::ffff:a.b.c.d` is a.b.c.d to the kernel (a dual-stack socket reaches it over IPv4), so it is that address. */
export function unmapIPv4(address: IpAddress): IpAddress {
  return cidrContains(MAPPED, address) ? { family: 4, value: address.value & 0xffffffffn } : address
}

const rules = (table: [string, ForbiddenReason][]): [Cidr, ForbiddenReason][] => table.map(([cidr, reason]) => [parseCidr(cidr)!, reason])

// IANA's IPv4 special-purpose registry: everything not globally reachable, plus documentation and benchmarking
// ranges no real API lives in. Broadcast before 240/4 so the reason is the precise one.
const IPV4_FORBIDDEN = rules([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared_cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'protocol_assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'relay_anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
])

// First match wins: the specific ranges before the /23 and /96 that contain them.
const IPV6_FORBIDDEN = rules([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'ipv4_compatible'],
  ['64:ff9b:1::/48', 'nat64_local'],
  ['100::/64', 'discard'],
  ['2001::/32', 'teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2001:2::/48', 'benchmarking'],
  ['2001::/23', 'protocol_assignments'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique_local'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'site_local'],
  ['ff00::/8', 'multicast'],
])
const GLOBAL_UNICAST = parseCidr('2000::/3')!

/**
 * Null when a public service may live at the address, else why not. IPv4-mapped (`::ffff:0:0/96`) and NAT64
 * (`64:ff9b::/96`) addresses are judged by the IPv4 address they carry: an IPv6-only host behind DNS64 reaches
 * public IPv4 services that way. The deprecated IPv4-compatible, 6to4 and Teredo forms are refused outright, and
 * so is all IPv6 outside 2000::/3 (the only space IANA hands out for global unicast).
 */
export function forbiddenReason(address: IpAddress): ForbiddenReason | null {
  let reason = judged.get(address)
  if (reason === undefined) {
    reason = judge(address)
    judged.set(address, reason)
  }
  return reason
}

function judge(address: IpAddress): ForbiddenReason | null {
  if (address.family === 4) return IPV4_FORBIDDEN.find(([cidr]) => cidrContains(cidr, address))?.[1] ?? null
  if (cidrContains(MAPPED, address) || cidrContains(NAT64, address)) {
    return forbiddenReason({ family: 4, value: address.value & 0xffffffffn })
  }
  const rule = IPV6_FORBIDDEN.find(([cidr]) => cidrContains(cidr, address))
  if (rule) return rule[1]
  return cidrContains(GLOBAL_UNICAST, address) ? null : 'reserved'
}
