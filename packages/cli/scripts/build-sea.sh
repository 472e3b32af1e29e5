#!/usr/bin/env bash
# Release step: build sea/dossier, the CLI as one executable (Node's single executable application flow).
#   1. esbuild bundles src/main.ts and its dependencies into one CommonJS file (SEA runs one CJS script);
#   2. node --experimental-sea-config writes the preparation blob;
#   3. postject injects the blob into a copy of this machine's node binary.
# The server (`dossier serve`) is left out: it needs native modules that a SEA blob cannot carry.
# Not part of the test suite. Usage: bash packages/cli/scripts/build-sea.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=sea
rm -rf "$out"
mkdir -p "$out"

# Bundled ESM dependencies (fdir, under tinyglobby) call createRequire(import.meta.url): in CommonJS that is the
# file's own URL, which the banner computes (in the executable, __filename is the executable's path).
npx esbuild src/main.ts --bundle --platform=node --target=node20 --format=cjs \
  --external:@dossier/server --log-level=warning --outfile="$out/dossier.cjs" \
  --define:import.meta.url=__dossierUrl --banner:js="var __dossierUrl = require('node:url').pathToFileURL(__filename).href;"

cat > "$out/sea-config.json" <<'JSON'
{ "main": "dossier.cjs", "output": "sea-prep.blob", "disableExperimentalSEAWarning": true, "useCodeCache": true }
JSON
(cd "$out" && node --experimental-sea-config sea-config.json)

cp "$(command -v node)" "$out/dossier"
chmod u+w "$out/dossier"
postject_args=("$out/dossier" NODE_SEA_BLOB "$out/sea-prep.blob" --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2)
if [[ "$(uname)" == "Darwin" ]]; then
  codesign --remove-signature "$out/dossier"
  postject_args+=(--macho-segment-name NODE_SEA)
fi
npx postject "${postject_args[@]}" 2>&1 | grep -v "Can't find string offset" || true
if [[ "$(uname)" == "Darwin" ]]; then codesign --sign - "$out/dossier"; fi

"$out/dossier" --version >/dev/null
echo "built $out/dossier ($(du -h "$out/dossier" | cut -f1)); try: $out/dossier --help"
