/**
 * Pathological inputs for ingestion (issue 11): each must end `ready` or `error` with a message, in bounded time
 * and memory, while the API stays responsive. Generated, never stored in the repository. `scale` shrinks them for
 * tests (1 = the sizes the issue names).
 */
export interface PathologicalFile {
  name: string;
  /** What makes it hard. */
  why: string;
  bytes: Uint8Array;
}

/** Deterministic pseudo-random lowercase letters: BPE's worst case (few merges apply), unlike one repeated letter. */
function letters(n: number, seed = 7): string {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = 97 + ((x >>> 16) % 26);
  }
  return new TextDecoder().decode(out);
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function lines(count: number, line: (i: number) => string): string {
  const parts: string[] = new Array(count);
  for (let i = 0; i < count; i++) parts[i] = line(i);
  return parts.join('\n');
}

/** The set: one 20 MB token, 200k headings, a 1M-line CSV, a list nested 2,000 deep, HTML nested 100,000 deep. */
export function pathologicalFiles(scale = 1): PathologicalFile[] {
  const n = (full: number) => Math.max(10, Math.round(full * scale));
  return [
    { name: 'one-token.md', why: '20 MB on one line without a space (one BPE "word")', bytes: encode(letters(n(20 * 1024 * 1024))) },
    { name: 'headings.md', why: '200,000 headings', bytes: encode(lines(n(200_000), (i) => `${'#'.repeat(1 + (i % 6))} Heading ${i}\n\nText of part ${i}.`)) },
    // Short rows, so the million lines (about 17 MB) stay under the 25 MB upload limit.
    {
      name: 'rows.csv',
      why: 'a CSV of 1,000,000 lines',
      bytes: encode(`id,item,amount\n${lines(n(1_000_000), (i) => `${i},${i % 977},${(i * 7) % 10_000}`)}`),
    },
    { name: 'nested-list.md', why: 'a list nested 2,000 levels deep', bytes: encode(lines(n(2_000), (i) => `${'  '.repeat(i)}- level ${i}`)) },
    {
      name: 'nested.html',
      why: 'HTML elements nested 100,000 deep',
      bytes: encode(`<html><body>${'<div>'.repeat(n(100_000))}deep text${'</div>'.repeat(n(100_000))}</body></html>`),
    },
  ];
}
