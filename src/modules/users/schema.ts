// Request and response schemas of user management.
import { t } from 'elysia'
import { DateTime, DisplayName } from '../../platform/http/schema-pieces.ts'
import { MIN_PASSWORD_LENGTH } from '../auth/index.ts'

export const Role = t.Union([t.Literal('admin'), t.Literal('member')])
const Password = t.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 })
const Name = DisplayName(200)

export const User = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.String(),
  role: Role,
  active: t.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
})

export const CreateUserBody = t.Object({
  email: t.String({ format: 'email', maxLength: 320 }),
  name: Name,
  password: Password,
  role: Role,
})

export const UpdateUserBody = t.Object({
  name: t.Optional(Name),
  role: t.Optional(Role),
  password: t.Optional(Password),
  active: t.Optional(t.Boolean()),
})

export const UserIdParams = t.Object({ id: t.String() })
