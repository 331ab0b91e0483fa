#!/usr/bin/env bash
# MinHash near-dedup, sluice and datasketch side by side on one generated
# corpus with planted duplicates (bench/gen, or --tools DIR: DIR/gen_corpus.py):
# documents per CPU second of each whole run (user + sys, one core: sluice
# with -j 1, datasketch is one Python thread), in interleaved rounds with
# medians, then the quality of each against the generator's true clusters
# (bench/dedup/prcheck): recall over the true pairs at Jaccard >= 0.85,
# precision of the pairs in one cluster and of the removals. Without python3
# and its datasketch package (pip install datasketch), sluice runs alone.
# --base BIN adds an older sluice binary to the rounds, for before and after.
# Usage: bash bench/dedup/minhash.sh [--n DOCS] [--seed S] [--rounds R] [--work DIR] [--tools DIR] [--base BIN] [-- extra sluice flags]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
N=${N:-20000}; SEED=${SEED:-42}; ROUNDS=${ROUNDS:-3}; WORK=${WORK:-/tmp/sluice-bench}; TOOLS=${TOOLS:-}; BASE=${BASE:-}
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
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
PEER=1
if ! command -v python3 >/dev/null 2>&1; then
  PEER=0; echo "# skipping datasketch: no python3" >&2
elif ! python3 -c 'import datasketch' 2>/dev/null; then
  PEER=0; echo "# skipping datasketch: python3 has no datasketch package (pip install datasketch)" >&2
fi
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "minhash.sh: --base $BASE is not an executable" >&2; exit 2; }

# cpu LABEL CMD...: runs CMD, appends "LABEL user+sys peak_kb wall" to the
# times file.
TIMES=$WORK/minhash-times.tsv
: >"$TIMES"
cpu() {
  local label=$1; shift
  /usr/bin/time -f "%U %S %M %e" -o "$WORK/minhash-time.txt" "$@" >/dev/null
  awk -v l="$label" '{printf "%s\t%.3f\t%d\t%.2f\n", l, $1 + $2, $3, $4}' "$WORK/minhash-time.txt" >>"$TIMES"
}
OUT=$WORK/minhash-out.parquet
for _ in $(seq "$ROUNDS"); do
  cpu sluice "$WORK/sluice" dedup minhash "$CORPUS" -o "$OUT" --overwrite --no-progress -j 1 "${EXTRA[@]}"
  [ -z "$BASE" ] || cpu base "$BASE" dedup minhash "$CORPUS" -o "$WORK/minhash-base.parquet" --overwrite --no-progress -j 1 "${EXTRA[@]}"
  [ $PEER = 0 ] || cpu datasketch python3 "$REPO/bench/dedup/datasketch_minhash.py" "$CORPUS" "$WORK/minhash-datasketch.removed.jsonl"
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "MinHash dedup  $(date -u +%FT%RZ)  host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "corpus: $(basename "$CORPUS") from $(bench_gen_name), $N docs, $(stat -c %s "$CORPUS") bytes; 128 permutations; $ROUNDS rounds; whole-process medians, one core each"
printf '%-11s %10s %14s %12s %10s\n' tool cpu_s docs_per_cpu_s peak_rss_mb wall_s
for tool in sluice base datasketch; do
  grep -q "^$tool	" "$TIMES" || continue
  c=$(awk -v t="$tool" '$1==t {print $2}' "$TIMES" | median)
  m=$(awk -v t="$tool" '$1==t {print $3}' "$TIMES" | median)
  w=$(awk -v t="$tool" '$1==t {print $4}' "$TIMES" | median)
  awk -v t="$tool" -v c="$c" -v m="$m" -v w="$w" -v n="$N" 'BEGIN {printf "%-11s %10.2f %14.0f %12.0f %10.2f\n", t, c, n / c, m / 1024, w}'
done
s=$(awk '$1=="sluice" {print $2}' "$TIMES" | median)
for tool in base datasketch; do
  grep -q "^$tool	" "$TIMES" || continue
  o=$(awk -v t="$tool" '$1==t {print $2}' "$TIMES" | median)
  awk -v t="$tool" -v s="$s" -v o="$o" 'BEGIN {printf "sluice vs %s: %.2fx the documents per CPU second\n", t, o / s}'
done
echo
echo "quality against the true clusters ($(basename "${CORPUS%.jsonl}").dups.jsonl):"
score() {
  echo "$1:"
  for t in 0.80 0.75 0.70; do
    "$WORK/prcheck" "${CORPUS%.jsonl}.dups.jsonl" "$2" 0.85 "$t" | sed -n "$([ $t = 0.80 ] && echo 1,3p || echo 2,3p)" | sed 's/^/  /'
  done
}
score sluice "${OUT%.parquet}.removed.parquet"
[ $PEER = 0 ] || score datasketch "$WORK/minhash-datasketch.removed.jsonl"
