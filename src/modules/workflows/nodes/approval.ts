// agentbox.approval: the human gate. The executor runs it (it pauses the run at a checkpoint), so it has no `run`.
import { LIMITS } from '../definition/types.ts'
import { positiveInt, type NodeKind } from './kind.ts'

export const approvalNode: NodeKind = {
  type: 'agentbox.approval',
  ports: ['approved', 'rejected', 'timeout'],
  exclusivePorts: true,
  fallible: false,
  checkParams(params, { report }) {
    if (params.message !== undefined && typeof params.message !== 'string') report(['message'], 'message must be a string', params.message)
    if (params.timeout_s !== undefined && !positiveInt(params.timeout_s, LIMITS.gateTimeoutCapS))
      report(['timeout_s'], `timeout_s must be an integer from 1 to ${LIMITS.gateTimeoutCapS} (30 days)`, params.timeout_s)
  },
}
