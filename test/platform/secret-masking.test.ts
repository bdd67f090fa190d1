// The one masking rule (platform/secret-masking.ts): which keys are secret, values masked at any depth, known secrets
// masked wherever they appear, and the textual patterns.
import { describe, expect, test } from 'bun:test'
import { isSecretKey, maskedJson, maskedRecord, maskText, secretValuesIn } from '../../src/platform/secret-masking.ts'

describe('isSecretKey', () => {
  test('credentials under their usual names, in every spelling', () => {
    for (const key of [
      'api_key',
      'apiKey',
      'X-API-Key',
      'key',
      'password',
      'Passwd',
      'user_password',
      'token',
      'access_token',
      'refreshToken',
      'X-Auth-Token',
      'Authorization',
      'auth',
      'client_secret',
      'Cookie',
      'set-cookie',
      'session',
      'sessionid',
      'private_key',
      'jwt',
      'credentials',
    ])
      expect([key, isSecretKey(key)]).toEqual([key, true])
  })

  test('look-alikes that are not secrets stay readable', () => {
    for (const key of ['max_tokens', 'total_tokens', 'keys', 'monkey', 'author', 'authored_at', 'keyword', 'passenger', 'id', 'name', 'note'])
      expect([key, isSecretKey(key)]).toEqual([key, false])
  })
})

describe('maskedJson', () => {
  test('values under secret keys are masked at any depth, in objects and arrays; booleans and null are kept', () => {
    const value = { a: { b: [{ token: 'abcdef', ok: 1 }], password: { nested: 'x' } }, has_token: true, api_key: null, list: ['password'] }
    expect(JSON.parse(maskedJson(value, new Set())!)).toEqual({
      a: { b: [{ token: '***', ok: 1 }], password: '***' },
      has_token: true,
      api_key: null,
      list: ['password'],
    })
  })

  test('known secrets are masked inside any string; nothing else changes', () => {
    const text = maskedJson({ echoed: 'GET /x?q=1 with KEY-123456 inside', n: 2 }, new Set(['KEY-123456']))
    expect(JSON.parse(text!)).toEqual({ echoed: 'GET /x?q=1 with *** inside', n: 2 })
  })

  test('undefined is null; a plain value is returned as JSON.stringify gives it', () => {
    expect(maskedJson(undefined, new Set())).toBeNull()
    expect(maskedJson({ a: 1, b: 'two' }, new Set())).toBe('{"a":1,"b":"two"}')
  })
})

describe('maskText', () => {
  test('Bearer and Basic credentials that look generated, and secret name=value pairs', () => {
    expect(maskText('Authorization: Bearer eyJhbGciOi.JIUzI1Ni', [])).toBe('Authorization: Bearer ***')
    expect(maskText('basic dXNlcjpwYXNzd29yZA==', [])).toBe('basic ***')
    expect(maskText('https://a.example/p?page=2&api_key=abc123&x=1', [])).toBe('https://a.example/p?page=2&api_key=***&x=1')
    expect(maskText('sid=1; session=abcd; theme=dark', [])).toBe('sid=1; session=***; theme=dark')
  })

  test('prose is left alone', () => {
    for (const text of ['Basic Information about the account', 'The token expired yesterday', 'page=2&sort=name']) expect(maskText(text, [])).toBe(text)
  })

  test('short known values are not masked everywhere', () => {
    expect(maskText('a b c', ['b'])).toBe('a b c')
  })
})

describe('maskedRecord', () => {
  test('values passed under secret keys are masked where the result or the user input repeats them', () => {
    const masked = maskedRecord({ arguments: { pwd: 'hunter22' }, result: { text: 'you sent hunter22' }, userInput: 'use hunter22' })
    expect(masked).toEqual({ arguments: '{"pwd":"***"}', result: '{"text":"you sent ***"}', userInput: 'use ***' })
  })

  test('the credentials a call used are masked though no key names them', () => {
    expect(maskedRecord({ arguments: {}, result: { echoed: 'x-key: zzzz9999' } }, ['zzzz9999']).result).toBe('{"echoed":"x-key: ***"}')
  })

  test('secretValuesIn collects strings and numbers under secret keys, at any depth', () => {
    expect([...secretValuesIn({ a: [{ pin: 1234, token: 98765, key: 'k' }, { password: 'longer-one' }] })]).toEqual(['98765', 'longer-one'])
  })
})
