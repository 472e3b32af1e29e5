import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** The machine a figure was measured on. */
export const machineLine = (): string =>
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`;

/** Replace (or append) the `## <title>` section of a Markdown results file. */
export function writeSection(file: string, title: string, body: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n';
  const start = `<!-- ${title}:start -->`;
  const end = `<!-- ${title}:end -->`;
  const block = `${start}\n## ${title}\n\n${body}\n${end}`;
  const re = new RegExp(`${start}[\\s\\S]*?${end}`);
  writeFileSync(file, re.test(current) ? current.replace(re, block) : `${current.trimEnd()}\n\n${block}\n`);
}
