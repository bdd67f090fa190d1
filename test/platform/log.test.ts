// The log line format (CONTRACT §1: one JSON object per line, time, level, msg, then the fields) and level filtering.
import { describe, expect, test } from 'bun:test'
import { createLogger, formatLogLine } from '../../src/platform/log.ts'

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('formatLogLine', () => {
  test('time, level and msg come first, then the fields, as one JSON object', () => {
    const before = Date.now()
    const line = formatLogLine('info', 'request', { request_id: 'r-1', method: 'GET', path: '/api/auth/me', status: 200, ms: 0.42 })
    const parsed = JSON.parse(line)
    expect(Object.keys(parsed)).toEqual(['time', 'level', 'msg', 'request_id', 'method', 'path', 'status', 'ms'])
    expect(parsed).toMatchObject({ level: 'info', msg: 'request', request_id: 'r-1', method: 'GET', path: '/api/auth/me', status: 200, ms: 0.42 })
    expect(parsed.time).toMatch(ISO_MS_UTC)
    expect(Date.parse(parsed.time)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(parsed.time)).toBeLessThanOrEqual(Date.now())
  })

  test('no fields and empty fields give the three keys alone', () => {
    for (const line of [formatLogLine('warn', 'stopped'), formatLogLine('warn', 'stopped', {})]) {
      expect(Object.keys(JSON.parse(line))).toEqual(['time', 'level', 'msg'])
    }
  })

  test('quotes, newlines, line separators and non-ASCII stay inside one line and read back unchanged', () => {
    const msg = 'a "quoted"\nmessage\u2028with ünïcödé and \\ backslash'
    const fields = { path: '/x"y\r\n', nested: { list: [1, 'two', null], tab: '\t' } }
    const line = formatLogLine('error', msg, fields)
    expect(line.includes('\n')).toBe(false)
    expect(line.includes('\r')).toBe(false)
    const parsed = JSON.parse(line)
    expect(parsed.msg).toBe(msg)
    expect(parsed.path).toBe(fields.path)
    expect(parsed.nested).toEqual(fields.nested)
  })

  test('fields cannot replace time, level or msg, and no key appears twice', () => {
    const line = formatLogLine('info', 'real message', { time: 'forged', level: 'error', msg: 'forged', other: 1 })
    const parsed = JSON.parse(line)
    expect(parsed.msg).toBe('real message')
    expect(parsed.level).toBe('info')
    expect(parsed.time).toMatch(ISO_MS_UTC)
    expect(parsed.other).toBe(1)
    expect(line.match(/"(time|level|msg)":/g)).toHaveLength(3)
  })

  test('the time moves on: lines a few milliseconds apart carry different times', async () => {
    const first = JSON.parse(formatLogLine('info', 'one')).time
    await Bun.sleep(5)
    const second = JSON.parse(formatLogLine('info', 'two')).time
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first))
  })
})

describe('createLogger', () => {
  test('drops lines below its level, and sends warnings and errors as urgent', () => {
    const written: [string, boolean][] = []
    const logger = createLogger('info', (line, urgent) => written.push([line, urgent]))
    logger.debug('hidden')
    logger.info('shown', { n: 1 })
    logger.warn('careful')
    logger.error('broken')
    expect(written.map(([line, urgent]) => [JSON.parse(line).msg, urgent])).toEqual([
      ['shown', false],
      ['careful', true],
      ['broken', true],
    ])
    expect(logger.isEnabled('debug')).toBe(false)
    expect(logger.isEnabled('info')).toBe(true)
    expect(createLogger('warn', () => {}).isEnabled('info')).toBe(false)
  })
})
