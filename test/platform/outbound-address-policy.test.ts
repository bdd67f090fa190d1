// The outbound address policy and allow list (src/platform/outbound/): which addresses are refused, how the
// entries of AGENTBOX_OUTBOUND_ALLOW and the org setting read, and what they open.
import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { forbiddenReason, formatIpAddress, parseCidr, parseIpAddress, unmapIPv4 } from '../../src/platform/outbound/address-policy.ts'
import { AllowEntryError, AllowList, parseAllowEntry, parseAllowList } from '../../src/platform/outbound/allow-list.ts'

const ip = (text: string) => {
  const address = parseIpAddress(text)
  if (!address) throw new Error(`test address ${text} does not parse`)
  return address
}
const reasonFor = (text: string) => forbiddenReason(ip(text))

describe('parsing and formatting addresses', () => {
  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['fe80::', 'fe80::'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1:0:3:4:5:6:7:8', '1:0:3:4:5:6:7:8'],
  ])('%s reads as %s', (text, formatted) => {
    expect(formatIpAddress(ip(text))).toBe(formatted)
  })

  test.each([
    'example.com',
    '127.1',
    '0177.0.0.1',
    '2130706433',
    '256.0.0.1',
    '1.2.3',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    'fe80::1%eth0',
    '::ffff:1.2.3',
    '',
    '[::1',
  ])('%p is not an address literal', (text) => {
    expect(parseIpAddress(text)).toBeNull()
  })

  test('an IPv4-mapped address is the IPv4 address it carries', () => {
    expect(formatIpAddress(unmapIPv4(ip('::ffff:10.1.2.3')))).toBe('10.1.2.3')
    expect(unmapIPv4(ip('2001:4860::1')).family).toBe(6)
  })
})

describe('the address policy', () => {
  test.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'shared_cgnat'],
    ['100.100.100.200', 'shared_cgnat'],
    ['192.0.0.192', 'protocol_assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'ipv4_compatible'],
    ['::8.8.8.8', 'ipv4_compatible'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::169.254.169.254', 'link_local'],
    ['64:ff9b:1::1', 'nat64_local'],
    ['2002:7f00:1::', '6to4'],
    ['2002:808:808::', '6to4'],
    ['2001::1', 'teredo'],
    ['2001:db8::1', 'documentation'],
    ['fc00::1', 'unique_local'],
    ['fd00:ec2::254', 'unique_local'],
    ['fe80::1', 'link_local'],
    ['fec0::1', 'site_local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['::ffff:0:7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
  ])('%s is refused as %s', (address, reason) => {
    expect(reasonFor(address)).toBe(reason as never)
  })

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1',
    '100.128.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('%s is a public address', (address) => {
    expect(reasonFor(address)).toBeNull()
  })
})

describe('allow-list entries', () => {
  test.each([
    ['api.internal', { kind: 'host', host: 'api.internal', port: null }],
    ['API.Internal.', { kind: 'host', host: 'api.internal', port: null }],
    ['api.internal:8443', { kind: 'host', host: 'api.internal', port: 8443 }],
    ['localhost', { kind: 'host', host: 'localhost', port: null }],
    ['bücher.example', { kind: 'host', host: 'xn--bcher-kva.example', port: null }],
  ])('%s is a host entry', (text, expected) => {
    expect(parseAllowEntry(text)).toMatchObject(expected)
  })

  test.each([
    ['127.0.0.1', '127.0.0.1', 32, null],
    ['127.0.0.1:8080', '127.0.0.1', 32, 8080],
    ['::1', '::1', 128, null],
    ['[::1]:8080', '::1', 128, 8080],
    ['10.0.0.0/8', '10.0.0.0', 8, null],
    ['fd00::/8', 'fd00::', 8, null],
    ['::ffff:10.0.0.0/104', '10.0.0.0', 8, null],
  ])('%s is an address entry for %s/%d', (text, base, prefix, port) => {
    const entry = parseAllowEntry(text)
    if (entry.kind !== 'address') throw new Error('expected an address entry')
    expect(formatIpAddress({ family: entry.network.family, value: entry.network.base })).toBe(base)
    expect([entry.network.prefix, entry.port]).toEqual([prefix, port])
  })

  test.each([
    ['', 'is empty'],
    ['*.example.com', 'wildcard'],
    ['10.0.0.1/8', 'did you mean 10.0.0.0/8?'],
    ['10.0.0.0/33', 'is not a CIDR'],
    ['api.internal/path', 'is not a CIDR'],
    ['api.internal:0', 'invalid port'],
    ['api.internal:65536', 'invalid port'],
    ['api.internal:http', 'invalid port'],
    ['127.1', 'reads as the address 127.0.0.1'],
    ['2130706433', 'reads as the address 127.0.0.1'],
    ['[example.com]:80', 'not an IPv6 address'],
    ['1::2::3', 'not an IPv6 address'],
    ['exa mple.com', 'is not a host name'],
    ['http://api.internal', 'is not a CIDR'],
  ])('%p is refused with a message saying why', (text, message) => {
    expect(() => parseAllowEntry(text)).toThrow(AllowEntryError)
    expect(() => parseAllowEntry(text)).toThrow(message)
  })

  test('a comma-separated list, spaces and empty parts ignored', () => {
    expect(parseAllowList(' api.internal , 10.0.0.0/8,,[::1]:80 ').map((entry) => entry.text)).toEqual(['api.internal', '10.0.0.0/8', '[::1]:80'])
    expect(parseAllowList('')).toEqual([])
  })
})

