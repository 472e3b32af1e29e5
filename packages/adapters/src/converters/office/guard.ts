import { DossierError } from '@dossier/core/conversion';

/**
 * Run a converter body so that every failure is a DossierError: our own (precise) ones pass
 * through, anything a parser throws becomes conversion_failed with a message naming the format.
 */
export async function guarded<T>(format: string, body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof DossierError) throw err;
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new DossierError('conversion_failed', `The ${format} file is nested too deeply to convert`, { cause: err });
    }
    throw new DossierError('conversion_failed', `The ${format} file could not be read; it may be damaged or not really ${format}`, { cause: err });
  }
}
