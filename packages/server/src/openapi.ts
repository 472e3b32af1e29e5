import { z } from 'zod';
import type { AuthMode, RouteDef } from './routes/define.ts';

const SECURITY: Record<AuthMode, Record<string, string[]>[]> = {
  key: [{ apiKey: [] }],
  'key-or-public': [{ apiKey: [] }, {}],
  jwt: [{ jwt: [] }],
  'jwt-or-key': [{ jwt: [] }, { apiKey: [] }],
  'jwt-or-org-key': [{ jwt: [] }, { orgApiKey: [] }],
  none: [],
  'upload-url': [],
};

/** The header of creating routes that replay their first answer to a retry (issue 11). */
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 },
  description: 'Send a unique value per intended request: a retry with the same key and request within 24 h gets the first answer (header Idempotent-Replayed: true) instead of running again; the same key with another request answers 422, and while the first still runs, 409.',
};

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });

function queryParameters(schema: z.ZodType) {
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: s }));
}

function operation(r: RouteDef) {
  const pathParams = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const requestBody = r.body
    ? { required: true, content: { 'application/json': { schema: jsonSchema(r.body) } } }
    : r.bodyType
      ? { required: true, content: { [r.bodyType]: { schema: { type: 'string', format: 'binary' } } } }
      : undefined;
  const responses = Object.fromEntries(
    Object.entries(r.responses).map(([status, description]) => [
      status,
      Number(status) >= 400 ? { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } : { description },
    ]),
  );
  return {
    summary: r.summary,
    tags: [r.tag],
    security: SECURITY[r.auth],
    parameters: [...pathParams, ...(r.query ? queryParameters(r.query) : []), ...(r.idempotent ? [IDEMPOTENCY_HEADER] : [])],
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, built from the same route list and schemas that validate requests. */
export function buildOpenApi(routes: RouteDef[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][r.method] = operation(r);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Dossier API', version, description: 'Document retrieval and research service' },
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Project API key (dsk_live_… or dsk_test_…)' },
        jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Token from POST /auth/login' },
        orgApiKey: { type: 'http', scheme: 'bearer', description: 'Org API key (dsk_org_…): invokes the org\'s hosted agents' },
      },
      schemas: { Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } },
    },
  };
}
