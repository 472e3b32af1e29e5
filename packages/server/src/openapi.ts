import { OAUTH_SCOPE_DESCRIPTIONS } from '@dossier/core';
import { z } from 'zod';
import type { AnyRoute, AuthMode, Responses } from './routes/define.ts';

const SECURITY: Record<AuthMode, Record<string, string[]>[]> = {
  key: [{ apiKey: [] }],
  'key-or-public': [{ apiKey: [] }, {}],
  jwt: [{ jwt: [] }],
  'jwt-or-key': [{ jwt: [] }, { apiKey: [] }],
  'jwt-or-org-key': [{ jwt: [] }, { orgApiKey: [] }],
  'key-or-oauth': [{ apiKey: [] }, { oauth: [] }],
  none: [],
  'upload-url': [],
};

/** The header of creating routes that replay their first answer to a retry (issue 11). */
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', maxLength: 255 },
  description:
    'Send a unique value per intended request: a retry with the same key and request within 24 h gets the first answer (header Idempotent-Replayed: true) instead of running again; the same key with another request answers 422, and while the first still runs, 409.',
};

type JsonSchema = Record<string, unknown>;

/**
 * Converts zod schemas to JSON Schema for one document. Schemas with an id (`.meta({ id })`, e.g. `Collection`,
 * the recursive `JsonValue`) go once under `components/schemas` and are referenced from there: zod puts them under
 * each schema's own `$defs`, which an OpenAPI document cannot resolve from its paths.
 */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const { $defs, $schema: _, ...root } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) this.add(id, toComponentRefs(def));
    return toComponentRefs(root);
  }

  private add(id: string, def: JsonSchema): void {
    const known = this.components[id];
    if (known && JSON.stringify(known) !== JSON.stringify(def)) throw new Error(`Two different schemas share the id ${id}`);
    this.components[id] = def;
  }
}

/** The same schema with `#/$defs/X` references pointing at `#/components/schemas/X`. */
function toComponentRefs(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
}

function queryParameters(schemas: SchemaCollector, schema: z.ZodType) {
  const js = schemas.convert(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: s }));
}

/**
 * A multipart upload's fields: the file (binary; repeated for a batch), and `tags` and `metadata` as JSON-encoded
 * parts (OpenAPI 3.1 `encoding`), so generated clients type them instead of seeing one opaque string.
 */
function uploadForm(files: 'one' | 'many') {
  const file = {
    type: 'string',
    format: 'binary',
    contentMediaType: 'application/octet-stream',
    description: "The file, up to 25 MB; its part's filename becomes the document's filename",
  };
  return {
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file:
          files === 'one'
            ? file
            : { type: 'array', items: file, minItems: 1, maxItems: 100, description: 'The files: the field `file` repeated, 100 files and 100 MB per request' },
        tags: { type: 'array', items: { type: 'string' }, description: 'Tags of the document(s), a JSON-encoded array of strings, e.g. ["draft"]' },
        metadata: { $ref: '#/components/schemas/JsonObject', description: 'Metadata of the document(s), a JSON-encoded object, e.g. {"team":"research"}' },
      },
    },
    encoding: { tags: { contentType: 'application/json' }, metadata: { contentType: 'application/json' } },
  };
}

const SCALARS = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }];

/**
 * Any JSON value, as three components that code generators can follow: `JsonValue` (a scalar, a `JsonArray` or a
 * `JsonObject`), `JsonObject` (values: `JsonValue`) and `JsonArray`, whose items name `JsonObject` and a plain array
 * rather than `JsonValue` again. The set of values is the same as zod's self-referencing union; only the cycle
 * through arrays is cut, because TypeScript cannot type a property as an array of itself (TS2502), which is what
 * openapi-typescript made of the direct form.
 */
const JSON_COMPONENTS = {
  JsonValue: { anyOf: [...SCALARS, { $ref: '#/components/schemas/JsonArray' }, { $ref: '#/components/schemas/JsonObject' }], description: 'Any JSON value' },
  JsonArray: {
    type: 'array',
    items: { anyOf: [...SCALARS, { $ref: '#/components/schemas/JsonObject' }, { type: 'array', items: {} }] },
    description: 'A JSON array',
  },
  JsonObject: { type: 'object', additionalProperties: { $ref: '#/components/schemas/JsonValue' }, description: 'A JSON object' },
};

const ERROR_BODY = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

