import type { ExtractedImage } from '@dossier/core/conversion';
import { parseXml, elements } from './xml.ts';
import type { ZipArchive } from './zip.ts';

/** Open Packaging Conventions helpers shared by DOCX, PPTX and XLSX. */

/** One relationship of a part: its type's last segment (e.g. `image`, `slide`) and resolved target. */
export interface Relationship {
  readonly type: string;
  readonly target: string;
  readonly external: boolean;
}

/** The relationships of a part by id (`word/document.xml` → `word/_rels/document.xml.rels`). */
export function relationships(zip: ZipArchive, part: string): Map<string, Relationship> {
  const slash = part.lastIndexOf('/');
  const relsPart = `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
  const out = new Map<string, Relationship>();
  if (!zip.has(relsPart)) return out;
  for (const rel of elements(parseXml(zip.text(relsPart), relsPart), 'Relationship')) {
    const id = rel.attrs.Id;
    const target = rel.attrs.Target ?? '';
    if (!id) continue;
    const external = rel.attrs.TargetMode === 'External';
    out.set(id, {
      type: (rel.attrs.Type ?? '').split('/').at(-1) ?? '',
      target: external ? target : resolvePart(part, target),
      external,
    });
  }
  return out;
}

const MIME_BY_EXT: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  emf: 'image/emf',
  wmf: 'image/wmf',
};

/** The image MIME type for a part name, or undefined for non-images. */
export const imageMime = (name: string): string | undefined => MIME_BY_EXT[name.toLowerCase().split('.').at(-1) ?? ''];

/** Numbers embedded images `dossier://img-<n>` in reading order; the same part gets one placeholder. */
export class ImageCollector {
  readonly images: ExtractedImage[] = [];
  private readonly byPart = new Map<string, string>();

  /** Placeholder for the image part, reading it once; undefined when the part is missing or not an image. */
  fromPart(zip: ZipArchive, part: string): string | undefined {
    const known = this.byPart.get(part);
    if (known) return known;
    const mimeType = imageMime(part);
    if (!mimeType || !zip.has(part)) return undefined;
    const placeholder = this.add(mimeType, zip.read(part));
    this.byPart.set(part, placeholder);
    return placeholder;
  }

  /** Register image bytes and return their placeholder. */
  add(mimeType: string, bytes: Uint8Array): string {
    const placeholder = `dossier://img-${this.images.length + 1}`;
    this.images.push({ placeholder, mimeType, bytes });
    return placeholder;
  }
}

/** Alt text made safe for `![alt](...)`. */
export const altText = (s: string | undefined): string => (s ?? '').replace(/[[\]\n\r]+/g, ' ').trim();

/** Resolve an OPC relationship target against the part that owns it, clamped inside the package. */
export function resolvePart(fromPart: string, target: string): string {
  if (target.startsWith('/')) return normalise(target.slice(1));
  const dir = fromPart.includes('/') ? fromPart.slice(0, fromPart.lastIndexOf('/') + 1) : '';
  return normalise(dir + target);
}

function normalise(path: string): string {
  const out: string[] = [];
  for (const seg of safeDecodeUri(path).split('/')) {
    if (seg === '..') out.pop();
    else if (seg !== '.' && seg !== '') out.push(seg);
  }
  return out.join('/');
}

function safeDecodeUri(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path; // a stray % is part of the name, not an escape
  }
}
