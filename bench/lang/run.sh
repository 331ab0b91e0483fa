#!/usr/bin/env bash
# Language ID on one core: sluice's built-in lid.176 predictor against the
# fastText command line (Debian's `fasttext predict-prob`), on the same file
# of 1 kB multilingual documents, in the same run, round by round. Both are
# timed as whole processes (load the model, read the file, print one label
# and probability a line); sluice also reports its prediction loop alone and
# the resident memory its embedded model adds. The two outputs are compared
# line by line.
# Usage: bash bench/lang/run.sh [--docs N] [--rounds R] [--work DIR]
# Run it under the shared lock: flock /tmp/sluice-bench.lock bash bench/lang/run.sh
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${WORK:-/tmp/sluice-bench/lang}
DOCS=${DOCS:-20000}
ROUNDS=${ROUNDS:-3}
while [ $# -gt 0 ]; do
  case "$1" in
    --docs) DOCS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
log() { echo "# $*" >&2; }
die() { echo "run.sh: $*" >&2; exit 1; }

command -v go >/dev/null || die "go toolchain not found"
if ! command -v fasttext >/dev/null; then
  log "installing fasttext"
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fasttext >&2
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
BIN=$WORK/lang
MODEL=$WORK/lid.176.ftz
FILE=$WORK/docs-$DOCS.txt
(cd "$REPO" && go build -o "$BIN" ./bench/lang)
cp "$REPO/kernels/langid/models/lid.176.ftz" "$MODEL"
(cd "$REPO" && "$BIN" -make-docs "$DOCS" -seed 1 -out "$FILE")
log "$(wc -lc < "$FILE" | awk '{printf "%d documents, %.1f MB", $1, $2/1e6}') in $FILE; fasttext $(dpkg-query -W -f '${Version}' fasttext 2>/dev/null || echo '?')"

now() { date +%s.%N; }
best_sluice=0; best_ft=0
for r in $(seq 1 "$ROUNDS"); do
  t0=$(now)
  taskset -c 0 "$BIN" -predict "$FILE" > "$WORK/sluice.out" 2> "$WORK/sluice.json"
  t1=$(now)
  taskset -c 0 fasttext predict-prob "$MODEL" "$FILE" 1 > "$WORK/fasttext.out"
  t2=$(now)
  s=$(echo "$DOCS / ($t1 - $t0)" | bc -l); f=$(echo "$DOCS / ($t2 - $t1)" | bc -l)
  printf 'round %d: sluice %8.0f docs/s (process), fasttext predict-prob %8.0f docs/s, ratio %.2f\n' "$r" "$s" "$f" "$(echo "$s / $f" | bc -l)"
  best_sluice=$(echo "if ($s > $best_sluice) $s else $best_sluice" | bc -l)
  best_ft=$(echo "if ($f > $best_ft) $f else $best_ft" | bc -l)
done
printf 'best of %d: sluice %.0f docs/s, fasttext %.0f docs/s, ratio %.2f (one core, 1 kB documents)\n' "$ROUNDS" "$best_sluice" "$best_ft" "$(echo "$best_sluice / $best_ft" | bc -l)"
echo "sluice last round (prediction loop alone, memory): $(cat "$WORK/sluice.json")"
# Same labels, probabilities within 1e-4 (both print 6 significant digits).
paste -d ' ' "$WORK/sluice.out" "$WORK/fasttext.out" | awk '
  { n++; if ($1 != $3) lab++; d = $2 - $4; if (d < 0) d = -d; if (d > 1e-4) prob++ }
  END { printf "outputs: %d lines, %d labels differ, %d probabilities differ by more than 1e-4\n", n, lab, prob; exit (lab + prob > 0) }'