describe('what an allow list opens', () => {
  const allow = AllowList.of(parseAllowList('api.internal, git.internal:8443, 10.1.0.0/16, 127.0.0.1:9000, fd00::/8'), parseAllowList('192.168.5.5'))

  test('host entries match the URL host name, with their port if they name one', () => {
    expect(allow.permitsHost('api.internal', 80)).toBe(true)
    expect(allow.permitsHost('API.internal.', 443)).toBe(true)
    expect(allow.permitsHost('git.internal', 8443)).toBe(true)
    expect(allow.permitsHost('git.internal', 443)).toBe(false)
    expect(allow.permitsHost('other.internal', 80)).toBe(false)
    expect(allow.permitsHost('sub.api.internal', 80)).toBe(false)
  })

  test('address entries match the address connected to, IPv4-mapped forms included', () => {
    expect(allow.permitsAddress(ip('10.1.200.3'), 80)).toBe(true)
    expect(allow.permitsAddress(ip('::ffff:10.1.200.3'), 80)).toBe(true)
    expect(allow.permitsAddress(ip('10.2.0.1'), 80)).toBe(false)
    expect(allow.permitsAddress(ip('127.0.0.1'), 9000)).toBe(true)
    expect(allow.permitsAddress(ip('127.0.0.1'), 9001)).toBe(false)
    expect(allow.permitsAddress(ip('fd12::1'), 443)).toBe(true)
    expect(allow.permitsAddress(ip('192.168.5.5'), 22)).toBe(true)
  })

  test('host entries do not open addresses, nor address entries names', () => {
    expect(allow.permitsHost('10.1.0.1', 80)).toBe(false)
    expect(AllowList.none.permitsAddress(ip('127.0.0.1'), 80)).toBe(false)
  })

  test('a CIDR from the parser keeps its host bits so the entry check can name the likely typo', () => {
    expect(parseCidr('10.0.0.1/8')?.base).toBe(ip('10.0.0.1').value)
  })
})

describe('AGENTBOX_OUTBOUND_ALLOW', () => {
  const load = (value?: string) => loadConfig(['serve'], value === undefined ? {} : { AGENTBOX_OUTBOUND_ALLOW: value })

  test('is read into the config as parsed entries, none by default', () => {
    expect(load().outboundAllow).toEqual([])
    expect(load('api.internal:8443, 10.0.0.0/8').outboundAllow.map((entry) => entry.kind)).toEqual(['host', 'address'])
  })

  test('an invalid entry stops the boot with the variable and the entry named', () => {
    expect(() => load('api.internal, 10.0.0.1/8')).toThrow(ConfigError)
    expect(() => load('api.internal, 10.0.0.1/8')).toThrow('AGENTBOX_OUTBOUND_ALLOW: "10.0.0.1/8" has host bits set')
  })
})
