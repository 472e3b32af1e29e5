import { describe, expect, it } from 'vitest';
import { createSecretBox, hashSecret, previewSecret } from '../src/auth/secrets.ts';
import { envOfApiKey, generateApiKey } from '../src/auth/api-keys.ts';
import { uploadTokens } from '../src/documents/upload-token.ts';
import { normalizeTags, safeFilename } from '../src/documents/view.ts';
import { filenameSimilarity } from '../src/search/filename-search.ts';
import { reciprocalRankFusion } from '../src/search/rrf.ts';
import { canonicalJson, metadataPairs } from '../src/util/canonical-json.ts';
import { isUuid, newId, stableId } from '../src/util/ids.ts';

describe('reciprocalRankFusion', () => {
  it('ranks an item found high in both lists first and sums 1/(k+rank)', () => {
    const fused = reciprocalRankFusion([{ ids: ['a', 'b', 'c'] }, { ids: ['b', 'a', 'd'] }], 60);
    expect(
      fused
        .slice(0, 2)
        .map((f) => f.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62);
    expect(fused.map((f) => f.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('weights lists', () => {
    const fused = reciprocalRankFusion([
      { ids: ['a'], weight: 1 },
      { ids: ['b'], weight: 3 },
    ]);
    expect(fused[0]!.id).toBe('b');
  });
});

describe('filenameSimilarity', () => {
  it('finds a file despite a typo and ranks the closer name higher', () => {
    expect(filenameSimilarity('quartrly report', 'quarterly-report-2024.pdf')).toBeGreaterThan(0.3);
    expect(filenameSimilarity('memo', 'fake-memo.pdf')).toBeGreaterThan(filenameSimilarity('memo', 'invoice.pdf'));
    expect(filenameSimilarity('xyz', 'abc.pdf')).toBe(0);
  });

  it('matches across accents and in any script', () => {
    expect(filenameSimilarity('resume', 'Résumé 2024.pdf')).toBeGreaterThan(0.5);
    expect(filenameSimilarity('RÉSUMÉ', 'resume.pdf')).toBeGreaterThan(0.5);
    expect(filenameSimilarity('日本', '報告 日本.md')).toBeGreaterThan(0.3);
    expect(filenameSimilarity('日本', 'report.md')).toBe(0);
  });
});

describe('canonical metadata', () => {
  it('serialises equal values equally whatever the key order, and keeps types distinct', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, '1'], c: null } })).toBe('{"a":{"c":null,"d":[1,"1"]},"b":1}');
    expect(metadataPairs({ year: 2024, tag: '2024' })).toEqual(['year=2024', 'tag="2024"']);
  });
});

describe('secrets', () => {
  const box = createSecretBox(new Uint8Array(32).fill(7));

  it('encrypts with AES-256-GCM so that the same plaintext never gives the same ciphertext', () => {
    const a = box.encrypt('sk-secret');
    expect(a).not.toContain('sk-secret');
    expect(a).not.toBe(box.encrypt('sk-secret'));
    expect(box.decrypt(a)).toBe('sk-secret');
  });

  it('refuses tampered ciphertext and another master key', () => {
    const sealed = box.encrypt('value');
    const parts = sealed.split(':');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.decrypt(parts.join(':'))).toThrow();
    expect(() => createSecretBox(new Uint8Array(32).fill(8)).decrypt(sealed)).toThrow();
  });

  it('shows only the first and last four characters', () => {
    expect(previewSecret('sk-ant-1234567890abcd')).toBe('sk-a…abcd');
    expect(hashSecret('x')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('API keys', () => {
  it('carry a prefix that tells live from test', () => {
    expect(envOfApiKey(generateApiKey('live'))).toBe('live');
    expect(envOfApiKey(generateApiKey('test'))).toBe('test');
    expect(envOfApiKey('sk-not-ours')).toBeNull();
  });
});

describe('upload tokens', () => {
  const tokens = uploadTokens(new Uint8Array(32).fill(1));

  const DOC = '0190c5e2-7d3a-7b1c-8f00-000000000001';

  it('accept their own signature until 15 minutes have passed', () => {
    const t = tokens.sign(DOC, 0);
    expect(tokens.verify(t, 14 * 60_000)).toBe(DOC);
    expect(() => tokens.verify(t, 16 * 60_000)).toThrow(/expired/);
  });

  it('refuse a changed document id or signature', () => {
    const [, exp, sig] = tokens.sign(DOC).split('.');
    expect(() => tokens.verify(`0190c5e2-7d3a-7b1c-8f00-000000000002.${exp}.${sig}`)).toThrow(/Invalid/);
    expect(() => tokens.verify('garbage')).toThrow(/Invalid/);
  });

  it('refuse anything but exactly <uuid>.<expiry>.<signature> (issue 9: extra segments were accepted)', () => {
    const t = tokens.sign(DOC);
    expect(() => tokens.verify(`${t}.extra`)).toThrow(/Invalid/);
    expect(() => tokens.verify(`${t}.`)).toThrow(/Invalid/);
    const [id, exp, sig] = t.split('.');
    expect(() => tokens.verify(`${id}.${exp}x.${sig}`)).toThrow(/Invalid/);
    expect(() => tokens.verify(`x.${id}.${exp}.${sig}`)).toThrow(/Invalid/);
  });
});

describe('names and ids', () => {
  it('normalises tags and keeps file names to one safe segment', () => {
    expect(normalizeTags([' Draft', 'draft', 'FINAL', ''])).toEqual(['draft', 'final']);
    expect(safeFilename('../../etc/passwd')).toBe('passwd');
    expect(safeFilename('a\\b\\c.md')).toBe('c.md');
    expect(safeFilename('..')).toBe('unnamed');
    expect(safeFilename('nul\0name.md')).toBe('nulname.md');
  });

  it('keeps UTF-8 file names whole: NFC, accents, CJK, emoji, bidi controls; cuts long names at a grapheme', () => {
    expect(safeFilename('Re\u0301sume\u0301 日本.md')).toBe('Résumé 日本.md');
    expect(safeFilename('notes 👩‍👩‍👧 \u202Egpj.exe')).toBe('notes 👩‍👩‍👧 \u202Egpj.exe');
    expect(safeFilename('half\uD83D.md')).toBe('half.md');
    const long = safeFilename(`${'a'.repeat(250)}👩‍👩‍👧.md`);
    expect(long).toBe('a'.repeat(250));
    expect(safeFilename(`${'é'.repeat(300)}`)).toHaveLength(255);
  });

  it('derives stable UUID-shaped ids', () => {
    expect(stableId('a', 1)).toBe(stableId('a', 1));
    expect(stableId('a', 1)).not.toBe(stableId('a', 2));
    expect(isUuid(stableId('x'))).toBe(true);
  });

  it('makes version 7 ids that sort in creation order, even thousands within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    expect(ids.every(isUuid)).toBe(true);
    expect(ids.every((id) => id[14] === '7' && '89ab'.includes(id[19]!))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
