import type { CellRegion, ConvertResult, Converter } from '@dossier/core/conversion';
import { DossierError } from '@dossier/core/conversion';
import { guarded } from './guard.ts';
import { blocks, gridSection } from './markdown.ts';
import { type Relationship, relationships } from './opc.ts';
import { type XmlElement, child, descendants, elements, parseXml, saxParse, textOf } from './xml.ts';
import { ZipArchive } from './zip.ts';

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * XLSX read from its XML (no spreadsheet library: SheetJS on npm is stale and exceljs unzips by
 * itself, outside our zip-bomb caps). One `## <sheet>` section per sheet in workbook order, cells
 * as their cached values, dates by the cell's number format as ISO dates, shared strings without
 * phonetic guides. Sheets are stream-parsed so a big sheet never becomes a DOM.
 */
export const xlsxConverter: Converter = {
  name: 'xlsx',
  types: [XLSX_TYPE],
  convert: ({ bytes }) => guarded('XLSX', () => convertXlsx(bytes)),
};

/** A workbook's shared lookups. */
interface Book {
  strings: string[];
  dateStyles: Set<number>;
  date1904: boolean;
}

function convertXlsx(bytes: Uint8Array): ConvertResult {
  const zip = ZipArchive.open(bytes);
  const main = [...relationships(zip, '').values()].find((r) => r.type === 'officeDocument')?.target ?? 'xl/workbook.xml';
  if (!zip.has(main)) throw new DossierError('conversion_failed', 'The XLSX file has no workbook part (xl/workbook.xml)');
  const workbook = parseXml(zip.text(main), main);
  const rels = relationships(zip, main);
  const book: Book = {
    strings: sharedStrings(zip, rels),
    dateStyles: dateStyles(zip, rels),
    date1904: ['1', 'true'].includes(descendants(workbook, 'workbookPr')[0]?.attrs.date1904 ?? ''),
  };
  const sheets = descendants(workbook, 'sheet').map((sheet) => {
    const target = rels.get(sheet.attrs['r:id'] ?? sheet.attrs.id ?? '');
    const name = sheet.attrs.name ?? 'Sheet';
    const rows = target && zip.has(target.target) ? readSheet(zip.text(target.target), target.target, book) : [];
    return { name, rows, markdown: gridSection(name, rows) };
  });
  const markdown = blocks(sheets.map((sheet) => sheet.markdown));
  return {
    markdown,
    images: [],
    cells: cellRegions(
      markdown,
      sheets.map((sheet) => sheetLayout(sheet.name, sheet.rows)),
    ),
  };
}

/** Where a sheet's Markdown table rows come from: the sheet row of each row kept (empty ones are dropped) and its columns. */
interface SheetLayout {
  name: string;
  /** 1-based sheet row numbers of the rows gridSection keeps, in order (the first is the tables' header). */
  rows: number[];
  firstColumn: number;
  lastColumn: number;
}

const hasText = (cellText: string): boolean => cellText.trim() !== '';

/** A sheet's layout, by the same rules compactGrid keeps rows and trims columns by. */
function sheetLayout(name: string, grid: string[][]): SheetLayout {
  const rows: number[] = [];
  let firstColumn = Number.POSITIVE_INFINITY;
  let lastColumn = 0;
  grid.forEach((row, index) => {
    if (!row.some(hasText)) return;
    rows.push(index + 1);
    const first = row.findIndex(hasText);
    firstColumn = Math.min(firstColumn, first + 1);
    lastColumn = Math.max(lastColumn, row.findLastIndex(hasText) + 1);
  });
  return { name, rows, firstColumn: Number.isFinite(firstColumn) ? firstColumn : 1, lastColumn: Math.max(lastColumn, 1) };
}

/**
 * The cell regions of a workbook's Markdown: each `## ` heading starts the next sheet (cells never start a line with
 * it: they sit in `| … |` rows); in a sheet, each table's first line is the header row (repeated by every part of a
 * split table: only the first one counts), its second the delimiter, and the lines after it the sheet's kept rows in
 * order.
 */
function cellRegions(markdown: string, layouts: SheetLayout[]): CellRegion[] {
  const out: CellRegion[] = [];
  let sheet = -1;
  let body = 0;
  let lineInTable = -1;
  for (let start = 0; start < markdown.length; ) {
    const newline = markdown.indexOf('\n', start);
    const end = newline < 0 ? markdown.length : newline;
    const line = markdown.slice(start, end);
    const layout = layouts[sheet];
    if (line.startsWith('## ')) [sheet, body, lineInTable] = [sheet + 1, 0, -1];
    else if (!line.startsWith('|')) lineInTable = -1;
    else if (layout) {
      lineInTable++;
      // The header row is where it is once: a later part's copy of it is not part of that part's rows.
      const header = lineInTable === 0 && body === 0 ? layout.rows[0] : undefined;
      const row = lineInTable === 0 ? header : lineInTable > 1 ? layout.rows[++body] : undefined;
      if (row !== undefined) out.push({ start, end, sheet: layout.name, row, firstColumn: layout.firstColumn, lastColumn: layout.lastColumn });
    }
    start = end + 1;
  }
  return out;
}

