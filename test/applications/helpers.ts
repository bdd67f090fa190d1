// Shared by the applications tests: multipart uploads of API descriptions and a small petstore document.
import type { TestServer } from '../helpers/server.ts'

export async function uploadSpec(t: TestServer, token: string, document: unknown, fields: Record<string, string> = {}, filename = 'spec.json') {
  const form = new FormData()
  const text = typeof document === 'string' ? document : JSON.stringify(document)
  form.append('file', new File([text], filename, { type: filename.endsWith('.json') ? 'application/json' : 'application/yaml' }))
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const encoded = new Response(form)
  // Read before the body: Bun forgets a FormData response's content-type once the body is consumed.
  const contentType = encoded.headers.get('content-type')!
  const bytes = new Uint8Array(await encoded.arrayBuffer())
  return t.request('POST', '/api/spec_from_file/', {
    token,
    rawBody: bytes,
    headers: { 'content-type': contentType, 'content-length': String(bytes.byteLength) },
  })
}

/** OpenAPI 3.0 with the usual mess: a recursive schema, oneOf, an operation without id, three security schemes. */
export function petstore(serverUrl = 'https://petstore.example.com/v1') {
  return {
    openapi: '3.0.3',
    info: { title: 'Pet Store', version: '1.2.0', description: 'Pets and their owners' },
    servers: [{ url: serverUrl }],
    security: [{ api_key: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          tags: ['pets'],
          summary: 'List pets',
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 100 } },
            { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          ],
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } },
          },
        },
        post: {
          operationId: 'createPet',
          tags: ['pets'],
          security: [{ oauth: ['write:pets'] }],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
          responses: { '201': { description: 'created', content: { 'application/json': { example: { id: 7, name: 'Rex' } } } } },
        },
      },
      '/pets/{petId}': {
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          tags: ['pets'],
          parameters: [{ name: 'petId', in: 'query', schema: { type: 'boolean' }, description: 'clashes with the path parameter' }],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
        },
        delete: { operationId: 'deletePet', security: [], responses: { '204': { description: 'gone' } } },
      },
    },
    components: {
      securitySchemes: {
        api_key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        basic: { type: 'http', scheme: 'basic' },
        oauth: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: 'https://auth.example.com/a',
              tokenUrl: 'https://auth.example.com/t',
              scopes: { 'read:pets': 'Read pets', 'write:pets': 'Change pets' },
            },
          },
        },
      },
      schemas: {
        Pet: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer', readOnly: true },
            name: { type: 'string' },
            kind: { oneOf: [{ $ref: '#/components/schemas/Dog' }, { $ref: '#/components/schemas/Cat' }], discriminator: { propertyName: 'type' } },
            parent: { $ref: '#/components/schemas/Pet' },
            nickname: { type: 'string', nullable: true },
            size: { type: 'string', enum: ['s', 'm'], nullable: true },
          },
        },
        NewPet: { allOf: [{ $ref: '#/components/schemas/Pet' }, { type: 'object', properties: { owner_email: { type: 'string', format: 'email' } } }] },
        Dog: { type: 'object', properties: { type: { type: 'string', enum: ['dog'] }, barks: { type: 'boolean' } } },
        Cat: { type: 'object', properties: { type: { type: 'string', enum: ['cat'] }, lives: { type: 'integer' } } },
      },
    },
  }
}
