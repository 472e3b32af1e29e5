#!/usr/bin/env bash
# Issue 11's memory figure as a user meets it: build and pack @dossier/core and @dossier/adapters, npm-install the
# tarballs into a temporary app, and ingest a BEIR corpus (default SciFact, read in place) with plain node, once with
# the default allocator, once with MALLOC_ARENA_MAX=2, and once with jemalloc preloaded when the machine has it.
# Prints one JSON line per run (documents/s, peak RSS, peak JS heap, and the bare LanceDB load of the same rows).
#   bash bench/ingest/installed-memory.sh [corpus.jsonl] [runs per allocator, default 1]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="${1:-$root/../shared/eval/beir/scifact/corpus.jsonl}"
runs="${2:-1}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && node_modules/.bin/tsc -b tsconfig.build.json)
for pkg in core adapters; do (cd "$root/packages/$pkg" && npx -y pnpm@10 pack --pack-destination "$work/packs" >/dev/null); done
mkdir -p "$work/app" && cd "$work/app"
echo '{"name":"installed-memory","private":true,"type":"module"}' > package.json
npm install --prefer-offline --no-audit --no-fund "$work"/packs/*.tgz >/dev/null 2>&1
# Node 22.16+ runs SQLite on node:sqlite. Earlier Nodes need the optional peer better-sqlite3: install it, and build it
# from source where npm skipped its install script (offline, with this Node's headers).
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 16) ? 0 : 1)'; then
  npm install --prefer-offline --no-audit --no-fund better-sqlite3@12 >/dev/null 2>&1
  node -e "new (require('better-sqlite3'))(':memory:')" 2>/dev/null ||
    npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")" npm rebuild better-sqlite3 >/dev/null
fi
cp "$root/bench/ingest/installed-memory.mjs" "$root/bench/ingest/bare-load.mjs" "$root/bench/ingest/warm-up.mjs" .
jemalloc="$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -1 || true)"
for run in $(seq "$runs"); do
  echo "default allocator: $(node installed-memory.mjs "$corpus")"
  echo "MALLOC_ARENA_MAX=2: $(MALLOC_ARENA_MAX=2 node installed-memory.mjs "$corpus")"
  [[ -z "$jemalloc" ]] || echo "jemalloc ($jemalloc): $(LD_PRELOAD="$jemalloc" node installed-memory.mjs "$corpus")"
done
