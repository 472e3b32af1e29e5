import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importOptional, packageOf, withOptional } from '../src/optional.ts';

const dir = mkdtempSync(join(tmpdir(), 'dossier-optional-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('optional packages', () => {
  it('names the missing package, the feature that needs it and how to install it', async () => {
    const err = await importOptional('dossier-test-no-such-package/sub', 'Frobnicating').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'not_configured' });
    expect((err as Error).message).toBe(
      'Frobnicating needs the optional package dossier-test-no-such-package, which is not installed (npm install dossier-test-no-such-package)',
    );
  });

  it('loads a package that is installed', async () => {
    const yaml = await importOptional<typeof import('yaml')>('yaml', 'YAML');
    expect(yaml.parse('a: 1')).toEqual({ a: 1 });
  });

  it("reports an installed module's own failure as it is, not as a missing package", async () => {
    mkdirSync(join(dir, 'broken'));
    const file = join(dir, 'broken', 'index.mjs');
    writeFileSync(file, "import 'dossier-test-absent-dependency';\n");
    const err = await importOptional(pathToFileURL(file).href, 'Broken').catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ERR_MODULE_NOT_FOUND');
    expect((err as Error).message).toMatch(/dossier-test-absent-dependency/);
  });

  it('turns a failed require.resolve of an optional package into the same error', () => {
    expect(() =>
      withOptional('@scope/absent', 'OCR', () => {
        throw Object.assign(new Error("Cannot find module '@scope/absent/package.json'"), { code: 'MODULE_NOT_FOUND' });
      }),
    ).toThrow('OCR needs the optional package @scope/absent');
    expect(packageOf('@aws-sdk/client-s3')).toBe('@aws-sdk/client-s3');
    expect(packageOf('pdfjs-dist/legacy/build/pdf.mjs')).toBe('pdfjs-dist');
  });
});
