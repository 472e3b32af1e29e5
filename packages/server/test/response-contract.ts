/**
 * The OpenAPI contract held against real answers: every JSON response a test receives through `TestServer.request`
 * is validated against the schema the served document gives its operation and status, so a handler that answers
 * something other than its declared schema (a field missing, renamed or leaked) fails the test that called it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Json }> }>;
}
interface Template {
  path: string;
  pattern: RegExp;
  params: number;
}

/** Validators of one document (the route list is static, so every test server of a process serves the same one). */
class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly validators = new Map<string, ValidateFunction | null>();
  private readonly templates: Template[];

  constructor(private readonly doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Json } }) {
    this.ajv.addSchema({ $id: 'dossier-openapi', components: doc.components }, 'dossier-openapi');
    this.templates = Object.keys(doc.paths)
      .map((path) => ({ path, params: (path.match(/\{/g) ?? []).length, pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`) }))
      .sort((a, b) => a.params - b.params);
  }

  /** The validator of a method, concrete path and status; null when the document gives that answer no JSON schema. */
  validator(method: string, path: string, status: number): ValidateFunction | null {
    const bare = path.split('?')[0] ?? path;
    const template = this.templates.find((t) => t.pattern.test(bare) && this.doc.paths[t.path]?.[method]);
    if (!template) return null;
    const key = `${method} ${template.path} ${status}`;
    if (!this.validators.has(key)) {
      const schema = this.doc.paths[template.path]?.[method]?.responses?.[String(status)]?.content?.['application/json']?.schema;
      const scoped = schema && JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"dossier-openapi#/components/'));
      this.validators.set(key, scoped ? this.ajv.compile(scoped) : null);
    }
    return this.validators.get(key) ?? null;
  }
}

let contract: Promise<Contract> | null = null;

/** Throws when a JSON body does not match the schema its operation and status declare. */
export async function checkAgainstContract(baseUrl: string, method: string, path: string, status: number, body: unknown): Promise<void> {
  contract ??= fetch(`${baseUrl}/v1/openapi.json`).then(async (res) => new Contract((await res.json()) as ConstructorParameters<typeof Contract>[0]));
  const validate = (await contract).validator(method.toLowerCase(), path, status);
  if (!validate || validate(body)) return;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  throw new Error(
    `${method} ${path} answered ${status} with a body its OpenAPI schema refuses:\n${problems.join('\n')}\nbody: ${JSON.stringify(body).slice(0, 2000)}`,
  );
}
