import { ConverterRegistry, type Converter, defaultConverters } from '@dossier/core/conversion';
import { officeConverters } from './office/index.ts';
import { pdfConverters } from './pdf/index.ts';

/** Every converter Dossier ships: core's text formats plus the adapters' document formats. */
export function allConverters(): Converter[] {
  return [...defaultConverters(), ...officeConverters(), ...pdfConverters()];
}

/** A registry of every converter (built once per worker thread). */
export const createConverterRegistry = (): ConverterRegistry => new ConverterRegistry(allConverters());
