#!/usr/bin/env bash
# MinHash near-dedup quality and speed on a generated corpus with planted
# duplicates: recall over the true pairs at Jaccard >= 0.85 and precision
# of the pairs sluice clusters, against the true clusters bench/gen
# writes (--tools DIR: DIR/gen_corpus.py), then the run's time and peak memory.
# Usage: bash bench/dedup/minhash.sh [--n DOCS] [--seed S] [--work DIR] [--tools DIR] [-- extra sluice flags]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
N=${N:-20000}; SEED=${SEED:-7}; WORK=${WORK:-/tmp/sluice-bench}; TOOLS=${TOOLS:-}
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "minhash.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$WORK"
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
CORPUS=$WORK/dups-n$N-s$SEED.jsonl
bench_corpus_ok "$CORPUS" || bench_gen "$N" "$SEED" "$CORPUS"
(cd "$REPO" && go build -o "$WORK/sluice" . && go build -o "$WORK/prcheck" ./bench/dedup/prcheck)
OUT=$WORK/minhash-out.parquet
/usr/bin/time -f "%e %M" -o "$WORK/minhash-time.txt" "$WORK/sluice" dedup minhash "$CORPUS" -o "$OUT" --overwrite --no-progress "${EXTRA[@]}" | sed -n '1,3p'
read -r secs rss <"$WORK/minhash-time.txt"
echo "corpus: $N docs, $(stat -c %s "$CORPUS") bytes; whole run (3 passes) ${secs}s, peak RSS $((rss / 1024)) MB, $(nproc) cores"
for t in 0.80 0.75 0.70; do
  "$WORK/prcheck" "${CORPUS%.jsonl}.dups.jsonl" "${OUT%.parquet}.removed.parquet" 0.85 "$t" | sed -n "$([ $t = 0.80 ] && echo 1,3p || echo 2,3p)"
done
