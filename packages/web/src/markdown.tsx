import type { ReactNode } from 'react';

/**
 * A small Markdown renderer for converted documents: headings, paragraphs, lists, code blocks and tables as text.
 * It builds React elements (never HTML strings), so a document's content cannot inject markup or scripts; a
 * passage to highlight is wrapped in <mark> wherever it occurs.
 */

/** Text with every occurrence of `highlight` (case-insensitive) marked. */
export function Highlighted({ text, highlight }: { text: string; highlight?: string }): ReactNode {
  const needle = highlight?.trim();
  if (!needle) return text;
  const parts: ReactNode[] = [];
  const lower = text.toLowerCase();
  const target = needle.toLowerCase();
  let at = 0;
  for (let found = lower.indexOf(target); found >= 0; found = lower.indexOf(target, at)) {
    parts.push(text.slice(at, found), <mark key={found}>{text.slice(found, found + needle.length)}</mark>);
    at = found + needle.length;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}

/** Text with the words of a query (three letters or more) marked, as a search result shows its passage. */
export function QueryTerms({ text, query }: { text: string; query: string }): ReactNode {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])];
  if (!words.length) return text;
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'giu');
  // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text, in order; the same word may recur
  return <>{text.split(pattern).map((part, i) => (i % 2 === 1 ? <mark key={`${i}-${part}`}>{part}</mark> : part))}</>;
}

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'code'; text: string }
  | { kind: 'para'; text: string };

/** The blocks of a Markdown text. */
function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ kind: 'para', text: para.join(' ') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (line.startsWith('```')) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !(lines[i] ?? '').startsWith('```'); i++) code.push(lines[i] ?? '');
      blocks.push({ kind: 'code', text: code.join('\n') });
    } else if (heading) {
      flush();
      blocks.push({ kind: 'heading', level: heading[1]?.length ?? 1, text: heading[2] ?? '' });
    } else if (/^\s*([-*+]|\d+\.)\s+/.test(line)) {
      flush();
      const item = line.replace(/^\s*([-*+]|\d+\.)\s+/, '');
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'list') last.items.push(item);
      else blocks.push({ kind: 'list', items: [item] });
    } else if (!line.trim()) flush();
    else para.push(line.trim());
  }
  flush();
  return blocks;
}

/** Headings start at h2: the page's own title is the h1. */
const HEADINGS = ['h2', 'h3', 'h4', 'h5', 'h6', 'h6'] as const;

export function Markdown({ text, highlight }: { text: string; highlight?: string }) {
  return (
    <>
      {blocksOf(text).map((b, i) => {
        const key = `${i}-${b.kind}`;
        if (b.kind === 'heading') {
          const Tag = HEADINGS[Math.min(b.level, 6) - 1] ?? 'h6';
          return (
            <Tag key={key}>
              <Highlighted text={b.text} highlight={highlight} />
            </Tag>
          );
        }
        if (b.kind === 'list')
          return (
            <ul key={key}>
              {b.items.map((item, j) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: list items are fixed text; equal items need their position to differ
                <li key={`${j}-${item.slice(0, 20)}`}>
                  <Highlighted text={item} highlight={highlight} />
                </li>
              ))}
            </ul>
          );
        if (b.kind === 'code')
          return (
            <pre key={key}>
              <Highlighted text={b.text} highlight={highlight} />
            </pre>
          );
        return (
          <p key={key}>
            <Highlighted text={b.text} highlight={highlight} />
          </p>
        );
      })}
    </>
  );
}
