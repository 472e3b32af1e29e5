import { DossierError, invalid } from '../domain/errors.ts';
import { type CreateGoldenSetInput, MAX_BEIR_BYTES } from './schemas.ts';

/** One uploaded file of a golden-set upload: its form field, its file name and its bytes. */
export interface UploadedSetFile {
  field: string;
  filename: string;
  bytes: Uint8Array;
}

/** A multipart golden-set upload (issue 38): BEIR `queries` and `qrels` files, a `name` and an optional `matchBy`. */
export interface GoldenSetUpload {
  files: readonly UploadedSetFile[];
  fields: Readonly<Record<string, string>>;
}

const FILE_FIELDS = { queries: 'queries.jsonl', qrels: 'qrels.tsv' } as const;

/** The text of one file: UTF-8 (a byte-order mark dropped), at most MAX_BEIR_BYTES. */
function textOf(file: UploadedSetFile, what: string): string {
  if (file.bytes.byteLength > MAX_BEIR_BYTES) throw new DossierError('payload_too_large', `${what} ('${file.filename}') exceeds ${MAX_BEIR_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file.bytes);
  } catch {
    throw invalid(`${what} ('${file.filename}') is not UTF-8 text`);
  }
  text = text.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw invalid(`${what} ('${file.filename}') is empty`);
  return text;
}

/**
 * The create body of an upload: exactly one `queries` file (BEIR queries.jsonl) and one `qrels` file (qrels/<split>.tsv),
 * each named in the error when missing, repeated, unknown, too large, not UTF-8 or empty. Lines are checked by the
 * BEIR parser afterwards (a malformed line is a 400 naming it).
 */
export function createBodyOfUpload(upload: GoldenSetUpload): CreateGoldenSetInput {
  const texts: Partial<Record<keyof typeof FILE_FIELDS, string>> = {};
  for (const file of upload.files) {
    if (!(file.field in FILE_FIELDS))
      throw invalid(`Unknown file field '${file.field}'; send the BEIR files as 'queries' (queries.jsonl) and 'qrels' (qrels.tsv)`);
    const field = file.field as keyof typeof FILE_FIELDS;
    if (texts[field] !== undefined) throw invalid(`Send one '${field}' file, not several`);
    texts[field] = textOf(file, FILE_FIELDS[field]);
  }
  for (const [field, what] of Object.entries(FILE_FIELDS)) {
    if (texts[field as keyof typeof FILE_FIELDS] === undefined) throw invalid(`Missing file field '${field}' (BEIR ${what})`);
  }
  const name = upload.fields.name?.trim();
  if (!name) throw invalid("Missing form field 'name' (the golden set's name)");
  const matchBy = upload.fields.matchBy as CreateGoldenSetInput['matchBy'];
  return { name, ...(matchBy ? { matchBy } : {}), beir: { queries: texts.queries!, qrels: texts.qrels! } };
}
