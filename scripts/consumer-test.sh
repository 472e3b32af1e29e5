#!/usr/bin/env bash
# Install Dossier the way a user does, outside the workspace, and use it with plain `node` (issue 10):
#   1. build every package (tsc -b: ESM JavaScript and .d.ts under each package's dist/);
#   2. `pnpm pack` every package (publishConfig swaps the source exports for dist/ ones);
#   3. npm-install the tarballs into a fresh temporary app;
#   4. run a plain node ESM script (no loader) that ingests a folder and searches it, and the installed
#      `dossier --help`, timed.
# Usage: bash scripts/consumer-test.sh [app-dir]   (default: a new temporary directory, removed at the end)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
packs="$(mktemp -d)"
app="${1:-$(mktemp -d)}"
cleanup() { rm -rf "$packs"; [[ -n "${1:-}" ]] || rm -rf "$app"; }
trap cleanup EXIT

(cd "$root" && npx -y pnpm@10 run build >/dev/null)
for pkg in core adapters server cli; do
  (cd "$root/packages/$pkg" && npx -y pnpm@10 pack --pack-destination "$packs" >/dev/null)
done
ls -l "$packs"

mkdir -p "$app/docs"
cd "$app"
echo '{ "name": "dossier-consumer", "private": true, "type": "module" }' > package.json
start=$(date +%s)
npm install --no-audit --no-fund --prefer-offline "$packs"/*.tgz >/dev/null
# npm 11 may skip install scripts it was not told to allow: build better-sqlite3 when it has no binary.
node -e "new (require('better-sqlite3'))(':memory:')" 2>/dev/null || npm rebuild better-sqlite3 >/dev/null
echo "install from tarballs: $(( $(date +%s) - start )) s"

printf '# Tides\n\nThe moon pulls the ocean, which makes tides twice a day.\n' > docs/tides.md
printf '# Bread\n\nYeast makes dough rise before baking.\n' > docs/bread.md
cp "$root/scripts/consumer/ingest-and-search.mjs" .
node ingest-and-search.mjs docs "why are there tides" | tee out.txt
grep -q 'tides.md' out.txt

start=$(date +%s%N)
./node_modules/.bin/dossier --help >/dev/null
echo "dossier --help: $(( ($(date +%s%N) - start) / 1000000 )) ms"

cp "$root/scripts/consumer/consumer.ts" .
cat > tsconfig.json <<JSON
{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022", "strict": true,
  "noEmit": true, "skipLibCheck": true, "typeRoots": ["$root/node_modules/@types"], "types": ["node"] },
  "files": ["consumer.ts"] }
JSON
"$root/node_modules/.bin/tsc" -p . && echo "consumer.ts type-checks (nodenext)"
