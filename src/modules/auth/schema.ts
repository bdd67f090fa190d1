// Request and response schemas of sign-in, the caller's identity, password change and API tokens.
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { DateTime, DisplayName, NullableDateTime } from '../../platform/http/schema-pieces.ts'
import { MIN_PASSWORD_LENGTH } from './passwords.ts'

export const LoginBody = t.Object({
  email: t.String({ maxLength: 320 }),
  password: t.String({ maxLength: 1024 }),
})

export const AccessToken = t.Object({
  access_token: t.String(),
  token_type: t.Literal('bearer'),
  expires_in: Type.Integer(),
})

export const Me = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.String(),
  role: t.Union([t.Literal('admin'), t.Literal('member')]),
})

export const ChangePasswordBody = t.Object({
  current_password: t.String({ maxLength: 1024 }),
  new_password: t.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 }),
})

export const ChangePasswordResponse = t.Object({ message: t.String(), ...AccessToken.properties })

export const CreateApiTokenBody = t.Object({ name: DisplayName(100) })

export const ApiToken = t.Object({
  id: t.String(),
  name: t.String(),
  kind: t.Union([t.Literal('org'), t.Literal('pat')]),
  hint: t.String({ description: 'The last four characters of the token' }),
  created_at: DateTime,
  revoked_at: NullableDateTime,
})

export const RevokedApiTokens = t.Object({ revoked: t.Integer({ minimum: 0, description: 'How many tokens were live and are now revoked' }) })
export const CreatedApiToken = t.Object({ ...ApiToken.properties, token: t.String({ description: 'Shown once; only its hash is stored' }) })
