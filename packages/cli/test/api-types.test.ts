import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypesSource } from '../../../scripts/generate-api-types.ts';
import { startTestServer } from './helpers.ts';

describe("the CLI's API types", () => {
  it('are the types openapi-typescript generates from the served document (regenerate with scripts/generate-api-types.ts)', async () => {
    const t = await startTestServer();
    try {
      const document = await (await fetch(`${t.url}/v1/openapi.json`)).json();
      const generated = await apiTypesSource(document);
      const checkedIn = readFileSync(API_TYPES_FILE, 'utf8');
      expect(checkedIn === generated, 'packages/cli/src/api.gen.ts is stale: run `node --import tsx scripts/generate-api-types.ts`').toBe(true);
    } finally {
      await t.close();
    }
  });
});
