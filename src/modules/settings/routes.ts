// /api/user/settings: the caller's own settings, read merged over defaults and updated with compare-then-write (docs/api.md "Settings").
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { Settings, UpdateSettingsBody, UpdateSettingsResponse } from './schema.ts'
import type { SettingsService } from './service.ts'

export function settingsRoutes(guard: AuthGuard, settings: SettingsService) {
  const tags = ['settings']
  return new Elysia({ name: 'settings-routes' })
    .use(guard)
    .get('/api/user/settings', ({ principal }) => settings.get(principal.userId), {
      auth: 'member',
      response: { 200: Settings },
      detail: { tags, summary: 'Your settings, stored values over defaults, with the text direction of the language' },
    })
    .post('/api/user/settings/update', ({ principal, body }) => settings.update(principal.userId, body), {
      auth: 'member',
      body: UpdateSettingsBody,
      response: { 200: UpdateSettingsResponse },
      detail: {
        tags,
        summary: 'Update your settings (partial: provided fields replace stored ones)',
        description: 'Writes only when the result differs from what is stored; `updated` says whether it did.',
      },
    })
}
