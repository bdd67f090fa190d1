// Request and response schemas of the licence endpoints.
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { DateTime } from '../../platform/http/schema-pieces.ts'

export const ApplyLicenseBody = t.Object({ license_token: t.String({ description: 'The signed licence (compact JWS, EdDSA).' }) })

export const LicenseSummary = t.Object({
  lic: t.String(),
  org: t.String(),
  seats: Type.Integer(),
  seats_used: Type.Integer(),
  features: t.Array(t.String()),
  expires_at: DateTime,
  status: t.Union([t.Literal('valid'), t.Literal('grace'), t.Literal('expired')]),
  evaluation: t.Boolean({ description: 'True for the 30-day evaluation started at setup (5 seats); false for a signed licence' }),
})

export const ApplyLicenseResponse = t.Object({ message: t.String(), license: LicenseSummary })
