/**
 * Where a process's resident memory goes, as it runs (issue 41): a preload for any bench, e.g.
 *   node --import ./bench/compare/memory-watch.mjs --import tsx bench/compare/profile-build.ts --docs 3000
 * Prints to stderr every 2 s: RSS, the main thread's V8 heap (used/total), external and ArrayBuffer bytes, the
 * process's threads, and RSS split into anonymous and file-backed pages (/proc/self/status); each worker thread as it
 * starts and exits (pool threads, the SQLite checkpointer); and at exit the sample at the peak, the most threads seen
 * by name (node = the main thread and V8/libuv helpers and worker threads; tokio-rt-worker and lance-cpu = LanceDB),
 * the largest mappings near the peak (/proc/self/smaps: anonymous memory, the node binary, LanceDB's library), and the
 * resident memory near the peak by kind (malloc arenas, V8 heap pages, stacks, file pages; see residentByKind).
 * Linux only. Worker threads' heaps are not in `heap`: they show in `anon`.
 */
import { syncBuiltinESMExports } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import workerThreads from 'node:worker_threads';

const mib = (bytes) => Math.round(bytes / 2 ** 20);
const since = () => Math.round((performance.now() - startedAt) / 100) / 10;
const startedAt = performance.now();

/** Threads and resident pages from /proc/self/status (kB there, MiB here). */
function status() {
  const text = readFileSync('/proc/self/status', 'utf8');
  const field = (name) => Number(text.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? 0);
  return { threads: field('Threads'), anon: Math.round(field('RssAnon') / 1024), file: Math.round(field('RssFile') / 1024) };
}

function sample() {
  const m = process.memoryUsage();
  return {
    t: since(),
    rss: mib(m.rss),
    heapUsed: mib(m.heapUsed),
    heapTotal: mib(m.heapTotal),
    external: mib(m.external),
    arrayBuffers: mib(m.arrayBuffers),
    ...status(),
  };
}

/** Threads of this process by name (/proc/self/task/<tid>/comm). */
function threadNames() {
  const names = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      names[name] = (names[name] ?? 0) + 1;
    } catch {
      // the thread ended while being listed
    }
  }
  return names;
}

/**
 * Resident MiB of the process by kind, from /proc/self/smaps: the node binary and LanceDB's library (file pages);
 * glibc's per-thread malloc arenas (anonymous heaps of 64 MiB reserved, at 64 MiB-aligned addresses) and its main
 * arena ([heap]); V8 heap pages (256 KiB anonymous mappings, the main thread's and every worker's heap); thread stacks
 * (after a 4 KiB guard page); and the rest of anonymous memory (large malloc blocks mapped on their own, V8's large
 * objects). Native memory of LanceDB and SQLite lands in the arenas, [heap] and the rest.
 */
function residentByKind() {
  const maps = [];
  let current = null;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = line.match(/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/);
    if (header) {
      current = { start: Number.parseInt(header[1], 16), end: Number.parseInt(header[2], 16), perms: header[3], name: header[4].trim(), kb: 0 };
      maps.push(current);
    }
    const rss = line.match(/^Rss:\s+(\d+) kB/);
    if (rss && current) current.kb = Number(rss[1]);
  }
  const kinds = {};
  const add = (kind, kb) => {
    kinds[kind] = (kinds[kind] ?? 0) + kb;
  };
  for (const [i, map] of maps.entries()) add(kindOf(map, maps[i - 1], maps[i + 1]), map.kb);
  return Object.fromEntries(Object.entries(kinds).map(([kind, kb]) => [kind, Math.round(kb / 1024)]));
}

/** What one smaps mapping holds (see residentByKind); `previous` and `next` are the mappings beside it. */
function kindOf(map, previous, next) {
  const MIB = 2 ** 20;
  const size = map.end - map.start;
  if (map.name && !map.name.startsWith('[')) return /lancedb/.test(map.name) ? 'lanceLibrary' : /bin\/node$/.test(map.name) ? 'nodeBinary' : 'otherFiles';
  if (map.name) return map.name === '[heap]' ? 'mallocMainArena' : 'otherAnonymous';
  if (map.perms !== 'rw-p') return 'otherAnonymous';
  const arena = map.start % (64 * MIB) === 0 && (size === 64 * MIB || (next?.perms === '---p' && next.start === map.end && next.end - map.start === 64 * MIB));
  if (arena) return 'mallocThreadArenas';
  if (size === 256 * 1024) return 'v8HeapPages';
  if (previous?.perms === '---p' && previous.end === map.start && previous.end - previous.start === 4096) return 'threadStacks';
  return 'otherAnonymous';
}

/** Resident MiB per mapping name (anonymous mappings together), the largest first. */
function largestMappings(count = 8) {
  const byName = new Map();
  let name = '';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
    if (header) name = (header[1] || '[anonymous]').replace(/.*node_modules\//, '');
    const rss = line.match(/^Rss:\s+(\d+) kB/);
    if (rss) byName.set(name, (byName.get(name) ?? 0) + Number(rss[1]));
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([mapping, kb]) => `${Math.round(kb / 1024)} MiB ${mapping}`);
}

let peak = sample();
let peakMappings = [];
let peakKinds = {};
let mostThreads = { count: 0, names: {} };
let ticks = 0;
const timer = setInterval(() => {
  const now = sample();
  if (now.rss > peak.rss) {
    peak = now;
    if (ticks % 10 === 0 || peakMappings.length === 0) {
      peakMappings = largestMappings();
      peakKinds = residentByKind();
    }
  }
  if (++ticks % 10 === 0) {
    const names = threadNames();
    const count = Object.values(names).reduce((a, b) => a + b, 0);
    if (count > mostThreads.count) mostThreads = { count, names };
  }
  if (ticks % 20 === 0) process.stderr.write(`[memory] ${JSON.stringify(now)}\n`);
}, 100);
timer.unref();

// Worker threads as they start and exit (piscina and the checkpointer construct node:worker_threads' Worker).
const BaseWorker = workerThreads.Worker;
let liveWorkers = 0;
workerThreads.Worker = class extends BaseWorker {
  constructor(file, options) {
    super(file, options);
    liveWorkers++;
    const label = options?.eval ? 'eval' : String(file).split('/').pop();
    process.stderr.write(`[memory] worker started (${label}), ${liveWorkers} up, t ${since()} s, rss ${mib(process.memoryUsage.rss())} MiB\n`);
    this.once('exit', () => {
      liveWorkers--;
      process.stderr.write(`[memory] worker exited (${label}), ${liveWorkers} up, t ${since()} s, rss ${mib(process.memoryUsage.rss())} MiB\n`);
    });
  }
};
syncBuiltinESMExports();

process.on('exit', () => {
  process.stderr.write(`[memory] peak ${JSON.stringify(peak)}\n`);
  process.stderr.write(`[memory] most threads ${mostThreads.count}: ${JSON.stringify(mostThreads.names)}\n`);
  process.stderr.write(`[memory] largest mappings near the peak:\n  ${peakMappings.join('\n  ')}\n`);
  process.stderr.write(`[memory] resident MiB by kind near the peak: ${JSON.stringify(peakKinds)}\n`);
});