function response(schemas: SchemaCollector, status: number, spec: Responses[number]) {
  if (typeof spec === 'string') return status >= 400 ? { description: spec, content: ERROR_BODY } : { description: spec };
  if ('schema' in spec) return { description: spec.description, content: { 'application/json': { schema: schemas.convert(spec.schema, 'output') } } };
  const binary = spec.contentType === 'application/octet-stream' || spec.contentType === 'image/png';
  const schema = binary ? { type: 'string', format: 'binary' } : { type: 'string' };
  return { description: spec.description, content: { [spec.contentType]: { schema } } };
}

/** The answers of a server-rendered page route (the OAuth sign-in, consent and connected-clients pages) are pages (a redirect's body too). */
function pageResponse(r: AnyRoute, spec: Responses[number]) {
  if (!r.produces || typeof spec !== 'string') return null;
  return { description: spec, content: { [r.produces]: { schema: { type: 'string' } } } };
}

/** A camelCase operationId from the method and path, for routes that do not name their operation. */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((w) => w && w !== 'v1')
    .map((w) => (w.startsWith(':') ? `by-${w.slice(1)}` : w));
  return [method, ...words].join('-').replace(/[-_]+(\w)/g, (_, c: string) => c.toUpperCase());
}

/**
 * The errors every route of its kind can answer besides its own: 400 when it reads input, 401 when it takes
 * credentials, 429 from the rate limits (http/limits.ts). The route's own description of a status wins.
 */
function commonErrors(r: AnyRoute): Responses {
  const errors: Responses = {};
  if (r.body || r.query || r.bodyType) errors[400] = 'Invalid input';
  if (r.auth !== 'none') errors[401] = 'Missing or invalid credentials';
  if (r.role === 'admin') errors[403] = 'Needs the admin role in the org (members read and invoke, admins write)';
  errors[429] = 'Too many requests (Retry-After says when to retry)';
  return errors;
}

function operation(schemas: SchemaCollector, r: AnyRoute) {
  const pathParams = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const requestBody = r.body
    ? { required: true, content: { 'application/json': { schema: schemas.convert(r.body, 'input') } } }
    : r.rawBody
      ? { required: true, content: { [r.rawBody.type]: { schema: schemas.convert(r.rawBody.schema, 'input') } } }
      : r.uploads
        ? { required: true, content: { 'multipart/form-data': uploadForm(r.uploads) } }
        : r.multipartForm
          ? { required: true, content: { 'multipart/form-data': { schema: r.multipartForm } } }
          : r.bodyType
            ? { required: true, content: { [r.bodyType]: { schema: { type: 'string', format: 'binary' } } } }
            : undefined;
  const responses = Object.fromEntries(
    Object.entries({ ...commonErrors(r), ...r.responses }).map(([status, spec]) => [status, pageResponse(r, spec) ?? response(schemas, Number(status), spec)]),
  );
  return {
    operationId: r.operationId ?? derivedOperationId(r.method, r.path),
    summary: r.summary,
    tags: [r.tag],
    security: SECURITY[r.auth],
    ...(r.role ? { 'x-dossier-role': r.role } : {}),
    parameters: [...pathParams, ...(r.query ? queryParameters(schemas, r.query) : []), ...(r.idempotent ? [IDEMPOTENCY_HEADER] : [])],
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The document's description: what the service is, and where the access table is (issue 33). */
const ACCESS_NOTE = [
  'Document retrieval and research service.',
  'Who may do what: project keys act in their own sandbox, org keys invoke saved agents, and a signed-in user needs the role in the org of the path that the operation names in `x-dossier-role` (`member`: reads and invoking saved agents; `admin`: every write, agent drafts and previews included; `account`: any signed-in account).',
  'The full table of caller kinds and actions is docs/access.md in the source repository.',
].join(' ');

/** The OpenAPI 3.1 document, built from the same route list and schemas that validate requests. */
export function buildOpenApi(routes: AnyRoute[], version: string, serverUrl = '/') {
  const schemas = new SchemaCollector();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][r.method] = operation(schemas, r);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Dossier API', version, description: ACCESS_NOTE },
    servers: [{ url: serverUrl, description: 'This server' }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Project API key (dsk_live_… or dsk_test_…)' },
        jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Token from POST /auth/login' },
        orgApiKey: { type: 'http', scheme: 'bearer', description: "Org API key (dsk_org_…): invokes the org's hosted agents" },
        oauth: {
          type: 'oauth2',
          description: 'OAuth 2.1 access token of the MCP endpoint (dso_at_…): authorization code with PKCE S256, resource = <server>/mcp',
          flows: {
            authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: OAUTH_SCOPE_DESCRIPTIONS },
          },
        },
      },
      schemas: { Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } }, ...schemas.components, ...JSON_COMPONENTS },
    },
  };
}
