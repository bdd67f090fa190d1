// agentbox.join: waits for every incoming branch (the executor buffers them) and passes the combined $json on.
import type { NodeKind } from './kind.ts'

export const joinNode: NodeKind = {
  type: 'agentbox.join',
  ports: ['main'],
  exclusivePorts: false,
  fallible: false,
  checkParams() {},
  run: (_node, _params, json) => ({ port: 'main', json }),
}
