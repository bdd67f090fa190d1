// Built-in sample: an incident-triage agent. Classifies an incoming alert by the severity rubric, drafts the first
// status update with the model, and pages the on-call engineer only after a human approves. Its application describes a
// small incident-management API with examples on every response, so dry runs and mock mode work without any server.
import type { CatalogAgent } from './types.ts'

const rubric = `---
name: severity-triage
description: The incident severity rubric (SEV1 to SEV4) and the first-hour checklist. Use it to classify an alert, decide who to page and write the first status update.
license: Apache-2.0
metadata:
  owner: sre
---
# Severity rubric

| severity | when | page | first update within |
|---|---|---|---|
| SEV1 | customers cannot use the product, data loss or a security breach | on-call + incident commander | 15 minutes |
| SEV2 | a major feature is down or badly degraded for many customers | on-call | 30 minutes |
| SEV3 | a minor feature is degraded, a workaround exists | nobody: a ticket for the owning team | next business day |
| SEV4 | cosmetic or internal-only | nobody | none |

When in doubt between two levels, pick the higher one: downgrading later is cheap.

# First-hour checklist
1. Acknowledge the incident (acknowledgeIncident) so nobody else starts on it.
2. Classify it with the table above and say which row matched.
3. For SEV1 and SEV2, page the on-call engineer (escalateIncident) — the triage workflow asks a human first.
4. Post the first status update (postStatusUpdate): what is affected, since when, what we do next, when the next update comes.
5. Never guess a root cause in a status update; say "under investigation".
`

const document = {
  openapi: '3.0.3',
  info: {
    title: 'Incident API',
    version: '2.1.0',
    description: 'Incidents: list, read, acknowledge, escalate to the on-call engineer and post status updates. Every response has an example.',
  },
  servers: [{ url: 'https://incidents.example.com/v2' }],
  security: [{ api_key: [] }],
  paths: {
    '/incidents': {
      get: {
        operationId: 'listIncidents',
        summary: 'List open incidents, newest first',
        parameters: [{ name: 'state', in: 'query', schema: { type: 'string', enum: ['triggered', 'acknowledged', 'resolved'] } }],
        responses: {
          '200': {
            description: 'Incidents',
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/Incident' } },
                example: [
                  {
                    id: 'INC-2291',
                    title: 'Checkout API error rate above 20 %',
                    service: 'checkout',
                    state: 'triggered',
                    severity: null,
                    started_at: '2026-03-04T07:58:00Z',
                  },
                ],
              },
            },
          },
        },
      },
    },
    '/incidents/{incident_id}': {
      parameters: [{ name: 'incident_id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getIncident',
        summary: 'Read one incident with its alerts',
        responses: {
          '200': {
            description: 'The incident',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Incident' },
                example: {
                  id: 'INC-2291',
                  title: 'Checkout API error rate above 20 %',
                  service: 'checkout',
                  state: 'triggered',
                  severity: null,
                  started_at: '2026-03-04T07:58:00Z',
                  alerts: [{ source: 'prometheus', summary: 'http_5xx_ratio{service="checkout"} = 0.23 for 5m' }],
                },
              },
            },
          },
          '404': { description: 'No such incident' },
        },
      },
    },
    '/incidents/{incident_id}/acknowledge': {
      parameters: [{ name: 'incident_id', in: 'path', required: true, schema: { type: 'string' } }],
      post: {
        operationId: 'acknowledgeIncident',
        summary: 'Acknowledge an incident',
        responses: {
          '200': {
            description: 'Acknowledged',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Incident' }, example: { id: 'INC-2291', state: 'acknowledged' } } },
          },
        },
      },
    },
    '/incidents/{incident_id}/escalate': {
      parameters: [{ name: 'incident_id', in: 'path', required: true, schema: { type: 'string' } }],
      post: {
        operationId: 'escalateIncident',
        summary: 'Page the on-call engineer of the service',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['severity'],
                properties: { severity: { type: 'string', enum: ['SEV1', 'SEV2', 'SEV3', 'SEV4'] }, note: { type: 'string', maxLength: 2000 } },
              },
            },
          },
        },
        responses: {
          '202': {
            description: 'Paged',
            content: { 'application/json': { schema: { type: 'object' }, example: { incident_id: 'INC-2291', paged: 'alex.moreau (checkout on-call)' } } },
          },
        },
      },
    },
    '/incidents/{incident_id}/updates': {
      parameters: [{ name: 'incident_id', in: 'path', required: true, schema: { type: 'string' } }],
      post: {
        operationId: 'postStatusUpdate',
        summary: 'Post a status update on the status page',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['message'], properties: { message: { type: 'string', minLength: 1, maxLength: 5000 } } },
            },
          },
        },
        responses: {
          '201': {
            description: 'Posted',
            content: {
              'application/json': { schema: { type: 'object' }, example: { id: 'upd-88', incident_id: 'INC-2291', posted_at: '2026-03-04T08:09:00Z' } },
            },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: { api_key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
    schemas: {
      Incident: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          title: { type: 'string' },
          service: { type: 'string' },
          state: { type: 'string', enum: ['triggered', 'acknowledged', 'resolved'] },
          severity: { type: 'string', nullable: true, enum: ['SEV1', 'SEV2', 'SEV3', 'SEV4', null] },
          started_at: { type: 'string', format: 'date-time' },
          alerts: { type: 'array', items: { type: 'object', properties: { source: { type: 'string' }, summary: { type: 'string' } } } },
        },
      },
    },
  },
}

