import type { ConvertResult, Converter } from '@dossier/core/conversion';
import { DossierError } from '@dossier/core/conversion';
import { bodyMarkdown, bodyParagraphs, chartMarkdown, tableMarkdown } from './drawingml.ts';
import { guarded } from './guard.ts';
import { blocks, headingText } from './markdown.ts';
import { ImageCollector, type Relationship, altText, relationships } from './opc.ts';
import { type XmlElement, child, descendants, elements, parseXml, path } from './xml.ts';
import { ZipArchive } from './zip.ts';

export const PPTX_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/**
 * PPTX read directly from its XML: one `## Slide n: title` section per slide in presentation order,
 * shapes in reading order (top to bottom, then left to right), tables, charts (cached values), images
 * and speaker notes (`### Notes`).
 */
export const pptxConverter: Converter = {
  name: 'pptx',
  types: [PPTX_TYPE],
  convert: ({ bytes }) => guarded('PPTX', () => convertPptx(bytes)),
};

/** What one slide is read with. */
interface SlideContext {
  zip: ZipArchive;
  rels: Map<string, Relationship>;
  images: ImageCollector;
  layout: Map<string, Position>;
}

interface Position {
  y: number;
  x: number;
}

function convertPptx(bytes: Uint8Array): ConvertResult {
  const zip = ZipArchive.open(bytes);
  const main = [...relationships(zip, '').values()].find((r) => r.type === 'officeDocument')?.target ?? 'ppt/presentation.xml';
  if (!zip.has(main)) throw new DossierError('conversion_failed', 'The PPTX file has no presentation part (ppt/presentation.xml)');
  const presRels = relationships(zip, main);
  const slideParts = descendants(parseXml(zip.text(main), main), 'sldId')
    .map((s) => presRels.get(s.attrs['r:id'] ?? s.attrs.id ?? ''))
    .filter((r): r is Relationship => r !== undefined && zip.has(r.target))
    .map((r) => r.target);
  const images = new ImageCollector();
  const sections = slideParts.map((part, i) => slideMarkdown(zip, part, i + 1, images));
  const markdown = blocks(sections);
  return { markdown, images: images.images, pageOffsets: slideOffsets(markdown, slideParts.length) };
}

/**
 * Where each slide starts in the Markdown (its `## Slide n` heading line), so passages cite their slide as their page;
 * a heading not found (never expected) takes the start of the slide before it.
 */
function slideOffsets(markdown: string, count: number): number[] {
  const out: number[] = [];
  let from = 0;
  for (let n = 1; n <= count; n++) {
    const heading = `## Slide ${n}`;
    let at = markdown.indexOf(heading, from);
    while (at > 0 && (markdown[at - 1] !== '\n' || !/[:\n]/.test(markdown[at + heading.length] ?? '\n'))) at = markdown.indexOf(heading, at + 1);
    if (at >= 0) from = at;
    out.push(from);
  }
  return out;
}

function slideMarkdown(zip: ZipArchive, part: string, n: number, images: ImageCollector): string {
  const rels = relationships(zip, part);
  const ctx: SlideContext = { zip, rels, images, layout: layoutPositions(zip, rels) };
  const tree = path(parseXml(zip.text(part), part), 'cSld', 'spTree');
  const shapes = tree ? flatten(tree, ctx) : [];
  const title = shapes.find((s) => s.title)?.text;
  const ordered = shapes.filter((s) => !s.title).sort((a, b) => a.pos.y - b.pos.y || a.pos.x - b.pos.x);
  const heading = `## Slide ${n}${title ? `: ${headingText(title)}` : ''}`;
  return blocks([heading, ...ordered.map((s) => s.markdown), notesMarkdown(ctx)]);
}

interface Shape {
  pos: Position;
  markdown: string;
  title?: boolean;
  text?: string;
}

/** Shapes of a tree in document order, groups opened, alternate content resolved to its first choice. */
function flatten(tree: XmlElement, ctx: SlideContext): Shape[] {
  const out: Shape[] = [];
  for (const el of elements(tree)) {
    if (el.name === 'grpSp') out.push(...flatten(el, ctx));
    else if (el.name === 'AlternateContent') out.push(...flatten(child(el, 'Choice') ?? el, ctx));
    else {
      const shape = readShape(el, ctx);
      if (shape) out.push(shape);
    }
  }
  return out;
}

