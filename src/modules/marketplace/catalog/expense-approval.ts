// Built-in sample: an expense-approval agent. Reviews expense reports against a written policy, auto-approves small
// in-policy claims and asks a human before approving anything larger. Its application describes a small expenses API
// with examples on every response, so dry runs and mock mode answer with realistic data without any server.
import type { CatalogAgent } from './types.ts'

const policy = `---
name: expense-policy
description: The company expense policy as rules an agent can apply. Use it when reviewing, approving or rejecting an expense report.
license: Apache-2.0
metadata:
  owner: finance
  reviewed: "2026-01"
---
# Expense policy

Apply these rules in order. Quote the rule you applied when you explain a decision.

## 1. Receipts
- Every line over **75.00** (any currency) needs an itemised receipt.
- A missing receipt is a reason to reject the line, not the whole report: ask for it.

## 2. Limits per category
| category | limit | notes |
|---|---|---|
| meals | 60.00 per person per day | alcohol is not reimbursed |
| lodging | 220.00 per night | city surcharge: +30 % in London, New York, Zurich |
| travel | economy class | business class only for flights over 8 hours |
| software | 50.00 per month | anything more goes through procurement |
| other | 100.00 | needs a one-line business purpose |

## 3. Who approves
- Reports of **500.00 or less** that break no rule: approved automatically.
- Everything else: the employee's manager approves (the workflow's approval gate).
- Reports over **5,000.00**: the manager and finance; say so in the approval message.

## 4. When rejecting
Give the rule number and what would make the report acceptable (a receipt, a split, a purpose).
`

const document = {
  openapi: '3.1.0',
  info: {
    title: 'Expenses API',
    version: '1.0.0',
    description: 'Expense reports: list and read them, approve or reject them. Every response has an example, so dry runs answer realistically.',
  },
  servers: [{ url: 'https://expenses.example.com/api' }],
  security: [{ bearer: [] }],
  paths: {
    '/reports': {
      get: {
        operationId: 'listExpenseReports',
        summary: 'List expense reports',
        description: 'Reports waiting for a decision come first. Filter by status.',
        parameters: [
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['submitted', 'approved', 'rejected'] } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        ],
        responses: {
          '200': {
            description: 'Reports',
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/ReportSummary' } },
                example: [
                  { id: 'exp-1042', employee: 'Dana Whitfield', total: 1280.5, currency: 'EUR', status: 'submitted', submitted_at: '2026-03-02T09:14:00Z' },
                  { id: 'exp-1043', employee: 'Sam Okafor', total: 86.2, currency: 'EUR', status: 'submitted', submitted_at: '2026-03-02T11:40:00Z' },
                ],
              },
            },
          },
        },
      },
    },
    '/reports/{report_id}': {
      parameters: [{ name: 'report_id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getExpenseReport',
        summary: 'Read one expense report with its lines',
        responses: {
          '200': {
            description: 'The report',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Report' },
                example: {
                  id: 'exp-1042',
                  employee: 'Dana Whitfield',
                  manager: 'Lee Park',
                  purpose: 'Customer workshop in Zurich',
                  currency: 'EUR',
                  total: 1280.5,
                  status: 'submitted',
                  lines: [
                    { category: 'lodging', amount: 560.0, nights: 2, receipt: true },
                    { category: 'travel', amount: 640.5, receipt: true },
                    { category: 'meals', amount: 80.0, receipt: false },
                  ],
                },
              },
            },
          },
          '404': { description: 'No such report' },
        },
      },
    },
    '/reports/{report_id}/approve': {
      parameters: [{ name: 'report_id', in: 'path', required: true, schema: { type: 'string' } }],
      post: {
        operationId: 'approveExpenseReport',
        summary: 'Approve a report',
        requestBody: {
          content: { 'application/json': { schema: { type: 'object', properties: { comment: { type: 'string', maxLength: 1000 } } } } },
        },
        responses: {
          '200': {
            description: 'Approved',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Decision' }, example: { id: 'exp-1042', status: 'approved' } } },
          },
        },
      },
    },
    '/reports/{report_id}/reject': {
      parameters: [{ name: 'report_id', in: 'path', required: true, schema: { type: 'string' } }],
      post: {
        operationId: 'rejectExpenseReport',
        summary: 'Reject a report, saying why',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['reason'], properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } } },
            },
          },
        },
        responses: {
          '200': {
            description: 'Rejected',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Decision' }, example: { id: 'exp-1043', status: 'rejected' } } },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      ReportSummary: {
        type: 'object',
        required: ['id', 'employee', 'total', 'currency', 'status'],
        properties: {
          id: { type: 'string' },
          employee: { type: 'string' },
          total: { type: 'number' },
          currency: { type: 'string', minLength: 3, maxLength: 3 },
          status: { type: 'string', enum: ['submitted', 'approved', 'rejected'] },
          submitted_at: { type: 'string', format: 'date-time' },
        },
      },
      Report: {
        allOf: [
          { $ref: '#/components/schemas/ReportSummary' },
          {
            type: 'object',
            properties: {
              manager: { type: 'string' },
              purpose: { type: 'string' },
              lines: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { category: { type: 'string' }, amount: { type: 'number' }, nights: { type: 'integer' }, receipt: { type: 'boolean' } },
                },
              },
            },
          },
        ],
      },
      Decision: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string' } } },
    },
  },
}