const triage = {
  nodes: [
    {
      id: 'incident',
      type: 'agentbox.set',
      name: 'Read the alert',
      params: {
        mode: 'replace',
        values: {
          incident_id: '{{ $json.incident_id ?? "unknown" }}',
          title: '{{ $json.title ?? "untitled alert" }}',
          service: '{{ $json.service ?? "unknown service" }}',
          severity: '{{ $json.severity ?? "SEV3" }}',
        },
      },
    },
    {
      id: 'draft',
      type: 'agentbox.llm',
      name: 'Draft the first status update',
      params: {
        system: 'You write incident status updates: what is affected, since when, what happens next. No guesses about causes.',
        prompt: 'Write a three-sentence status update for {{ $json.severity }} incident {{ $json.incident_id }} on {{ $json.service }}: {{ $json.title }}.',
      },
    },
    {
      id: 'merge',
      type: 'agentbox.set',
      name: 'Keep the draft with the incident',
      params: {
        values: {
          incident_id: '{{ $steps.incident.json.incident_id }}',
          severity: '{{ $steps.incident.json.severity }}',
          title: '{{ $steps.incident.json.title }}',
          update: '{{ $json.text }}',
        },
      },
    },
    {
      id: 'urgent',
      type: 'agentbox.if',
      name: 'SEV1 or SEV2?',
      params: {
        combinator: 'or',
        conditions: [
          { left: '{{ $json.severity }}', operator: 'equals', right: 'SEV1' },
          { left: '{{ $json.severity }}', operator: 'equals', right: 'SEV2' },
        ],
      },
    },
    {
      id: 'page',
      type: 'agentbox.approval',
      name: 'Page the on-call engineer?',
      params: {
        message: 'Page the on-call engineer for {{ $json.severity }} {{ $json.incident_id }} ({{ $json.title }})? Draft update: {{ $json.update }}',
        timeout_s: 900,
      },
    },
    {
      id: 'paged',
      type: 'agentbox.output',
      name: 'Page approved',
      params: { value: { incident_id: '{{ $json.incident_id }}', action: 'page', severity: '{{ $json.severity }}', update: '{{ $json.update }}' } },
    },
    {
      id: 'held',
      type: 'agentbox.output',
      name: 'Page declined',
      params: {
        value: { incident_id: '{{ $json.incident_id }}', action: 'hold', reason: '{{ $json._approval.reason ?? "declined" }}', update: '{{ $json.update }}' },
      },
    },
    {
      id: 'unanswered',
      type: 'agentbox.output',
      name: 'Nobody answered in 15 minutes',
      params: {
        value: { incident_id: '{{ $json.incident_id }}', action: 'page', reason: 'No answer within 15 minutes: page by default', update: '{{ $json.update }}' },
      },
    },
    {
      id: 'ticket',
      type: 'agentbox.output',
      name: 'SEV3/SEV4: a ticket, no page',
      params: { value: { incident_id: '{{ $json.incident_id }}', action: 'ticket', severity: '{{ $json.severity }}', update: '{{ $json.update }}' } },
    },
  ],
  connections: [
    { from: 'incident', to: 'draft' },
    { from: 'draft', to: 'merge' },
    { from: 'merge', to: 'urgent' },
    { from: 'urgent', port: 'true', to: 'page' },
    { from: 'urgent', port: 'false', to: 'ticket' },
    { from: 'page', port: 'approved', to: 'paged' },
    { from: 'page', port: 'rejected', to: 'held' },
    { from: 'page', port: 'timeout', to: 'unanswered' },
  ],
}

export const incidentTriage: CatalogAgent = {
  id: 'builtin-incident-triage',
  name: 'incident-triage',
  title: 'Incident triage',
  description: 'Classifies incoming incidents by the severity rubric, drafts the first status update and pages the on-call engineer once a human approves.',
  instructions: [
    'You are the first responder for production incidents.',
    'Load the severity-triage skill first and follow its first-hour checklist.',
    'Read the incident with getIncident, acknowledge it with acknowledgeIncident, then classify it and say which row of the rubric matched.',
    'Run the triage-incident workflow with the incident id, title, service and severity: it drafts the status update and, for SEV1 and SEV2, asks a human before paging.',
    'Only call escalateIncident when the workflow result says action "page". Post the drafted update with postStatusUpdate.',
    'Never guess a root cause; say "under investigation".',
  ].join('\n'),
  skills: [rubric],
  workflows: [{ id: 'triage-incident', name: 'triage-incident', definition: triage }],
  application: { api_name: 'incident-api', document },
}
