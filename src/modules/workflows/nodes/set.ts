// agentbox.set: writes values at paths into a copy of $json (merge) or into a new object (replace).
import { cloneJson, isPlainObject } from '../expr/values.ts'
import { sizeProblem } from '../expr/value-size.ts'
import { StepError } from '../engine/errors.ts'
import { parseSetPath, writePath } from '../engine/set-path.ts'
import type { NodeKind } from './kind.ts'

export const setNode: NodeKind = {
  type: 'agentbox.set',
  ports: ['main', 'error'],
  exclusivePorts: true,
  fallible: true,
  checkParams(params, { report, oneOf }) {
    if (!isPlainObject(params.values)) return report(['values'], 'values must be an object of {path: value}', params.values)
    for (const path of Object.keys(params.values)) {
      const problem = parseSetPath(path).problem
      if (problem) report(['values', path], problem, path)
    }
    oneOf('mode', ['merge', 'replace'])
  },
  run(_node, params, json, tools) {
    // The values are copied into the output: many references to one big list would become that many copies, so they
    // are measured as the output will be before anything is copied (the walk stops at the limit).
    const problem = sizeProblem("The step's output", tools.measure(params.values ?? null))
    if (problem) throw new StepError('output_too_large', problem)
    const start: Record<string, unknown> = params.mode === 'replace' || !isPlainObject(json) ? {} : cloneJson(json)
    for (const [path, value] of Object.entries((params.values ?? {}) as Record<string, unknown>)) {
      const { segments, problem } = parseSetPath(path)
      if (problem) throw new StepError('invalid_path', problem)
      writePath(start, segments, cloneJson(value))
    }
    return { port: 'main', json: start }
  },
}
