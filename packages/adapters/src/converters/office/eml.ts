import { type ConvertResult, type Converter, DossierError, htmlToMarkdown } from '@dossier/core/conversion';
import type { Address, Attachment, Email } from 'postal-mime';
import { decodeUnknownText } from './encoding.ts';
import { guarded } from './guard.ts';
import { blocks, headingText, plain } from './markdown.ts';
import { ImageCollector } from './opc.ts';

/**
 * E-mail (RFC 5322 / MIME) through postal-mime: a `# Subject` heading, a short header block (From,
 * To, Cc, Date), the body (HTML through core's HTML path when present, else the text part), inline
 * `cid:` images as extracted images, text attachments as their own sections and the rest listed.
 */
export const emlConverter: Converter = {
  name: 'eml',
  types: ['message/rfc822'],
  convert: ({ bytes }) => guarded('e-mail', () => convertEml(bytes)),
};

async function convertEml(bytes: Uint8Array): Promise<ConvertResult> {
  const PostalMime = (await import('postal-mime')).default;
  const email = await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer' }).catch((err: Error) => {
    // postal-mime's own limits (MIME nesting depth, header size) say exactly what was wrong.
    if (/^Maximum .* exceeded$/.test(err.message)) throw new DossierError('conversion_failed', `The e-mail could not be read: ${err.message}`, { cause: err });
    throw err;
  });
  const images = new ImageCollector();
  const inline = inlineImages(email, images);
  const body = email.html ? await htmlToMarkdown(replaceCids(email.html, inline)) : plain((email.text ?? '').trim());
  const attached = email.attachments.filter((a) => !(a.contentId && inline.has(stripAngles(a.contentId))));
  const markdown = blocks([
    `# ${headingText(email.subject ?? '') || '(no subject)'}`,
    headerBlock(email),
    body,
    ...(await Promise.all(attached.filter(isTextual).map(attachmentSection))),
    attachmentList(attached.filter((a) => !isTextual(a))),
  ]);
  return { markdown, images: images.images };
}

const formatAddress = (a: Address): string =>
  a.group ? `${a.name}: ${a.group.map(formatAddress).join(', ')}` : a.name ? `${a.name} <${a.address}>` : `<${a.address}>`;

function headerBlock(email: Email): string {
  const lines: [string, string | undefined][] = [
    ['From', email.from && formatAddress(email.from)],
    ['To', email.to?.map(formatAddress).join(', ')],
    ['Cc', email.cc?.map(formatAddress).join(', ')],
    ['Date', email.date],
    ['Subject', email.subject],
  ];
  return lines
    .filter((l): l is [string, string] => Boolean(l[1]))
    .map(([k, v]) => `- **${k}:** ${v.replace(/\s+/g, ' ')}`)
    .join('\n');
}

const stripAngles = (id: string): string => id.replace(/^<|>$/g, '');

/** Inline images referenced by `cid:` from the HTML body, registered in body order of appearance. */
function inlineImages(email: Email, images: ImageCollector): Map<string, string> {
  const out = new Map<string, string>();
  const html = email.html ?? '';
  for (const m of html.matchAll(/cid:([^"'\s>)]+)/gi)) {
    const cid = decodeURIComponent(m[1] ?? '');
    const att = email.attachments.find((a) => a.contentId && stripAngles(a.contentId) === cid && a.mimeType.startsWith('image/'));
    if (att && !out.has(cid)) out.set(cid, images.add(att.mimeType, contentBytes(att)));
  }
  return out;
}

const replaceCids = (html: string, inline: Map<string, string>): string =>
  html.replace(/cid:([^"'\s>)]+)/gi, (m, id: string) => inline.get(decodeURIComponent(id)) ?? m);

const contentBytes = (a: Attachment): Uint8Array =>
  typeof a.content === 'string' ? new TextEncoder().encode(a.content) : new Uint8Array(a.content as ArrayBuffer);

const TEXTUAL = /^(text\/|application\/(json|xml|x-yaml|yaml)|message\/rfc822)/i;
const isTextual = (a: Attachment): boolean => TEXTUAL.test(a.mimeType);

async function attachmentSection(a: Attachment): Promise<string> {
  const { text } = decodeUnknownText(contentBytes(a));
  const name = a.filename ?? a.mimeType;
  const body = /html/i.test(a.mimeType) ? await htmlToMarkdown(text) : /markdown/i.test(a.mimeType) ? text : plain(text.trim());
  return `## Attachment: ${headingText(name)}\n\n${body}`;
}

function attachmentList(others: Attachment[]): string | undefined {
  if (others.length === 0) return undefined;
  const item = (a: Attachment): string => `- ${plain(a.filename ?? '(unnamed)')} (${a.mimeType}, ${contentBytes(a).length} bytes)`;
  return `## Attachments\n\n${others.map(item).join('\n')}`;
}
