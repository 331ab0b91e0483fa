#!/usr/bin/env bash
# Exact dedup on the same Parquet file: `sluice dedup exact` (both passes and
# the writing of the kept rows) against DuckDB doing the same job (first row
# of every distinct text, in input order, written to Parquet) and against
# DuckDB's SELECT count(DISTINCT hash(text)), which only counts; interleaved,
# at 1 and 2 threads. Uses the corpus and peers that bench/convert.sh sets up
# in WORK. Without node and npm, or without the DuckDB package in WORK
# (bash bench/convert.sh --only sluice installs none), DuckDB is skipped
# and only sluice is timed.
# Usage: bash bench/dedup/exact.sh [--work DIR] [--rounds R]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${WORK:-/tmp/sluice-bench}
ROUNDS=${ROUNDS:-3}
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) echo "exact.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
CORPUS=$(ls "$WORK"/corpus-n*-s*.jsonl 2>/dev/null | grep -v dups | head -1)
[ -n "$CORPUS" ] || { echo "exact.sh: no corpus in $WORK; run bash bench/convert.sh first" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
DUCK=1
if ! bench_has_node; then
  DUCK=0; echo "# skipping DuckDB: node and npm are needed to run it (apt-get install nodejs npm; see bench/README.md)" >&2
elif [ ! -d "$WORK/peers-node/node_modules/@duckdb" ]; then
  DUCK=0; echo "# skipping DuckDB: no DuckDB package in $WORK/peers-node; bash bench/convert.sh --only 'sluice duckdb' installs it" >&2
fi
export NODE_PATH=$WORK/peers-node/node_modules
(cd "$REPO" && go build -o "$WORK/sluice" .)
PQ=$WORK/dedup-input.parquet
[ -f "$PQ" ] || "$WORK/sluice" convert "$CORPUS" -o "$PQ" --no-progress >/dev/null
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$WORK/dedup-times.tsv"
for r in $(seq "$ROUNDS"); do
  for t in 1 2; do
    s=$(secs "$WORK/sluice" dedup exact "$PQ" -o "$WORK/dedup-out.parquet" --overwrite --workers "$t" --no-progress)
    d=-; j=-
    if [ $DUCK = 1 ]; then
      d=$(secs node "$REPO/bench/dedup/duckdb_distinct.js" "$PQ" "$t")
      j=$(secs node "$REPO/bench/dedup/duckdb_dedup.js" "$PQ" "$WORK/dedup-duckdb.parquet" "$t")
    fi
    printf '%s\t%s\t%s\t%s\n' "$t" "$s" "$d" "$j" >>"$WORK/dedup-times.tsv"
  done
done
echo "exact dedup  $(date -u +%FT%RZ)  host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: $PQ ($(stat -c %s "$PQ") bytes, from $(basename "$CORPUS")); rounds $ROUNDS; whole-process medians"
printf '%-8s %14s %15s %14s %12s %12s\n' threads sluice_dedup_s duckdb_dedup_s duckdb_count_s vs_dedup vs_count
for t in 1 2; do
  s=$(awk -v t="$t" '$1==t {print $2}' "$WORK/dedup-times.tsv" | median)
  d=$(awk -v t="$t" '$1==t {print $3}' "$WORK/dedup-times.tsv" | median)
  j=$(awk -v t="$t" '$1==t {print $4}' "$WORK/dedup-times.tsv" | median)
  if [ $DUCK = 1 ]; then
    awk -v t="$t" -v s="$s" -v d="$d" -v j="$j" 'BEGIN {printf "%-8s %14.2f %15.2f %14.2f %11.2fx %11.2fx\n", t, s, j, d, j/s, d/s}'
  else
    awk -v t="$t" -v s="$s" 'BEGIN {printf "%-8s %14.2f %15s %14s %12s %12s\n", t, s, "-", "-", "-", "-"}'
  fi
done
echo "(ratio > 1: sluice faster; vs_dedup: DuckDB doing the same job; vs_count: DuckDB only counting distinct hashes)"
