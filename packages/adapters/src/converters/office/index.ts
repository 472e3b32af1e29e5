import type { Converter } from '@dossier/core/conversion';
import { codeConverter } from './code.ts';
import { csvConverter } from './csv.ts';
import { dataConverter } from './data.ts';
import { docxConverter } from './docx.ts';
import { emlConverter } from './eml.ts';
import { oleConverter } from './ole.ts';
import { pptxConverter } from './pptx.ts';
import { rstConverter } from './rst.ts';
import { xlsxConverter } from './xlsx.ts';

/** Office, spreadsheet, e-mail and structured-text converters (the types sniffType detects for them). */
export const officeConverters = (): Converter[] => [
  docxConverter,
  pptxConverter,
  xlsxConverter,
  csvConverter,
  emlConverter,
  rstConverter,
  dataConverter,
  codeConverter,
  oleConverter,
];
