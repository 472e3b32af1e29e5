#!/usr/bin/env bash
# The conversion benchmark compares PDF text with poppler's pdftotext; install it from Debian when missing.
set -euo pipefail
if ! command -v pdftotext >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null
fi
pdftotext -v 2>&1 | head -1
