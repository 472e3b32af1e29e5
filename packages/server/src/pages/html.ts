import type { Context } from 'koa';

/**
 * Server-rendered pages (the OAuth consent page and the connected-clients page, issue 18): plain HTML forms that work
 * without JavaScript, with labels on every field, a heading per page, errors announced as alerts, and colours above
 * WCAG AA contrast (text 16:1, buttons 8:1, borders and focus rings over 3:1).
 */

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** HTML built from trusted markup and escaped values: `html` templates compose, plain strings are escaped. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(render).join('');
  return part instanceof Html ? part.markup : escapeHtml(String(part));
};

/** A template tag: interpolated values are escaped unless they are Html themselves. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  return new Html(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i] as Part) : ''), ''));
}

const STYLE = `
:root { color-scheme: light; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; background: #fff; }
main { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; }
label, legend { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
input[type=email], input[type=password], select { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border: 1px solid #5f6368; border-radius: 4px; background: #fff; color: #1b1b1b; }
fieldset { border: 1px solid #5f6368; border-radius: 4px; margin: 1rem 0; padding: .5rem 1rem 1rem; }
.choice { display: flex; gap: .5rem; align-items: flex-start; margin: .5rem 0; }
.choice label { display: inline; margin: 0; }
.hint { display: block; font-weight: 400; color: #3c4043; }
button { font: inherit; font-weight: 600; padding: .5rem 1.25rem; border-radius: 4px; border: 2px solid #174ea6; cursor: pointer; margin: 1rem .5rem 0 0; }
button.primary { background: #174ea6; color: #fff; }
button.secondary { background: #fff; color: #174ea6; }
:focus-visible { outline: 3px solid #b3261e; outline-offset: 2px; }
.error { color: #a50e0e; border-left: 4px solid #a50e0e; padding-left: .75rem; }
.status { color: #0d652d; border-left: 4px solid #0d652d; padding-left: .75rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #5f6368; vertical-align: top; }
td form button { margin: 0; }
code { font-size: .95em; }
`;

/** A whole page: language, title, viewport, the style above and one main landmark. */
export function page(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Dossier</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** Hidden fields carrying values from one form to the next. */
export const hiddenFields = (fields: Record<string, string | undefined>): Html =>
  html`${Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`)}`;

/** An error announced to screen readers as soon as the page loads. */
export const errorMessage = (id: string, message: string | undefined): Html =>
  message ? html`<p id="${id}" class="error" role="alert">${message}</p>` : html``;

/**
 * Answer with a page. Pages are never cached, never framed (the consent page must not be clickjacked) and run no
 * script; styles are inline.
 */
export function sendPage(ctx: Context, status: number, body: Html): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set({
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
  ctx.body = body.markup;
}
