import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.ts';

let t: TestServer;
let served: string;

beforeAll(async () => {
  t = await startTestServer();
  const res = await fetch(`${t.url}/v1/openapi.json`);
  expect(res.status).toBe(200);
  served = await res.text();
});
afterAll(async () => {
  await t?.close();
});

describe('the served OpenAPI document under Redocly', () => {
  it("passes Redocly's recommended rules with no errors", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: served, absoluteRef: `${t.url}/v1/openapi.json`, config });
    const describe = (p: (typeof problems)[number]) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`;
    const errors = problems.filter((p) => p.severity === 'error').map(describe);
    expect(errors).toEqual([]);
    const warnings = problems.filter((p) => p.severity === 'warn').map(describe);
    console.log(`Redocly recommended: ${errors.length} errors, ${warnings.length} warnings\n${warnings.join('\n')}`);
  });
});
