import type { Converter } from '@dossier/core/conversion';
import { decodeUnknownText } from './encoding.ts';
import { guarded } from './guard.ts';
import { gridSection } from './markdown.ts';

/**
 * CSV and TSV as Markdown tables (header row first, split every 200 rows repeating the header).
 * The charset is detected (a Shift-JIS export from Excel is common), and for CSV the delimiter is
 * whichever of `,` `;` `|` `\t` splits the first lines most consistently (European exports use `;`).
 */
export const csvConverter: Converter = {
  name: 'csv',
  types: ['text/csv', 'text/tab-separated-values'],
  convert: ({ bytes, filename, detectedType }) =>
    guarded('CSV', () => {
      const { text } = decodeUnknownText(bytes);
      const delimiter = detectedType === 'text/tab-separated-values' ? '\t' : guessDelimiter(text);
      const title = filename.replace(/\.[^.]+$/, '') || undefined;
      return { markdown: gridSection(title, parseDelimited(text, delimiter)), images: [] };
    }),
};

const DELIMITERS = [',', ';', '\t', '|'];

/** The delimiter giving the same, largest field count on the most of the first lines. */
export function guessDelimiter(text: string): string {
  const lines = text.split('\n', 20).filter((l) => l.trim() !== '');
  let best = { d: ',', score: 0 };
  for (const d of DELIMITERS) {
    const counts = lines.map((l) => parseDelimited(l, d)[0]?.length ?? 1);
    const mode = counts.sort((a, b) => counts.filter((c) => c === b).length - counts.filter((c) => c === a).length)[0] ?? 1;
    const score = mode > 1 ? counts.filter((c) => c === mode).length * Math.log2(mode) : 0;
    if (score > best.score) best = { d, score };
  }
  return best.d;
}

/** RFC 4180 fields: quotes may wrap delimiters, line breaks and doubled quotes. */
export function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = (): void => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted) {
      if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) endField();
    else if (ch === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}
