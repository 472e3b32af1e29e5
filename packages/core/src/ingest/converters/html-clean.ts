/**
 * Clean-up passes of the HTML converter. Measured on ../shared/eval/docs: the Wikipedia page converted to
 * 240 kB of mostly navigation and language links, source comments (`<!-- CentralNotice -->`) leaked into
 * chunks, newlines inside table cells came out as `&#xA;`, and zero-width spaces stuck to heading titles.
 */

/** The slice of a hast / mdast node these passes read. */
interface Node {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: Node[];
  value?: string;
}

/** Elements that never hold document content. */
const CHROME = new Set(['nav', 'script', 'style', 'noscript', 'template', 'iframe', 'button']);
/** Zero-width space, word joiner, BOM. (ZWJ/ZWNJ stay: Sinhala, Persian and Indic scripts need them.) */
const ZERO_WIDTH = /[\u200b\u2060\ufeff]/g;
/** A `<main>` shorter than this is a page fragment, not the page's content: the whole body is kept. */
const MIN_MAIN_TEXT = 500;

const isElement = (n: Node, tag?: string): boolean => n.type === 'element' && (tag === undefined || n.tagName === tag);
const elements = (n: Node): Node[] => (n.children ?? []).filter((c) => isElement(c));

/**
 * A language switcher: a list whose every item is one link marked with `hreflang` (the standard markup
 * for "this page in another language"); on Wikipedia it was 150 links ahead of the article.
 */
function isLanguageList(n: Node): boolean {
  if (!isElement(n, 'ul') && !isElement(n, 'ol')) return false;
  const items = elements(n);
  return items.length >= 3 && items.every((li) => elements(li).length === 1 && elements(li)[0]?.properties?.hrefLang !== undefined);
}

const isChrome = (n: Node): boolean =>
  n.type === 'comment' || (isElement(n) && (CHROME.has(n.tagName ?? '') || n.properties?.role === 'navigation' || isLanguageList(n)));

/** A link with nothing to show (heading anchors like `<a href="#setup">#</a>` once emptied). */
const isEmptyLink = (n: Node): boolean => isElement(n, 'a') && elements(n).length === 0 && textLength(n) === 0;

/** Drops comments, page chrome and empty links, and strips zero-width characters from text, in place. */
function prune(node: Node): void {
  if (!node.children) return;
  node.children = node.children.filter((c) => !isChrome(c));
  for (const c of node.children) {
    if (c.type === 'text' && c.value) c.value = c.value.replace(ZERO_WIDTH, '');
    prune(c);
  }
  node.children = node.children.filter((c) => !isEmptyLink(c));
}

function textLength(node: Node): number {
  if (node.type === 'text') return node.value?.trim().length ?? 0;
  return (node.children ?? []).reduce((n, c) => n + textLength(c), 0);
}

/** The page's single `<main>` (or role=main) element, when it has real content. */
function mainContent(node: Node): Node | null {
  const found: Node[] = [];
  const walk = (n: Node): void => {
    if (n.type === 'element' && (n.tagName === 'main' || n.properties?.role === 'main')) found.push(n);
    else for (const c of n.children ?? []) walk(c);
  };
  walk(node);
  const [main] = found;
  return found.length === 1 && main && textLength(main) >= MIN_MAIN_TEXT ? main : null;
}

/** rehype plugin: keep the main content when the page marks it, without comments, chrome or zero-width characters. */
export function rehypeClean() {
  return (tree: Node): void => {
    prune(tree);
    const main = mainContent(tree);
    if (main) tree.children = [main];
  };
}

/** Cell text on one line: a Markdown table row cannot hold a line break (it was written as `&#xA;`). */
function flattenCell(node: Node): void {
  for (const [i, c] of (node.children ?? []).entries()) {
    if (c.type === 'break') node.children![i] = { type: 'text', value: ' ' };
    else if (c.type === 'text' && c.value) c.value = c.value.replace(/\s*\n\s*/g, ' ');
    else flattenCell(c);
  }
}

/** remark plugin: table cells without line breaks. */
export function remarkFlatCells() {
  const walk = (n: Node): void => {
    if (n.type === 'tableCell') flattenCell(n);
    else for (const c of n.children ?? []) walk(c);
  };
  return walk;
}
