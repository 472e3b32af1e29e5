import { DossierError } from '../../domain/errors.ts';
import { htmlConverter } from './html.ts';
import { markdownConverter } from './markdown.ts';
import { sniffType } from './sniff.ts';
import { textConverter } from './text.ts';
import type { ConvertResult, Converter } from './types.ts';

/** Converters by detected content type. Adding a format is one converter file plus one line here. */
export class ConverterRegistry {
  private readonly byType = new Map<string, Converter>();

  constructor(converters: Converter[]) {
    for (const c of converters) this.register(c);
  }

  /** Add or replace the converter for each of its types. */
  register(converter: Converter): void {
    for (const t of converter.types) this.byType.set(t, converter);
  }

  /** Detected types that have a converter. */
  supportedTypes(): string[] {
    return [...this.byType.keys()];
  }

  /** Detect the type from the bytes and convert, or throw unsupported_format / conversion_failed. */
  async convert(bytes: Uint8Array, filename: string): Promise<ConvertResult & { detectedType: string }> {
    if (bytes.length === 0) throw new DossierError('unsupported_format', 'The file is empty');
    const detectedType = sniffType(bytes, filename);
    const converter = this.byType.get(detectedType);
    if (!converter) {
      throw new DossierError(
        'unsupported_format',
        `Unsupported file type ${detectedType} (detected from the file's contents); supported: ${this.supportedTypes().join(', ')}`,
      );
    }
    const result = await converter.convert({ bytes, filename, detectedType });
    return { ...result, detectedType };
  }
}

/** The converters built into core. */
export const defaultConverters = (): Converter[] => [markdownConverter, textConverter, htmlConverter];