const reviewExpense = {
  nodes: [
    {
      id: 'normalise',
      type: 'agentbox.set',
      name: 'Read the claim',
      params: {
        mode: 'replace',
        values: {
          report_id: '{{ $json.report_id ?? "unknown" }}',
          employee: '{{ $json.employee ?? "someone" }}',
          amount: '{{ $json.amount ?? 0 }}',
          currency: '{{ $json.currency ?? "EUR" }}',
          purpose: '{{ $json.purpose ?? "no purpose given" }}',
        },
      },
    },
    {
      id: 'large',
      type: 'agentbox.if',
      name: 'Over the automatic limit?',
      params: { conditions: [{ left: '{{ $json.amount }}', operator: 'gt', right: 500 }] },
    },
    {
      id: 'manager',
      type: 'agentbox.approval',
      name: 'Manager approval',
      params: {
        message: "Approve {{ $json.employee }}'s expense report {{ $json.report_id }}: {{ $json.amount }} {{ $json.currency }} for {{ $json.purpose }}?",
        timeout_s: 259200,
      },
    },
    {
      id: 'approved',
      type: 'agentbox.output',
      name: 'Approved by the manager',
      params: {
        value: { report_id: '{{ $json.report_id }}', decision: 'approved', by: '{{ $json._approval.decided_by }}', amount: '{{ $json.amount }}' },
      },
    },
    {
      id: 'rejected',
      type: 'agentbox.output',
      name: 'Rejected by the manager',
      params: { value: { report_id: '{{ $json.report_id }}', decision: 'rejected', reason: '{{ $json._approval.reason ?? "no reason given" }}' } },
    },
    {
      id: 'expired',
      type: 'agentbox.output',
      name: 'No decision in three days',
      params: { value: { report_id: '{{ $json.report_id }}', decision: 'escalate', reason: 'The manager did not decide within three days' } },
    },
    {
      id: 'automatic',
      type: 'agentbox.output',
      name: 'Approved automatically',
      params: { value: { report_id: '{{ $json.report_id }}', decision: 'approved', by: 'policy (500 or less)', amount: '{{ $json.amount }}' } },
    },
  ],
  connections: [
    { from: 'normalise', to: 'large' },
    { from: 'large', port: 'true', to: 'manager' },
    { from: 'large', port: 'false', to: 'automatic' },
    { from: 'manager', port: 'approved', to: 'approved' },
    { from: 'manager', port: 'rejected', to: 'rejected' },
    { from: 'manager', port: 'timeout', to: 'expired' },
  ],
}

export const expenseApproval: CatalogAgent = {
  id: 'builtin-expense-approval',
  name: 'expense-approval',
  title: 'Expense approval',
  description: 'Reviews expense reports against the expense policy, approves small in-policy claims and asks the manager before approving larger ones.',
  instructions: [
    'You review expense reports for the finance team.',
    'Load the expense-policy skill before deciding anything, and quote the rule you apply.',
    'Read the report with getExpenseReport. For a report of 500 or less that breaks no rule, run the review-expense workflow: it approves it.',
    'For anything larger, or any report that breaks a rule, run review-expense so the manager decides at its approval gate; never call approveExpenseReport for those yourself.',
    'When a line lacks a receipt, say which line and ask for the receipt instead of rejecting the whole report.',
    'Never invent amounts: use only what the expenses API returns.',
  ].join('\n'),
  skills: [policy],
  workflows: [{ id: 'review-expense', name: 'review-expense', definition: reviewExpense }],
  application: { api_name: 'expenses-api', document },
}
