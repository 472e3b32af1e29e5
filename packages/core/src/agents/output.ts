import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import type { JsonSchemaObject } from '../domain/agents.ts';
import { DossierError } from '../domain/errors.ts';

/**
 * An agent's outputSchema, compiled once per run with Ajv (the maintained, complete JSON Schema validator of the
 * Node ecosystem; draft-07 keywords and `$ref`). Strict mode is off so schemas written for other tools (extra
 * annotation keywords) still compile.
 */
export interface OutputValidator {
  /** The parsed value when `response` is JSON matching the schema; otherwise why not (for the `warning`). */
  check(response: string): { ok: true; value: unknown } | { ok: false; reason: string };
}

/** Ajv, required on the first schema compiled (synchronously: it is CommonJS); a process without agents never loads it. */
let ajv: Ajv | undefined;
const validator = (): Ajv => (ajv ??= new (createRequire(import.meta.url)('ajv') as typeof import('ajv')).Ajv({ strict: false, allErrors: false }));

/** Compile a schema; one that does not compile is invalid input (400 on create, update and preview). */
export function compileOutputSchema(schema: JsonSchemaObject): OutputValidator {
  let validate: ValidateFunction;
  try {
    validate = validator().compile(schema);
  } catch (err) {
    throw new DossierError('invalid_input', `outputSchema: not a valid JSON Schema (${err instanceof Error ? err.message : String(err)})`);
  }
  return {
    check(response) {
      let value: unknown;
      try {
        value = JSON.parse(stripFence(response));
      } catch {
        return { ok: false, reason: 'the response is not valid JSON' };
      }
      if (validate(value)) return { ok: true, value };
      const first = validate.errors?.[0];
      return { ok: false, reason: `the response does not match the outputSchema (${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid'})` };
    },
  };
}

/** Models often wrap JSON in a Markdown code fence; a response that is only a fenced block is read as its content. */
function stripFence(response: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(response);
  return fenced ? fenced[1]! : response;
}
