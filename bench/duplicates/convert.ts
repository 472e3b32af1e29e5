/** The Markdown of an evaluation document, through the converters the worker uses. */
import { ConverterRegistry, defaultConverters } from '@dossier/core';
import { officeConverters } from '../../packages/adapters/src/converters/office/index.ts';
import { pdfConverters } from '../../packages/adapters/src/converters/pdf/index.ts';
import type { EvalDoc } from './variants.ts';

const registry = new ConverterRegistry([...defaultConverters(), ...officeConverters(), ...pdfConverters()]);

export async function markdownOfDoc(doc: EvalDoc): Promise<string> {
  const bytes = typeof doc.content === 'string' ? new TextEncoder().encode(doc.content) : doc.content;
  return (await registry.convert(bytes, doc.filename)).markdown;
}
