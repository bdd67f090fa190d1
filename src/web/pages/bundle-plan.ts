// What an import of a bundle will do (or did): the agent created or given a new version, its skills and workflows, and
// each application created or reused (under which name). Shown before an import or install is committed.
import { ApiError } from '../api.ts'
import { h } from '../ui.ts'

export interface ImportPlan {
  agent: string
  bundle_agent: string
  action: 'create' | 'replace'
  version: number | null
  skills: string[]
  workflows: { id: string; name: string }[]
  applications: { bundle_api_name: string; api_name: string; action: 'create' | 'reuse'; operations_count: number }[]
}

export function PlanView({ plan, committed }: { plan: ImportPlan; committed?: boolean }) {
  const will = committed ? '' : 'will be '
  const agentLine =
    plan.action === 'create'
      ? [
          `Agent `,
          h('strong', null, h('bdi', null, plan.agent)),
          ` ${will}created`,
          plan.agent !== plan.bundle_agent ? ` (named ${plan.bundle_agent} in the bundle)` : '',
          ` with version ${plan.version} live.`,
        ]
      : plan.version === null
        ? ['Agent ', h('strong', null, h('bdi', null, plan.agent)), ' already matches the bundle: nothing new to publish.']
        : [
            'Agent ',
            h('strong', null, h('bdi', null, plan.agent)),
            ` ${committed ? 'got' : 'gets'} version ${plan.version} from the bundle (its history is kept).`,
          ]
  return h(
    'div',
    { class: 'card plan', 'data-testid': 'import-plan' },
    h('h3', null, committed ? 'Imported' : 'What the import will do'),
    h('p', null, ...agentLine),
    h(
      'ul',
      null,
      h('li', null, `Skills (${plan.skills.length}): ${plan.skills.join(', ') || 'none'}`),
      h('li', null, `Workflows (${plan.workflows.length}): ${plan.workflows.map((w) => w.name).join(', ') || 'none'}`),
    ),
    plan.applications.length === 0
      ? null
      : h(
          'table',
          { class: 'plan-applications' },
          h('caption', null, 'Applications'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['In the bundle', 'Here', 'What happens', 'Operations'].map((c) => h('th', { scope: 'col', key: c }, c)),
            ),
          ),
          h(
            'tbody',
            null,
            plan.applications.map((app) =>
              h(
                'tr',
                { key: app.bundle_api_name },
                h('td', null, h('code', null, app.bundle_api_name)),
                h('td', null, h('code', null, app.api_name)),
                h(
                  'td',
                  null,
                  app.action === 'reuse'
                    ? 'Reused: the same document is already here'
                    : app.api_name === app.bundle_api_name
                      ? 'Created'
                      : `Created under a new name: ${app.bundle_api_name} is taken by a different document`,
                ),
                h('td', null, String(app.operations_count)),
              ),
            ),
          ),
        ),
  )
}

/** The problems of a refused bundle, one line each, with the file they are in. */
export function bundleProblems(error: unknown): string[] {
  if (error instanceof ApiError && error.entries.length > 0) return error.entries.map((entry) => entry.msg ?? 'Invalid value')
  return [error instanceof Error ? error.message : String(error)]
}
