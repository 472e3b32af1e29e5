import { isDossierError } from '@dossier/core';
import { afterAll, describe, expect, it } from 'vitest';
import { closeOcr } from '../../src/converters/pdf/index.ts';
import { column, convertBytes, makePdf } from './pdf-helpers.ts';

/** Deterministic pseudo-random bytes. */
function noise(n: number, seed = 7): Buffer {
  const out = Buffer.alloc(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out[i] = s & 255;
  }
  return out;
}

const cat = (...parts: (string | number[] | Uint8Array)[]): Uint8Array =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p)))));

const memo = makePdf([{ texts: column(['A perfectly ordinary memo with a few lines of text.', 'Nothing to see here at all.'], 72, 700) }]);
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Name, bytes, and what the user must be told. */
const cases: [string, Uint8Array, RegExp][] = [
  ['a PDF header and nothing else', cat('%PDF-1.7\n'), /truncated or corrupt/],
  ['a PDF header followed by random bytes', cat('%PDF-1.7\n', noise(20_000)), /truncated or corrupt/],
  ['a valid PDF cut in half', memo.subarray(0, memo.length / 2), /truncated/],
  ['a valid PDF missing only its last bytes', memo.subarray(0, memo.length - 8), /truncated/],
  ['random bytes between a PDF header and %%EOF', cat('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\n', noise(5000), '\n%%EOF'), /not a valid PDF|corrupt/],
  [
    'a trailer with an encryption dictionary',
    cat(
      '%PDF-1.6\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n',
      '3 0 obj<</Filter/Standard/V 2/R 3/O(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)/U(xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)/P -4>>endobj\n',
      'trailer<</Root 1 0 R/Encrypt 3 0 R/ID[<01><01>]>>\n%%EOF',
    ),
    /encrypted \(password-protected\)/,
  ],
  [
    'a page tree that contains itself',
    cat('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[2 0 R]/Count 1>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF'),
    /corrupt/,
  ],
  [
    'a stream claiming a 100 GB length',
    cat('%PDF-1.4\n1 0 obj<</Length 99999999999>>stream\n', noise(1000), '\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF'),
    /not a valid PDF|corrupt/,
  ],
  ['a PNG signature followed by random bytes', cat(PNG, noise(3000)), /image is corrupt or truncated/],
  [
    'a PNG whose header is fine but whose pixels are garbage',
    cat(PNG, [0, 0, 0, 13], 'IHDR', [0, 0, 2, 0, 0, 0, 2, 0, 8, 2, 0, 0, 0], [0, 0, 0, 0], noise(4000)),
    /could not be read for OCR/,
  ],
  [
    'a PNG claiming 100000×100000 pixels',
    cat(PNG, [0, 0, 0, 13], 'IHDR', [0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0, 8, 6, 0, 0, 0], [0, 0, 0, 0]),
    /100000×100000 pixels/,
  ],
  ['a JPEG cut after its first marker', cat([0xff, 0xd8, 0xff, 0xe0], noise(100)), /image is corrupt or truncated/],
  ['a GIF header only', cat('GIF89a'), /image is corrupt or truncated/],
  ['a TIFF header only', cat([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), /TIFF image is corrupt/],
];

describe('the PDF and image converters on hostile input', () => {
  afterAll(() => closeOcr());

  it.each(cases)(
    'fails %s with a conversion_failed error that says what is wrong',
    async (_name, bytes, message) => {
      const err = await convertBytes(bytes, 'upload').catch((e: unknown) => e);
      expect(isDossierError(err, 'conversion_failed'), String(err)).toBe(true);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toMatch(/node_modules|\n\s+at /);
    },
    20_000,
  );

  it('still converts a valid PDF after all that (no state left broken)', async () => {
    const { markdown } = await convertBytes(memo, 'memo.pdf');
    expect(markdown).toBe('A perfectly ordinary memo with a few lines of text. Nothing to see here at all.\n');
  });
});
