// What a GPT is offered follows its applications and its agent (issue 29): the kept apps_list answer is rebuilt when an
// application is re-imported or deleted and when the agent publishes a version that uses other applications; a large
// application's operations are all listed, in document order.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { createGpt, type GptWorld, startGptWorld, ticketsApi } from './helpers.ts'

let w: GptWorld
beforeAll(async () => {
  w = await startGptWorld()
})
afterAll(() => w.stop())

const listed = async (key: string) => {
  const res = await w.t.request('GET', '/api/gpt_public/apps_list', { headers: { 'x-api-key': key } })
  expect(res.status).toBe(200)
  return res.body.operations_list.map((op: { api_name: string; operation_id: string }) => `${op.api_name} ${op.operation_id}`) as string[]
}

describe('the offering follows its sources', () => {
  test('an application re-imported with other operations, then deleted: apps_list and app_execute_action follow at once', async () => {
    const base = `http://127.0.0.1:${w.upstream.port}`
    expect(
      (await uploadSpec(w.t, w.admin, ticketsApi(base, 'Changing'), { api_name: 'changing', global_spec: 'true', shared_security_info: 'true' })).status,
    ).toBe(201)
    const gpt = await createGpt(w, { applications: ['changing'] })
    expect(await listed(gpt.key)).toEqual(['changing getTicket', 'changing deleteTicket'])

    const changed = ticketsApi(base, 'Changing') as any
    changed.paths['/tickets'] = { get: { operationId: 'listTickets', summary: 'List tickets', responses: { '200': { description: 'ok' } } } }
    delete changed.paths['/tickets/{id}'].delete
    expect((await uploadSpec(w.t, w.admin, changed, { api_name: 'changing', replace: 'true', global_spec: 'true', shared_security_info: 'true' })).status).toBe(
      201,
    )
    expect(await listed(gpt.key)).toEqual(['changing getTicket', 'changing listTickets'])
    const gone = await w.t.request('POST', '/api/gpt_public/app_execute_action', {
      headers: { 'x-api-key': gpt.key },
      body: { api_name: 'changing', operation_id: 'deleteTicket', arguments: { id: 'C-1' } },
    })
    expect(gone.status).toBe(404)

    expect((await w.t.request('DELETE', '/api/applications/changing', { token: w.admin })).status).toBe(204)
    expect(await listed(gpt.key)).toEqual([])
    const deleted = await w.t.request('POST', '/api/gpt_public/app_execute_action', {
      headers: { 'x-api-key': gpt.key },
      body: { api_name: 'changing', operation_id: 'getTicket', arguments: { id: 'C-1' } },
    })
    expect(deleted.status).toBe(404)
  })

  test("the agent publishes a version that uses another application: the GPT's allowed applications follow", async () => {
    const gpt = await createGpt(w, { applications: [], agent_name: 'helper' })
    expect(await listed(gpt.key)).toEqual(['helper run_workflow', 'helper resume_workflow', 'foreign getTicket'])
    const call = { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'A-1' } }
    expect((await w.t.request('POST', '/api/gpt_public/app_execute_action', { headers: { 'x-api-key': gpt.key }, body: call })).status).toBe(403)

    expect((await w.t.request('PATCH', '/api/agents/helper', { token: w.owner.token, body: { applications: [{ api_name: 'shared-tickets' }] } })).status).toBe(
      200,
    )
    // The draft is not what GPTs see: only a publish changes the offering.
    expect(await listed(gpt.key)).toEqual(['helper run_workflow', 'helper resume_workflow', 'foreign getTicket'])
    expect((await w.t.request('POST', '/api/agents/helper/publish', { token: w.owner.token, body: {} })).status).toBe(201)
    expect(await listed(gpt.key)).toEqual(['helper run_workflow', 'helper resume_workflow', 'shared-tickets getTicket', 'shared-tickets deleteTicket'])
    const now = await w.t.request('POST', '/api/gpt_public/app_execute_action', { headers: { 'x-api-key': gpt.key }, body: call })
    expect(now.body).toMatchObject({ ok: true, result: { status: 200 } })
    const foreign = await w.t.request('POST', '/api/gpt_public/app_execute_action', {
      headers: { 'x-api-key': gpt.key },
      body: { api_name: 'foreign', operation_id: 'getTicket', arguments: { id: 'A-2' } },
    })
    expect(foreign.status).toBe(403)
  })
})

describe('a large application', () => {
  test('every operation is listed, in document order, whatever the size (the answer is written in slices)', async () => {
    const paths: Record<string, unknown> = {}
    for (let i = 0; i < 1200; i++)
      paths[`/items/${i}`] = { get: { operationId: `getItem${i}`, summary: `Item ${i}`, responses: { '200': { description: 'ok' } } } }
    const document = { openapi: '3.1.0', info: { title: 'Large', version: '1' }, servers: [{ url: 'https://large.example.com' }], paths }
    expect((await uploadSpec(w.t, w.admin, document, { api_name: 'large', global_spec: 'true', shared_security_info: 'true' })).status).toBe(201)
    const gpt = await createGpt(w, { applications: ['large'] })
    const operations = await listed(gpt.key)
    expect(operations).toHaveLength(1200)
    expect(operations[0]).toBe('large getItem0')
    expect(operations[501]).toBe('large getItem501')
    expect(operations.at(-1)).toBe('large getItem1199')
  })
})
