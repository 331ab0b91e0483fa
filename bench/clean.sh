#!/usr/bin/env bash
# The whole clean pipeline (normalize, the four quality rule sets, PII
# masking) over a generated corpus, per core: MB/s and docs/s of the full
# run, of a plain conversion of the same file in the same rounds, and the
# stages' own cost (their difference); then the profile's top lines.
# Usage: bash bench/clean.sh [--n DOCS] [--work DIR] [--rounds R] [--tools DIR] [--seed S]
# The corpus comes from bench/gen (--tools DIR: DIR/gen_corpus.py).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${N:-100000}
WORK=${WORK:-/tmp/sluice-bench}
ROUNDS=${ROUNDS:-3}
TOOLS=${TOOLS:-}
SEED=${SEED:-42}
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "clean.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
CORPUS=$WORK/corpus-n$N-s$SEED.jsonl
bench_corpus_ok "$CORPUS" || bench_gen "$N" "$SEED" "$CORPUS"
(cd "$REPO" && go build -o "$WORK/sluice" .)
BYTES=$(stat -c %s "$CORPUS")
STAGES=(--normalize --filters gopher_quality,gopher_repetition,c4,fineweb --pii email,phone,ip)

secs() { # command... -> wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: >"$WORK/clean-times.tsv"
for r in $(seq "$ROUNDS"); do
  c=$(secs "$WORK/sluice" convert "$CORPUS" -o "$WORK/conv.parquet" --overwrite --workers 1 --no-progress)
  k=$(secs "$WORK/sluice" clean "$CORPUS" -o "$WORK/clean.parquet" --overwrite --workers 1 --no-progress "${STAGES[@]}")
  printf '%s\t%s\n' "$c" "$k" >>"$WORK/clean-times.tsv"
  echo "# round $r: convert ${c}s, clean ${k}s" >&2
done
conv=$(cut -f1 "$WORK/clean-times.tsv" | median)
clean=$(cut -f2 "$WORK/clean-times.tsv" | median)
"$WORK/sluice" --cpuprofile "$WORK/clean.prof" clean "$CORPUS" -o "$WORK/clean.parquet" --overwrite --workers 1 --no-progress "${STAGES[@]}" >"$WORK/clean-summary.txt"

echo "clean pipeline benchmark  $(date -u +%FT%RZ)  host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "corpus: $N docs, $BYTES bytes; rounds $ROUNDS; --workers 1 (one core)"
awk -v b="$BYTES" -v n="$N" -v c="$conv" -v k="$clean" 'BEGIN {
  printf "%-28s %8s %9s %10s\n", "run", "median_s", "MB/s", "docs/s"
  printf "%-28s %8.2f %9.1f %10.0f\n", "convert (read+write only)", c, b/1e6/c, n/c
  printf "%-28s %8.2f %9.1f %10.0f\n", "clean (all stages)", k, b/1e6/k, n/k
  if (k > c) printf "%-28s %8.2f %9.1f %10.0f\n", "stages alone (difference)", k-c, b/1e6/(k-c), n/(k-c)
}'
echo
sed -n '/^  normalize/,$p' "$WORK/clean-summary.txt"
echo
echo "profile, top functions by cumulative time:"
go tool pprof -top -cum -nodecount=40 "$WORK/sluice" "$WORK/clean.prof" 2>/dev/null |
  grep -E 'kernels|stages|pqio.encode|jsonl.\(\*Decoder\)|zstd.\(\*fastEncoder\)' | head -15
