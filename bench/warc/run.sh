#!/usr/bin/env bash
# WARC reading (MB/s of gzipped input per core) and HTML text extraction
# (pages/s per core) on a generated crawl of 50-100 KB pages, each against
# its peers in the same run: bare gzip decompression and nlnwa/gowarc for
# reading, go-trafilatura for extraction. Timings hold the shared bench lock.
# Usage: bash bench/warc/run.sh [--pages N] [--work DIR]
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PAGES=2000; WORK=${WORK:-/tmp/sluice-bench}
while [ $# -gt 0 ]; do
  case "$1" in
    --pages) PAGES=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$WORK"
(cd "$HERE" && go build -o "$WORK/warcbench" .)
CRAWL=$WORK/pages-$PAGES.warc.gz
[ -f "$CRAWL" ] || "$WORK/warcbench" gen -n "$PAGES" -o "$CRAWL"
flock /tmp/sluice-bench.lock "$WORK/warcbench" read "$CRAWL"
flock /tmp/sluice-bench.lock "$WORK/warcbench" extract -pages 500 "$CRAWL"
# The whole command on one core: WARC in, main-content text out as Parquet.
(cd "$HERE/../.." && go build -o "$WORK/sluice" .)
flock /tmp/sluice-bench.lock "$WORK/sluice" extract "$CRAWL" -o "$WORK/warc-extract-out" --mode main --overwrite --no-progress -j 1 | sed -n '1,2p'
