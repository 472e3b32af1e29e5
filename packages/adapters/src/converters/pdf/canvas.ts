/** The part of @napi-rs/canvas Dossier uses: a raster canvas that takes raw RGBA and encodes PNG. */
export interface CanvasLib {
  createCanvas(
    width: number,
    height: number,
  ): {
    getContext(type: '2d'): { putImageData(data: unknown, x: number, y: number): void };
    encode(format: 'png'): Promise<Buffer>;
  };
  ImageData: new (data: Uint8ClampedArray, width: number, height: number) => unknown;
}

let loaded: Promise<CanvasLib> | undefined;

/** @napi-rs/canvas, loaded once per thread (pdf.js renders through the same package). */
export function loadCanvas(): Promise<CanvasLib> {
  loaded ??= import('@napi-rs/canvas').then((m) => (m.default ?? m) as unknown as CanvasLib);
  return loaded;
}

/**
 * RGBA pixels as a PNG. Never hand user-supplied encoded images to the canvas decoder: a TIFF given to
 * `loadImage` crashed the whole process (segfault) on this machine; decoding stays with pure-JS code.
 */
export async function encodePng(rgba: Uint8ClampedArray, width: number, height: number): Promise<Uint8Array> {
  const lib = await loadCanvas();
  const canvas = lib.createCanvas(width, height);
  canvas.getContext('2d').putImageData(new lib.ImageData(rgba, width, height), 0, 0);
  return new Uint8Array(await canvas.encode('png'));
}
