import { DossierError } from '@dossier/core/conversion';
import { SaxesParser } from 'saxes';

/**
 * A small, safe XML tree for Office parts. saxes expands only the five predefined entities and
 * character references (an undefined entity is an error), never reads a DTD and never fetches
 * anything; on top of that any DOCTYPE is refused outright, since OOXML parts never carry one
 * (ECMA-376 Part 2 §8.1.4 lets consumers reject DTDs). That closes billion-laughs and XXE.
 */

/** An element with namespace prefixes dropped from its name (OOXML prefixes vary by producer). */
export interface XmlElement {
  readonly name: string;
  /** Attributes by qualified name and, when not already taken, by local name. */
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlNode[];
}

export type XmlNode = XmlElement | string;

/** Deeper nesting than this is refused: tree walkers recurse, and real Office XML stays under ~40. */
const MAX_DEPTH = 400;

const localName = (qname: string): string => qname.slice(qname.indexOf(':') + 1);

function attrsOf(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...raw };
  for (const [k, v] of Object.entries(raw)) {
    const local = localName(k);
    if (!(local in out)) out[local] = v;
  }
  return out;
}

const refused = (part: string, why: string, cause?: unknown): DossierError =>
  new DossierError('conversion_failed', `The XML part ${JSON.stringify(part)} ${why}`, cause === undefined ? {} : { cause });

/** Callbacks for streaming parsing (large sheets are read without building a tree). */
export interface XmlHandlers {
  open(name: string, attrs: Record<string, string>): void;
  close(name: string): void;
  text(t: string): void;
}

const DOCTYPE_REFUSED = 'declares a DOCTYPE, which Office parts never carry; refused as invalid (entity expansion and external entities are not allowed)';

/** Stream-parse XML text; throws conversion_failed naming the part on a DOCTYPE, deep nesting or malformed XML. */
export function saxParse(text: string, part: string, h: XmlHandlers): void {
  const parser = new SaxesParser({ position: false });
  let depth = 0;
  parser.on('doctype', () => {
    throw refused(part, DOCTYPE_REFUSED);
  });
  parser.on('opentag', (tag) => {
    if (++depth > MAX_DEPTH) throw refused(part, `nests elements deeper than ${MAX_DEPTH} levels`);
    h.open(localName(tag.name), attrsOf(tag.attributes as Record<string, string>));
  });
  parser.on('closetag', (tag) => {
    depth--;
    h.close(localName(tag.name));
  });
  parser.on('text', h.text);
  parser.on('cdata', h.text);
  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof DossierError) throw err;
    throw refused(part, `is not well-formed XML (${(err as Error).message.split('\n')[0]})`, err);
  }
}

/** Parse XML text into a tree; throws conversion_failed naming the part on a DOCTYPE or malformed XML. */
export function parseXml(text: string, part: string): XmlElement {
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  saxParse(text, part, {
    open(name, attrs) {
      const el: XmlElement = { name, attrs, children: [] };
      stack.at(-1)?.children.push(el);
      stack.push(el);
    },
    close: () => void stack.pop(),
    text: (t) => void stack.at(-1)?.children.push(t),
  });
  const top = root.children.find((c): c is XmlElement => typeof c !== 'string');
  if (!top) throw refused(part, 'has no root element');
  return top;
}

export const isElement = (n: XmlNode | undefined): n is XmlElement => typeof n === 'object' && n !== null;

/** Element children, optionally only those with a given local name. */
export const elements = (el: XmlElement, name?: string): XmlElement[] =>
  el.children.filter((c): c is XmlElement => isElement(c) && (name === undefined || c.name === name));

/** The first element child with a local name. */
export const child = (el: XmlElement | undefined, name: string): XmlElement | undefined =>
  el ? el.children.find((c): c is XmlElement => isElement(c) && c.name === name) : undefined;

/** Follow a path of local names through first children. */
export const path = (el: XmlElement | undefined, ...names: string[]): XmlElement | undefined =>
  names.reduce<XmlElement | undefined>((cur, n) => child(cur, n), el);

/** Every descendant with a local name, in document order. */
export function descendants(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (!isElement(c)) continue;
    if (c.name === name) out.push(c);
    descendants(c, name, out);
  }
  return out;
}

/** All character data below an element. */
export const textOf = (el: XmlElement): string => el.children.map((c) => (isElement(c) ? textOf(c) : c)).join('');
