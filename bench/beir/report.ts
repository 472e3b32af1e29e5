import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { type MetricSummary, percentile } from './metrics.ts';

/** One row of the printed table: a label and its formatted value. */
export type Row = [label: string, value: string];

export const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** Latency rows of one sample set: `<label> p50 (ms)`, … for each percentile asked for. */
export const latencyRows = (label: string, samples: readonly number[], percentiles: readonly number[] = [50, 95, 99], digits = 1): Row[] =>
  percentiles.map((p) => [`${label} p${p} (ms)`, fixed(percentile([...samples], p), digits)] as Row);

/**
 * Each query through every contender, after `warmUp` queries through all of them, so every contender sees the same
 * machine state: the milliseconds of each call, by contender. The contenders take each query in a shuffled order
 * (seeded, so runs repeat), so each follows every other equally often: a call right after a heavy one can be slowed
 * by work LanceDB finishes after answering (measured at 100k chunks: the same `none` query 21 % slower right after
 * an RM3 query than after a plain one), and a fixed order charged that to whichever contender came next.
 */
export async function interleaved(
  queries: readonly string[],
  contenders: Record<string, (query: string) => Promise<unknown>>,
  warmUp = 20,
): Promise<Record<string, number[]>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (const query of queries.slice(0, warmUp)) for (const call of Object.values(contenders)) await call(query);
  const shuffle = seededShuffle(7);
  for (const query of queries) {
    for (const [name, call] of shuffle(Object.entries(contenders))) {
      const started = performance.now();
      await call(query);
      samples[name]!.push(performance.now() - started);
    }
  }
  return samples;
}

/** Fisher–Yates with a linear congruential generator: the same orders for the same seed. */
function seededShuffle(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
}

/** The quality rows every runner prints. */
export function metricRows(m: MetricSummary): Row[] {
  return [
    ['nDCG@10', fixed(m.ndcg10, 4)],
    ['recall@100', fixed(m.recall100, 4)],
    ['MRR@10', fixed(m.mrr10, 4)],
    ['queries', String(m.queries)],
  ];
}

/** A two-column Markdown table (also readable on a terminal). */
export function markdownTable(rows: readonly Row[]): string {
  const w = Math.max(6, ...rows.map(([l]) => l.length));
  const v = Math.max(5, ...rows.map(([, x]) => x.length));
  const line = (a: string, b: string) => `| ${a.padEnd(w)} | ${b.padStart(v)} |`;
  return [line('metric', 'value'), `|${'-'.repeat(w + 2)}|${'-'.repeat(v + 1)}:|`, ...rows.map(([a, b]) => line(a, b))].join('\n');
}

/** The machine a figure was measured on. */
export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** A RESULTS.md section: heading, date, command, machine and notes, then `body` (Markdown tables). */
export function section(heading: string, command: string, notes: readonly string[], body: string): string {
  return [
    `## ${heading}`,
    '',
    `- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `- Command: \`${command}\``,
    `- Machine: ${machine()}`,
    ...notes.map((n) => `- ${n}`),
    '',
    body.trimEnd(),
    '',
  ].join('\n');
}

const HEADER = '# Benchmark results\n\nWritten by the benchmarks in `bench/`; each run replaces its own section and leaves the others alone.\n\n';

/** Replace the section with the same heading in `file`, or append it; creates the file when missing. */
export async function upsertSection(file: string, heading: string, body: string): Promise<void> {
  const current = existsSync(file) ? await readFile(file, 'utf8') : HEADER;
  const start = current.indexOf(`\n## ${heading}\n`);
  if (start < 0) {
    await writeFile(file, `${current.trimEnd()}\n\n${body}`);
    return;
  }
  const next = current.indexOf('\n## ', start + 1);
  const rest = next < 0 ? '' : current.slice(next + 1);
  await writeFile(file, `${current.slice(0, start + 1)}${body}${rest ? `\n${rest}` : ''}`);
}

/** The command line as typed, relative to the repository root. */
export const commandLine = (script: string, argv: readonly string[]): string =>
  ['node --import tsx', script, ...argv.map((a) => (/^[\w./@:=-]+$/.test(a) ? a : `'${a}'`))].join(' ');
