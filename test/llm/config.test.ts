// Model-provider configuration (CONTRACT §7): env vars, defaults, refusals at boot, and API keys that never serialise.
import { describe, expect, test } from 'bun:test'
import { loadConfig, USAGE } from '../../src/config.ts'
import { MockProvider } from '../../src/llm/mock.ts'
import { ModelProviders, modelAllowEntries } from '../../src/llm/registry.ts'
import { guardedOutbound } from './helpers.ts'

describe('LLM settings in loadConfig', () => {
  test('defaults: the mock provider and model, nothing remote configured, a 60 s time-out', () => {
    expect(loadConfig([], {}).llm).toEqual({ provider: 'mock', model: 'mock', openai: null, anthropic: null, timeoutMs: 60_000 })
  })

  test('a provider counts as configured when its base URL or its API key is set', () => {
    const llm = loadConfig([], {
      AGENTBOX_OPENAI_BASE_URL: 'http://localhost:11434/v1/',
      AGENTBOX_ANTHROPIC_API_KEY: 'sk-ant-1',
      AGENTBOX_LLM_TIMEOUT_MS: '1500',
    }).llm
    expect(llm.openai).toMatchObject({ baseUrl: 'http://localhost:11434/v1', apiKey: null })
    expect(llm.anthropic).toMatchObject({ baseUrl: null, apiKey: 'sk-ant-1' })
    expect(llm.timeoutMs).toBe(1500)
  })

  test('API keys are readable by code but never serialised (logs, JSON, inspection)', () => {
    const config = loadConfig([], { AGENTBOX_OPENAI_API_KEY: 'sk-secret-1', AGENTBOX_ANTHROPIC_API_KEY: 'sk-secret-2' })
    expect(config.llm.openai!.apiKey).toBe('sk-secret-1')
    expect(JSON.stringify(config)).not.toContain('sk-secret')
    expect(Bun.inspect(config)).not.toContain('sk-secret')
  })

  test('a remote default provider needs its endpoint and a default model; bad values name their variable', () => {
    expect(() => loadConfig([], { AGENTBOX_LLM_PROVIDER: 'openai', AGENTBOX_LLM_MODEL: 'gpt-4o-mini' })).toThrow(
      /AGENTBOX_OPENAI_BASE_URL nor AGENTBOX_OPENAI_API_KEY/,
    )
    expect(() => loadConfig([], { AGENTBOX_LLM_PROVIDER: 'anthropic', AGENTBOX_ANTHROPIC_API_KEY: 'k' })).toThrow(/AGENTBOX_LLM_MODEL/)
    expect(() => loadConfig([], { AGENTBOX_LLM_PROVIDER: 'gemini' })).toThrow(/AGENTBOX_LLM_PROVIDER/)
    expect(() => loadConfig([], { AGENTBOX_OPENAI_BASE_URL: 'localhost:11434' })).toThrow(/AGENTBOX_OPENAI_BASE_URL/)
    expect(() => loadConfig([], { AGENTBOX_LLM_TIMEOUT_MS: '0' })).toThrow(/AGENTBOX_LLM_TIMEOUT_MS/)
    expect(loadConfig([], { AGENTBOX_LLM_PROVIDER: 'OpenAI', AGENTBOX_OPENAI_API_KEY: 'k', AGENTBOX_LLM_MODEL: 'gpt-4o-mini' }).llm).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
    })
  })

  test('the help text lists every LLM variable', () => {
    for (const name of [
      'AGENTBOX_LLM_PROVIDER',
      'AGENTBOX_LLM_MODEL',
      'AGENTBOX_OPENAI_BASE_URL',
      'AGENTBOX_OPENAI_API_KEY',
      'AGENTBOX_ANTHROPIC_BASE_URL',
      'AGENTBOX_ANTHROPIC_API_KEY',
      'AGENTBOX_LLM_TIMEOUT_MS',
    ])
      expect(USAGE).toContain(name)
  })
})

describe('ModelProviders', () => {
  test('mock is always there; remote providers only when configured; default models resolve per provider', () => {
    const providers = new ModelProviders(
      loadConfig([], { AGENTBOX_LLM_PROVIDER: 'anthropic', AGENTBOX_ANTHROPIC_API_KEY: 'k', AGENTBOX_LLM_MODEL: 'claude-x' }).llm,
      guardedOutbound(),
    )
    expect(providers.configuredNames()).toEqual(['mock', 'anthropic'])
    expect(providers.isConfigured('openai')).toBe(false)
    expect(providers.defaultModelFor('anthropic')).toBe('claude-x')
    expect(providers.defaultModelFor('mock')).toBe('mock')
    expect(providers.default).toEqual({ provider: 'anthropic', model: 'claude-x' })
  })
})

describe('mock provider', () => {
  test('is deterministic, offline, says it is a mock, and echoes the instructions and the turn', async () => {
    const mock = new MockProvider()
    const request = {
      model: 'mock',
      system: 'Be brief.',
      messages: [
        { role: 'user' as const, content: 'one' },
        { role: 'assistant' as const, content: 'x' },
        { role: 'user' as const, content: 'two' },
      ],
    }
    const first = await mock.complete(request)
    expect(first).toEqual(await mock.complete(request))
    expect(first.text).toBe(
      '[mock reply] This answer comes from the built-in mock model "mock", not a real one. Instructions: "Be brief.". Turn 2. You said: "two"',
    )
  })
})

describe('the model base URLs the operator configured are allowed for model calls only', () => {
  test('host:port entries from AGENTBOX_OPENAI_BASE_URL and AGENTBOX_ANTHROPIC_BASE_URL; none for the public defaults', () => {
    const llm = loadConfig([], {
      AGENTBOX_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      AGENTBOX_ANTHROPIC_BASE_URL: 'https://llm.internal',
      AGENTBOX_ANTHROPIC_API_KEY: 'k',
    }).llm
    expect(modelAllowEntries(llm).map((entry) => entry.text)).toEqual(['127.0.0.1:11434', 'llm.internal:443'])
    expect(modelAllowEntries(loadConfig([], { AGENTBOX_OPENAI_API_KEY: 'k' }).llm)).toEqual([])
  })
})
