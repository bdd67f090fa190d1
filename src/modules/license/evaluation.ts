// The 30-day evaluation an instance can start at setup instead of applying a signed licence (docs/decisions.md "Evaluation").
import type { LicenseClaims } from './token.ts'

/** What `license_token` says at setup to start an evaluation instead of applying a signed licence. */
export const EVALUATION_TOKEN = 'evaluation'
export const EVALUATION_DAYS = 30
export const EVALUATION_SEATS = 5
/** The organisation's name until a signed licence names it. */
export const EVALUATION_ORG = 'Evaluation'
/** An evaluation's licence has no customer; a signed licence always has one (its `sub` is never empty). */
export const EVALUATION_CUSTOMER = ''

const DAY_S = 86_400

export const isEvaluationToken = (token: string) => token.trim().toLowerCase() === EVALUATION_TOKEN

export const isEvaluation = (licence: { customer_id: string }) => licence.customer_id === EVALUATION_CUSTOMER

/** The claims an evaluation starting now is stored with, like a signed licence's; `org` is what the setup wizard asked. */
export function evaluationClaims(nowMs: number, org: string = EVALUATION_ORG): LicenseClaims {
  const now = Math.floor(nowMs / 1000)
  return {
    iss: 'agentbox-licensing',
    lic: `evaluation-${now}`,
    sub: EVALUATION_CUSTOMER,
    org,
    seats: EVALUATION_SEATS,
    features: [],
    iat: now,
    nbf: now,
    exp: now + EVALUATION_DAYS * DAY_S,
  }
}
