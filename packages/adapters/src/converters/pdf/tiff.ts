import { DossierError } from '@dossier/core/conversion';
import { encodePng } from './canvas.ts';

/** One image file directory of a TIFF, as utif2 returns it (tags are `t<number>` arrays). */
interface Ifd {
  width: number;
  height: number;
  t256?: number[];
  t257?: number[];
}

/** The part of utif2 Dossier uses. */
interface Utif {
  decode(buf: ArrayBuffer | Uint8Array): Ifd[];
  decodeImage(buf: ArrayBuffer | Uint8Array, ifd: Ifd): void;
  toRGBA8(ifd: Ifd): Uint8Array;
}

let loaded: Promise<Utif> | undefined;

const loadUtif = (): Promise<Utif> => {
  loaded ??= import('utif2' as string).then((m: { default?: Utif } & Utif) => m.default ?? m);
  return loaded;
};

const corrupt = (err?: unknown): DossierError =>
  new DossierError('conversion_failed', 'The TIFF image is corrupt or uses an encoding that cannot be read', { cause: err });

/**
 * The first page of a TIFF as PNG, for OCR (tesseract.js's build reads no TIFF). Decoded in pure JS: the
 * image size is checked against `maxPixels` before any pixel is decompressed.
 */
export async function tiffToPng(bytes: Uint8Array, maxPixels: number): Promise<{ png: Uint8Array; width: number; height: number }> {
  const utif = await loadUtif();
  let rgba: Uint8Array;
  let ifd: Ifd | undefined;
  try {
    ifd = utif.decode(bytes)[0];
  } catch (err) {
    throw corrupt(err);
  }
  const width = ifd?.t256?.[0] ?? 0;
  const height = ifd?.t257?.[0] ?? 0;
  if (!ifd || width <= 0 || height <= 0) throw corrupt();
  if (width * height > maxPixels) throw tooLarge(width, height, maxPixels);
  try {
    utif.decodeImage(bytes, ifd);
    rgba = utif.toRGBA8(ifd);
  } catch (err) {
    throw corrupt(err);
  }
  if (rgba.length < width * height * 4) throw corrupt();
  const png = await encodePng(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, width * height * 4), width, height);
  return { png, width, height };
}

/** The error for an image over the pixel limit. */
export const tooLarge = (width: number, height: number, maxPixels: number): DossierError =>
  new DossierError('conversion_failed', `The image is ${width}×${height} pixels; images over ${Math.round(maxPixels / 1e6)} megapixels are not OCR'd`);
