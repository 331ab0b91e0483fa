#!/usr/bin/env bash
# Decontamination speed: `sluice decontaminate` over a generated corpus
# against a generated evaluation set (100k multiple-choice questions by
# default), on one core, reported as MB/s per core of the corpus's JSONL
# bytes, next to two peers timed in the same run:
#   - `sluice convert` of the same corpus on one core: the same reading and
#     Parquet writing without the n-gram scan, so the ratio is the cost of
#     the scan itself;
#   - GNU grep -F -f with the first 13 words of every question as fixed
#     strings: the plain multi-pattern search baseline (raw bytes, no
#     normal form, so it misses re-punctuated quotes), timed over the
#     first --grep-bytes of the corpus because it is much slower.
# Also checks that every planted quote is found and nothing else.
# Usage: bash bench/contam/run.sh [--bytes 1e9] [--examples 100000] [--rounds 3] [--work DIR]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BYTES=${BYTES:-1e9}; EXAMPLES=${EXAMPLES:-100000}; ROUNDS=${ROUNDS:-3}; WORK=${WORK:-/tmp/sluice-bench/contam}
GREP_BYTES=${GREP_BYTES:-50000000}
while [ $# -gt 0 ]; do
  case "$1" in
    --bytes) BYTES=$2; shift 2 ;;
    --examples) EXAMPLES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --grep-bytes) GREP_BYTES=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
DATA=$WORK/b$BYTES-e$EXAMPLES
mkdir -p "$DATA"
[ -f /usr/share/dict/words ] || { apt-get update -qq && apt-get install -y -qq wamerican >/dev/null; }
(cd "$REPO" && go build -o "$WORK/sluice" . && go build -o "$WORK/gen" ./bench/contam/gen)
[ -f "$DATA/leaks.txt" ] || "$WORK/gen" -examples "$EXAMPLES" -bytes "$BYTES" -out "$DATA"
CORPUS=$DATA/corpus.jsonl
SIZE=$(stat -c %s "$CORPUS")
head -c "$GREP_BYTES" "$CORPUS" >"$DATA/grep-part.jsonl"
cat "$CORPUS" "$DATA/eval.jsonl" >/dev/null # into the page cache
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$WORK/times.tsv"
for r in $(seq "$ROUNDS"); do
  d=$(secs "$WORK/sluice" decontaminate "$CORPUS" --eval "$DATA/eval.jsonl" --eval-fields question,choices -o "$WORK/out" --overwrite --workers 1 --no-progress)
  c=$(secs "$WORK/sluice" convert "$CORPUS" -o "$WORK/conv" --overwrite --workers 1 --no-progress)
  g=$(secs sh -c "LC_ALL=C grep -c -F -f '$DATA/patterns.txt' '$DATA/grep-part.jsonl' || true")
  printf '%s\t%s\t%s\n' "$d" "$c" "$g" >>"$WORK/times.tsv"
done
/usr/bin/time -f %M -o "$WORK/rss.txt" "$WORK/sluice" decontaminate "$CORPUS" --eval "$DATA/eval.jsonl" --eval-fields question,choices -o "$WORK/out" --overwrite --workers 1 --no-progress >"$WORK/report.txt"
d=$(cut -f1 "$WORK/times.tsv" | median); c=$(cut -f2 "$WORK/times.tsv" | median); g=$(cut -f3 "$WORK/times.tsv" | median)
index=$(sed -n 's/.*, \([0-9.]*\)s$/\1/p' "$WORK/report.txt" | head -1)
removed=$(sed -n 's/^\([0-9]*\) of [0-9]* corpus rows contain.*/\1/p' "$WORK/report.txt")
echo "decontaminate  $(date -u +%FT%RZ)  host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "corpus $SIZE bytes ($(wc -l <"$CORPUS") docs), eval $EXAMPLES examples; rounds $ROUNDS, whole-process medians, 1 worker"
awk -v s="$SIZE" -v d="$d" -v c="$c" -v g="$g" -v gb="$GREP_BYTES" -v ix="$index" 'BEGIN {
  printf "%-44s %8s %12s %8s\n", "tool", "secs", "MB/s/core", "ratio"
  printf "%-44s %8.2f %12.1f %8s\n", "sluice decontaminate (index " ix "s included)", d, s/1e6/d, "1.00x"
  printf "%-44s %8.2f %12.1f %7.2fx\n", "sluice decontaminate, scan only (minus index)", d-ix, s/1e6/(d-ix), (d-ix)/d
  printf "%-44s %8.2f %12.1f %7.2fx\n", "sluice convert (same I/O, no scan)", c, s/1e6/c, c/d
  printf "%-44s %8.2f %12.1f %7.2fx\n", "grep -F -f 13-word prefixes (" gb/1e6 " MB)", g, gb/1e6/g, (s/1e6/d)/(gb/1e6/g)
}'
echo "(ratio: sluice decontaminate's MB/s over the row's; > 1 means sluice decontaminate is faster)"
echo "planted quotes: $(cat "$DATA/leaks.txt"); rows found contaminated: $removed; peak RSS of sluice decontaminate: $(( $(cat "$WORK/rss.txt") / 1024 )) MB"
rm -rf "$WORK/out" "$WORK/conv" "$DATA/grep-part.jsonl"
