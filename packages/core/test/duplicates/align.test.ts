import { ConverterRegistry, defaultConverters } from '@dossier/core';
import { describe, expect, it } from 'vitest';
import { alignProfiles } from '../../src/duplicates/align.ts';
import { duplicateProfile } from '../../src/duplicates/fingerprints.ts';
import { excerptOf, sharedPassages } from '../../src/duplicates/passages.ts';
import { scoreDuplicatePair } from '../../src/duplicates/score.ts';
import { DEFAULT_DUPLICATE_THRESHOLD } from '../../src/duplicates/settings.ts';

const SENTENCES = [
  'Inheritance lets a programmer define a new class from an existing one, reusing its fields and methods without copying them.',
  'The existing class is called the parent or base class, and the new one is the child or derived class.',
  'A derived class may override a method of its parent to change what it does, while callers keep using the same interface.',
  'Languages differ in whether a class may have several parents; multiple inheritance brings the diamond problem with it.',
  'Many designers now prefer composition, holding an instance of another class, because it couples the two classes more loosely.',
  'Interfaces describe what an object can do without saying how, and a class can implement as many of them as it needs.',
  'Deep hierarchies are hard to change, since a modification high in the tree ripples through every descendant below it.',
  'Good practice keeps hierarchies shallow and uses inheritance only for a genuine is-a relationship between the types.',
  'Testing a derived class should include the behaviour it inherits, because an override can break an assumption of the parent.',
  'Tools can draw the hierarchy as a diagram, which helps new team members understand how the classes of a system relate.',
];
const SOURCE = `# Inheritance in object-oriented programming\n\n${SENTENCES.join(' ')}\n`;
const OWN = 'I was asked to explain this for the coursework. My own view is that it is easier to show with an example from our project than to define.';
/** Same topic, written independently: the vocabulary of the source without its text. */
const SAME_TOPIC = `# Object-oriented design\n\nIn object-oriented programming a class groups data with the methods that act on it. A child class can extend a parent class and override methods, but a base class that changes often makes every derived class fragile. Composition and interfaces are alternatives that many teams prefer; they keep the coupling between classes low and the hierarchy of types shallow. Our project uses an abstract base class for storage and composition everywhere else.\n`;

const coverage = (left: string, right: string) => scoreDuplicatePair(duplicateProfile(left), duplicateProfile(right));
const found = (left: string, right: string) => {
  const scored = coverage(left, right);
  return scored.candidate && scored.coverage >= DEFAULT_DUPLICATE_THRESHOLD;
};

/** Deterministic light edits: every `step`-th word substituted, typo'd, dropped, or given an insertion. */
function edit(text: string, step: number): string {
  return text
    .split(' ')
    .flatMap((word, index) => {
      if (index % step !== step - 1) return [word];
      const kind = (index / step) % 4;
      if (kind < 1) return ['really'];
      if (kind < 2) return [word.length > 4 ? word.slice(0, 2) + word.slice(3) : word];
      if (kind < 3) return [];
      return [word, 'basically'];
    })
    .join(' ');
}

describe('near-duplicate alignment catches what people do when they paste', () => {
  it('an excerpt pasted with word edits, typos, case and punctuation changes', () => {
    const pasted = edit(SENTENCES.slice(2, 7).join(' '), 7).toUpperCase().replace(/,/g, ';');
    expect(found(pasted, SOURCE)).toBe(true);
  });

  it('sentences reordered', () => {
    const reordered = [5, 4, 7, 6, 1, 0, 3, 2, 9, 8].map((index) => SENTENCES[index]).join(' ');
    const alignment = alignProfiles(duplicateProfile(reordered), duplicateProfile(SOURCE));
    expect(alignment.leftCoverage).toBeGreaterThan(0.9);
    expect(alignment.passages.length).toBeGreaterThanOrEqual(5); // each moved run of sentences is its own passage
  });

  it("a passage mixed into the writer's own text (containment of the smaller document)", () => {
    const answer = `${OWN} ${edit(SENTENCES.slice(0, 6).join(' '), 9)} That is all I have to say about it.`;
    const scored = coverage(answer, SOURCE);
    expect(scored.candidate).toBe(true);
    expect(scored.coverage).toBeGreaterThan(0.6);
    const alignment = alignProfiles(duplicateProfile(answer), duplicateProfile(SOURCE));
    expect(alignment.rightCoverage).toBeLessThan(0.7); // of the source, only what was pasted
  });

  it('the same text across formats: HTML through the converter, Markdown syntax, a printout with hyphenation and page lines', async () => {
    const html = `<html><body><nav><a href="/">Home</a></nav><h1>Inheritance</h1>${SENTENCES.map((s) => `<p>${s}</p>`).join('')}<footer>© School</footer></body></html>`;
    const converted = (await new ConverterRegistry(defaultConverters()).convert(new TextEncoder().encode(html), 'page.html')).markdown;
    const markdown = `## Inheritance\n\n> notes\n\n${SENTENCES.map((s, i) => (i % 2 ? `- **${s}**` : `[${s.slice(0, 20)}](https://x.test)${s.slice(20)}`)).join('\n')}\n`;
    const printout = SENTENCES.join(' ')
      .replace(/inheritance/gi, 'inheri-\ntance')
      .replace(/\. /g, '.\nCourse notes - week 3\nPage 7\n');
    for (const copy of [converted, markdown, printout]) expect(coverage(copy, SOURCE).coverage).toBeGreaterThan(0.9);
  });

  it("keeps apart a text on the same topic and the source's words shuffled", () => {
    expect(coverage(SAME_TOPIC, SOURCE).coverage).toBeLessThan(0.2);
    const shuffled = SENTENCES.map((s) => s.replace(/[.,;]/g, '').split(' ').reverse().join(' ')).join('. ');
    expect(found(shuffled, SOURCE)).toBe(false);
  });

  it("returns the shared passages as spans of each document's Markdown, with excerpts", () => {
    const answer = `${OWN} ${SENTENCES[4]} ${SENTENCES[5]} Thanks.`;
    const [left, right] = [duplicateProfile(answer), duplicateProfile(SOURCE)];
    const passages = sharedPassages(alignProfiles(left, right).passages, { profile: left, markdown: answer }, { profile: right, markdown: SOURCE });
    expect(passages).toHaveLength(1);
    const [passage] = passages;
    expect(answer.slice(passage!.member.start, passage!.member.end)).toBe(`${SENTENCES[4]} ${SENTENCES[5]}`.replace(/\.$/, ''));
    expect(SOURCE.slice(passage!.canonical.start, passage!.canonical.end)).toBe(answer.slice(passage!.member.start, passage!.member.end));
    expect(passage!.member.excerpt.startsWith('composition, holding an instance')).toBe(false);
    expect(passage!.member.excerpt.startsWith('Many designers now prefer composition')).toBe(true);
    expect(passage!.member.excerpt.length).toBeLessThanOrEqual(161);
  });

  it('cuts an excerpt at a word, with an ellipsis', () => {
    const long = 'word '.repeat(100);
    expect(excerptOf(long, 0, long.length)).toMatch(/^word( word)+…$/);
    expect(excerptOf('a  short\n\ntext', 0, 14)).toBe('a short text');
  });
});
