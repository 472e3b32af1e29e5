#!/usr/bin/env bash
# Every figure of issue 11 in one command, each bench in turn (about 35 minutes on 2 cores; nothing else should run):
#   bash bench/ingest/all.sh [bench/RESULTS.md]
# With a file, each bench also writes its section there (their `--out`); installed-memory.sh prints only.
#   - throughput.ts: SciFact through the library, 1 and 4 uploaders, beside the bare LanceDB load; peak RSS (tsx)
#   - responsiveness.ts: event-loop delay and GET /v1/collections beside SciFact over HTTP (8 uploaders) and the
#     pathological files
#   - embedder-overlap.ts: end to end ÷ a 5 ms/chunk embedder's own throughput, 1 and 4 uploaders
#   - installed-memory.sh: peak RSS and documents/s of the installed packages (default allocator, MALLOC_ARENA_MAX=2, jemalloc)
#   - latency.ts: 100k-chunk ingestion (chunks/s) and query ÷ same-shape bare LanceDB, lexical and hybrid
#   - sustained-load.ts: 50 queries/s over HTTP for 10 minutes right after ingesting 2,000 SciFact documents
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-}
run() { node --import tsx "$@" ${out:+--out "$out"}; }
run bench/ingest/throughput.ts
run bench/ingest/throughput.ts --uploaders 4
run bench/ingest/responsiveness.ts
run bench/ingest/embedder-overlap.ts
run bench/ingest/embedder-overlap.ts --uploaders 4
bash bench/ingest/installed-memory.sh "" 1
run bench/latency.ts --chunks 100000
run bench/latency.ts --chunks 100000 --embedding-model fake-384
run bench/sustained-load.ts --seconds 600