const TITLE_TYPES = new Set(['title', 'ctrTitle']);
const BULLET_TYPES = new Set(['body', 'obj', undefined]);

function readShape(el: XmlElement, ctx: SlideContext): Shape | undefined {
  const nv = elements(el).find((c) => c.name.startsWith('nv'));
  const ph = path(nv, 'nvPr', 'ph');
  const pos = position(el) ?? ctx.layout.get(`idx:${ph?.attrs.idx}`) ?? ctx.layout.get(`type:${ph?.attrs.type}`) ?? { y: 0, x: 0 };
  if (el.name === 'sp') {
    const txBody = child(el, 'txBody');
    if (ph && TITLE_TYPES.has(ph.attrs.type ?? '')) {
      return {
        pos,
        markdown: '',
        title: true,
        text: bodyParagraphs(txBody)
          .map((p) => p.text)
          .join(' '),
      };
    }
    return { pos, markdown: bodyMarkdown(txBody, ph !== undefined && BULLET_TYPES.has(ph.attrs.type)) };
  }
  if (el.name === 'pic') return { pos, markdown: pictureMarkdown(el, ctx) };
  if (el.name === 'graphicFrame') return { pos, markdown: frameMarkdown(el, ctx) };
  return undefined;
}

function position(el: XmlElement): Position | undefined {
  const off = descendants(el, 'off')[0];
  return off ? { y: Number(off.attrs.y ?? 0), x: Number(off.attrs.x ?? 0) } : undefined;
}

/** Placeholder positions of the slide's layout, so inherited placeholders sort where they appear. */
function layoutPositions(zip: ZipArchive, rels: Map<string, Relationship>): Map<string, Position> {
  const out = new Map<string, Position>();
  const layout = [...rels.values()].find((r) => r.type === 'slideLayout')?.target;
  if (!layout || !zip.has(layout)) return out;
  for (const sp of descendants(parseXml(zip.text(layout), layout), 'sp')) {
    const ph = descendants(sp, 'ph')[0];
    const pos = position(sp);
    if (!ph || !pos) continue;
    if (ph.attrs.idx) out.set(`idx:${ph.attrs.idx}`, pos);
    out.set(`type:${ph.attrs.type ?? 'body'}`, pos);
  }
  return out;
}

function pictureMarkdown(pic: XmlElement, ctx: SlideContext): string {
  const embed = descendants(pic, 'blip')[0]?.attrs['r:embed'];
  const target = embed ? ctx.rels.get(embed) : undefined;
  const placeholder = target && !target.external ? ctx.images.fromPart(ctx.zip, target.target) : undefined;
  if (!placeholder) return '';
  const nv = path(pic, 'nvPicPr', 'cNvPr');
  return `![${altText(nv?.attrs.descr || nv?.attrs.name)}](${placeholder})`;
}

function frameMarkdown(frame: XmlElement, ctx: SlideContext): string {
  const tbl = descendants(frame, 'tbl')[0];
  if (tbl) return tableMarkdown(tbl);
  const chartId = descendants(frame, 'chart')[0]?.attrs['r:id'];
  const chart = chartId ? ctx.rels.get(chartId) : undefined;
  if (chart && ctx.zip.has(chart.target)) return chartMarkdown(parseXml(ctx.zip.text(chart.target), chart.target));
  return '';
}

/** The slide's speaker notes (the notes page's body placeholder) under `### Notes`. */
function notesMarkdown(ctx: SlideContext): string | undefined {
  const notes = [...ctx.rels.values()].find((r) => r.type === 'notesSlide')?.target;
  if (!notes || !ctx.zip.has(notes)) return undefined;
  const tree = path(parseXml(ctx.zip.text(notes), notes), 'cSld', 'spTree');
  const bodies = (tree ? descendants(tree, 'sp') : []).filter((sp) => descendants(sp, 'ph')[0]?.attrs.type === 'body');
  const text = bodies
    .map((sp) => bodyMarkdown(child(sp, 'txBody'), false))
    .filter(Boolean)
    .join('\n\n');
  return text ? `### Notes\n\n${text}` : undefined;
}
