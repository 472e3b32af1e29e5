// The declared public API stays declared and documented (issue 35): every interface of core's api/ and of
// dossier-api.ts is small and documents each member, the root exports a named list, and docs/library.md lists
// every group of Dossier.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const API_FILES = [...readdirSync(join(root, 'packages/core/src/api')).map((f) => `packages/core/src/api/${f}`), 'packages/core/src/dossier-api.ts'];
const MAX_MEMBERS = 20;

function interfacesOf(file: string): ts.InterfaceDeclaration[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  return source.statements.filter(ts.isInterfaceDeclaration);
}

const hasDoc = (member: ts.Node): boolean => ts.getJSDocCommentsAndTags(member).some((doc) => ts.isJSDoc(doc) && !!doc.comment);

describe('the declared public API', () => {
  it(`keeps every interface at ${MAX_MEMBERS} members or fewer (a larger group is split into interfaces it extends)`, () => {
    const wide = API_FILES.flatMap((file) => interfacesOf(file).filter((i) => i.members.length > MAX_MEMBERS).map((i) => `${file}: ${i.name.text} (${i.members.length})`));
    expect(wide).toEqual([]);
  });

  it('documents every interface and every member of Dossier and its groups', () => {
    const bare = API_FILES.flatMap((file) =>
      interfacesOf(file).flatMap((i) => [
        ...(hasDoc(i) ? [] : [`${file}: ${i.name.text}`]),
        ...i.members.filter((m) => !hasDoc(m)).map((m) => `${file}: ${i.name.text}.${m.name?.getText() ?? '?'}`),
      ]),
    );
    expect(bare).toEqual([]);
  });

  it('spells out the root exports of @dossier/core as a named list (no export *)', () => {
    const index = read('packages/core/src/index.ts');
    expect(index.match(/^export (type )?\* from/gm) ?? []).toEqual([]);
    expect(index).not.toMatch(/\bDossierContext\b/);
  });

  it('lists every group of Dossier in docs/library.md', () => {
    const planes = interfacesOf('packages/core/src/dossier-api.ts').filter((i) => ['DossierDataPlane', 'DossierManagementPlane'].includes(i.name.text));
    const groups = planes.flatMap((i) => i.members).map((m) => m.name?.getText() ?? '');
    expect(groups.length).toBeGreaterThan(15);
    const library = read('docs/library.md');
    expect(groups.filter((g) => !library.includes(`| \`${g}\` |`))).toEqual([]);
  });
});
