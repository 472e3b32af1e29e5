import { type XmlElement, child, elements, isElement, textOf } from './xml.ts';

/**
 * Office Math (OMML, ECMA-376 Part 1 §22.1) to LaTeX. Covers the structures Word's equation editor
 * produces (fractions, scripts, radicals, n-ary operators, delimiters, functions, accents, matrices);
 * anything else falls back to its plain text so no symbol is lost.
 */

const NARY: Record<string, string> = {
  '∑': '\\sum',
  '∏': '\\prod',
  '∐': '\\coprod',
  '∫': '\\int',
  '∬': '\\iint',
  '∭': '\\iiint',
  '∮': '\\oint',
  '⋃': '\\bigcup',
  '⋂': '\\bigcap',
};
const ACCENT: Record<string, string> = {
  '̂': '\\hat',
  '̃': '\\tilde',
  '̄': '\\bar',
  '⃗': '\\vec',
  '̇': '\\dot',
  '̈': '\\ddot',
  '́': '\\acute',
  '̀': '\\grave',
  '̆': '\\breve',
};
const SYMBOL: Record<string, string> = {
  α: '\\alpha',
  β: '\\beta',
  γ: '\\gamma',
  δ: '\\delta',
  ε: '\\epsilon',
  θ: '\\theta',
  λ: '\\lambda',
  μ: '\\mu',
  π: '\\pi',
  ρ: '\\rho',
  σ: '\\sigma',
  τ: '\\tau',
  φ: '\\phi',
  ω: '\\omega',
  Δ: '\\Delta',
  Σ: '\\Sigma',
  Ω: '\\Omega',
  '×': '\\times',
  '÷': '\\div',
  '±': '\\pm',
  '≤': '\\leq',
  '≥': '\\geq',
  '≠': '\\neq',
  '≈': '\\approx',
  '∞': '\\infty',
  '→': '\\rightarrow',
  '⋅': '\\cdot',
  '∂': '\\partial',
  '∇': '\\nabla',
  '∈': '\\in',
};

const val = (el: XmlElement | undefined, name: string): string | undefined => child(el, name)?.attrs.val;

/** Text of a math run with symbols spelled as LaTeX commands (a space keeps `\theta x` apart). */
function runText(r: XmlElement): string {
  const t = elements(r, 't')
    .map(textOf)
    .join('')
    .replace(/\u2061/g, '');
  return [...t].map((ch) => (SYMBOL[ch] ? `${SYMBOL[ch]} ` : ch)).join('');
}

/** LaTeX for the children of an element, skipping property elements (`*Pr`). */
const kids = (el: XmlElement | undefined): string => (el ? el.children.filter(isElement).map(toLatex).join('').replace(/ +$/, '') : '');

const arg = (el: XmlElement, name: string): string => kids(child(el, name));

const HANDLERS: Record<string, (el: XmlElement) => string> = {
  r: runText,
  f: (el) => `\\frac{${arg(el, 'num')}}{${arg(el, 'den')}}`,
  sSup: (el) => `{${arg(el, 'e')}}^{${arg(el, 'sup')}}`,
  sSub: (el) => `{${arg(el, 'e')}}_{${arg(el, 'sub')}}`,
  sSubSup: (el) => `{${arg(el, 'e')}}_{${arg(el, 'sub')}}^{${arg(el, 'sup')}}`,
  sPre: (el) => `{}_{${arg(el, 'sub')}}^{${arg(el, 'sup')}}{${arg(el, 'e')}}`,
  rad: (el) => {
    const deg = arg(el, 'deg');
    return deg ? `\\sqrt[${deg}]{${arg(el, 'e')}}` : `\\sqrt{${arg(el, 'e')}}`;
  },
  nary: (el) => {
    const chr = val(child(el, 'naryPr'), 'chr') ?? '∫';
    const sub = arg(el, 'sub');
    const sup = arg(el, 'sup');
    return `${NARY[chr] ?? chr}${sub ? `_{${sub}}` : ''}${sup ? `^{${sup}}` : ''}{${arg(el, 'e')}}`;
  },
  d: (el) => {
    const pr = child(el, 'dPr');
    const open = val(pr, 'begChr') ?? '(';
    const close = val(pr, 'endChr') ?? ')';
    const sep = val(pr, 'sepChr') ?? '|';
    const inner = elements(el, 'e').map(kids).join(sep);
    return `\\left${delim(open)}${inner}\\right${delim(close)}`;
  },
  func: (el) => `${funcName(arg(el, 'fName'))}{${arg(el, 'e')}}`,
  acc: (el) => `${ACCENT[val(child(el, 'accPr'), 'chr') ?? '̂'] ?? '\\hat'}{${arg(el, 'e')}}`,
  bar: (el) => `\\overline{${arg(el, 'e')}}`,
  limLow: (el) => `${funcName(arg(el, 'e'))}_{${arg(el, 'lim')}}`,
  limUpp: (el) => `{${arg(el, 'e')}}^{${arg(el, 'lim')}}`,
  groupChr: (el) => `\\underbrace{${arg(el, 'e')}}`,
  m: (el) =>
    `\\begin{matrix}${elements(el, 'mr')
      .map((row) => elements(row, 'e').map(kids).join(' & '))
      .join(' \\\\ ')}\\end{matrix}`,
  eqArr: (el) => `\\begin{aligned}${elements(el, 'e').map(kids).join(' \\\\ ')}\\end{aligned}`,
};

const delim = (c: string): string => (c === '' ? '.' : c === '{' || c === '}' ? `\\${c}` : c);

/** `sin` → `\sin`, other names wrapped in \operatorname. */
function funcName(name: string): string {
  const n = name.trim();
  if (/^(sin|cos|tan|cot|sec|csc|log|ln|exp|lim|max|min|sinh|cosh|tanh|arcsin|arccos|arctan|det)$/.test(n)) return `\\${n} `;
  return /^[A-Za-z]+$/.test(n) ? `\\operatorname{${n}}` : n;
}

/** LaTeX for one OMML element (oMath, or any structure inside it). */
export function toLatex(el: XmlElement): string {
  if (el.name.endsWith('Pr')) return '';
  const handler = HANDLERS[el.name];
  return handler ? handler(el) : kids(el);
}

/** LaTeX for an `m:oMath` element, whitespace tidied. */
export const mathToLatex = (oMath: XmlElement): string => toLatex(oMath).replace(/\s+/g, ' ').trim();