const partOf = (rels: Map<string, Relationship>, type: string): string | undefined => [...rels.values()].find((r) => r.type === type)?.target;

/** Shared strings; rich runs joined, phonetic guides (`rPh`) left out. */
function sharedStrings(zip: ZipArchive, rels: Map<string, Relationship>): string[] {
  const part = partOf(rels, 'sharedStrings');
  if (!part || !zip.has(part)) return [];
  const stringText = (si: XmlElement): string =>
    si.children.map((c) => (typeof c === 'string' || c.name === 'rPh' ? '' : c.name === 't' ? textOf(c) : stringText(c))).join('');
  return elements(parseXml(zip.text(part), part), 'si').map(stringText);
}

/** Built-in number formats that show dates or times (ECMA-376 Part 1 §18.8.30, plus the CJK date ids). */
const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58,
]);

/** Indexes of cell styles (`cellXfs`) whose number format is a date or time. */
function dateStyles(zip: ZipArchive, rels: Map<string, Relationship>): Set<number> {
  const part = partOf(rels, 'styles');
  const out = new Set<number>();
  if (!part || !zip.has(part)) return out;
  const styles = parseXml(zip.text(part), part);
  const custom = new Map(descendants(styles, 'numFmt').map((f) => [Number(f.attrs.numFmtId), f.attrs.formatCode ?? '']));
  const isDate = (id: number): boolean => BUILTIN_DATE_FORMATS.has(id) || isDateFormat(custom.get(id));
  elements(child(styles, 'cellXfs') ?? styles, 'xf').forEach((xf, i) => {
    if (isDate(Number(xf.attrs.numFmtId ?? 0))) out.add(i);
  });
  return out;
}

/** A custom format shows a date when it has d/m/y/h/s codes outside quotes, escapes and [colour] brackets. */
const isDateFormat = (code: string | undefined): boolean => code !== undefined && /[dmyhs]/i.test(code.replace(/"[^"]*"|\\.|\[[^\]]*\]|General/gi, ''));

/** The cells of a sheet as rows of strings, placed by their `r` references. */
function readSheet(xml: string, part: string, book: Book): string[][] {
  const rows: string[][] = [];
  let cell: { ref: string; type: string; style: number } | undefined;
  let value = '';
  let inValue = false;
  let nextRow = 0;
  let nextCol = 0;
  saxParse(xml, part, {
    open(name, attrs) {
      if (name === 'row') {
        nextRow = attrs.r ? Number(attrs.r) - 1 : nextRow;
        nextCol = 0;
      } else if (name === 'c') {
        cell = { ref: attrs.r ?? '', type: attrs.t ?? 'n', style: Number(attrs.s ?? 0) };
        value = '';
      } else if (cell && (name === 'v' || (name === 't' && cell.type === 'inlineStr'))) inValue = true;
      else if (name === 'rPh') inValue = false;
    },
    close(name) {
      if (name === 'v' || name === 't') inValue = false;
      else if (name === 'row') nextRow++;
      else if (name === 'c' && cell) {
        const col = cell.ref ? columnIndex(cell.ref) : nextCol;
        const row = rows[nextRow] ?? [];
        row[col] = cellText(cell.type, cell.style, value, book);
        rows[nextRow] = row;
        nextCol = col + 1;
        cell = undefined;
      }
    },
    text(t) {
      if (inValue) value += t;
    },
  });
  return Array.from(rows, (r) => Array.from(r ?? [], (c) => c ?? ''));
}

/** `BC12` → 54 (zero-based column). */
function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref.toUpperCase()) {
    if (ch < 'A' || ch > 'Z') break;
    n = n * 26 + (ch.charCodeAt(0) - 64);
  }
  return Math.max(0, n - 1);
}

function cellText(type: string, style: number, raw: string, book: Book): string {
  if (type === 's') return book.strings[Number(raw)] ?? '';
  if (type === 'b') return raw === '1' ? 'TRUE' : 'FALSE';
  if (type !== 'n' || raw === '') return raw;
  const n = Number(raw);
  if (!Number.isFinite(n)) return raw;
  if (book.dateStyles.has(style)) return serialDate(n, book.date1904);
  return String(Number.parseFloat(n.toPrecision(15)));
}

/** An Excel serial date as ISO 8601 (date, plus time when it has one). Serial 60 is Excel's phantom 1900-02-29. */
function serialDate(serial: number, date1904: boolean): string {
  const days = date1904 ? serial + 1462 : serial < 60 ? serial + 1 : serial;
  const ms = Math.round((days - 25569) * 86_400_000);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(serial);
  const iso = d.toISOString();
  if (serial < 1) return iso.slice(11, 19);
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}
