#!/usr/bin/env bash
# Supervised training: `sluice classify train` against the fastText command
# line (Debian's `fasttext supervised`) on the same examples, in the same
# run, round by round (sluice, then fastText, R times), each a whole process
# timed with its peak resident memory. The data are the repository's two
# labelled sets (kernels/fasttext/testdata/train): every tenth row held out
# for testing, the other rows repeated --copies times for training. sluice
# reads the JSONL; fastText reads the same examples as the __label__ file
# that sluice writes (--save-text). Reported per run: training words per
# second per thread (fastText's own progress figure, and sluice's), wall
# time, peak RSS; then medians, the ratio sluice/fastText, and P@1 on the
# held-out rows of each model (`sluice classify test`, which predicts what
# fastText predicts).
# Usage: bash bench/classify_train.sh [--copies N] [--rounds R] [--thread T]
#          [--set spam|udhr] [--work DIR] [-- extra training flags, fastText names]
# Extra flags are given to both in fastText's spelling, e.g. -- -wordNgrams 2.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${WORK:-/tmp/sluice-bench/classify-train}
COPIES=${COPIES:-20}
ROUNDS=${ROUNDS:-3}
THREAD=${THREAD:-1}
SET=${SET:-spam}
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --copies) COPIES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --thread) THREAD=$2; shift 2 ;;
    --set) SET=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "classify_train.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
log() { echo "# $*" >&2; }
die() { echo "classify_train.sh: $*" >&2; exit 1; }

command -v go >/dev/null || die "go toolchain not found"
if ! command -v fasttext >/dev/null; then
  log "installing fasttext"
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fasttext >&2
fi
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) is needed for the peak memory: apt-get install time"
case "$SET" in
  spam) DATA=$REPO/kernels/fasttext/testdata/train/spamassassin.jsonl.gz; FIELD=label ;;
  udhr) DATA=$REPO/kernels/fasttext/testdata/train/udhr.jsonl.gz; FIELD=lang ;;
  *) die "--set $SET: spam or udhr" ;;
esac

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
BIN=$WORK/sluice
(cd "$REPO" && go build -o "$BIN" .)

# Held-out rows and the repeated training rows.
zcat "$DATA" | awk 'NR % 10 == 0' > "$WORK/test.jsonl"
zcat "$DATA" | awk 'NR % 10 != 0' > "$WORK/train1.jsonl"
: > "$WORK/train.jsonl"
for _ in $(seq "$COPIES"); do cat "$WORK/train1.jsonl" >> "$WORK/train.jsonl"; done

# fastText's flags -> sluice's.
SFLAGS=()
for ((i = 0; i < ${#EXTRA[@]}; i += 2)); do
  name=${EXTRA[i]#-}
  case "$name" in
    wordNgrams) name=word-ngrams ;; minCount) name=min-count ;; minCountLabel) name=min-count-label ;;
    lrUpdateRate) name=lr-update-rate ;;
  esac
  SFLAGS+=("--$name" "${EXTRA[i + 1]}")
done

# The fastText file of the same examples (training once, with one thread
# and one epoch, only to write it).
"$BIN" classify train "$WORK/train.jsonl" --label-field "$FIELD" -o "$WORK/scratch.bin" \
  --save-text "$WORK/train.txt" --thread 1 --epoch 1 "${SFLAGS[@]}" --quiet
rm -f "$WORK/scratch.bin"
log "$SET x$COPIES: $(wc -l < "$WORK/train.jsonl") training rows ($(du -h "$WORK/train.txt" | cut -f1)), $(wc -l < "$WORK/test.jsonl") held out; thread $THREAD; extra: ${EXTRA[*]:-none}"

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
peak() { awk '/Maximum resident set size/ {print $NF / 1024}' "$1"; }   # MiB
p1() { "$BIN" classify test "$1" "$WORK/test.jsonl" --label-field "$FIELD" --json | sed -n 's/.*"precision":\([0-9.e-]*\).*/\1/p'; }

: > "$WORK/sluice.runs"; : > "$WORK/fasttext.runs"
for r in $(seq "$ROUNDS"); do
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$WORK/sluice.time" "$BIN" classify train "$WORK/train.jsonl" --label-field "$FIELD" \
    -o "$WORK/sluice.bin" --thread "$THREAD" --seed "$r" "${SFLAGS[@]}" --json > "$WORK/sluice.json"
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  wps=$(sed -n 's/.*"words_per_sec_per_thread":\([0-9.e+]*\).*/\1/p' "$WORK/sluice.json")
  echo "$wps $wall $(peak "$WORK/sluice.time") $(p1 "$WORK/sluice.bin")" >> "$WORK/sluice.runs"

  start=$(date +%s.%N)
  /usr/bin/time -v -o "$WORK/fasttext.time" fasttext supervised -input "$WORK/train.txt" -output "$WORK/fasttext" \
    -thread "$THREAD" -seed "$r" -verbose 2 "${EXTRA[@]}" 2> "$WORK/fasttext.err" > /dev/null
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  wps=$(tr '\r' '\n' < "$WORK/fasttext.err" | grep 'Progress: 100' | tail -1 | sed -n 's/.*words\/sec\/thread: *\([0-9]*\).*/\1/p')
  rm -f "$WORK/fasttext.vec"
  echo "$wps $wall $(peak "$WORK/fasttext.time") $(p1 "$WORK/fasttext.bin")" >> "$WORK/fasttext.runs"
  printf 'round %d: sluice %s | fasttext %s   (words/s/thread, wall s, peak MiB, P@1)\n' "$r" \
    "$(tail -1 "$WORK/sluice.runs")" "$(tail -1 "$WORK/fasttext.runs")"
done

for who in sluice fasttext; do
  printf '%-8s median: %10.0f words/s/thread  %6.2f s wall  %7.1f MiB peak  P@1 mean %.4f\n' "$who" \
    "$(cut -d' ' -f1 "$WORK/$who.runs" | median)" "$(cut -d' ' -f2 "$WORK/$who.runs" | median)" \
    "$(cut -d' ' -f3 "$WORK/$who.runs" | median)" "$(awk '{s += $4} END {print s / NR}' "$WORK/$who.runs")"
done
s=$(cut -d' ' -f1 "$WORK/sluice.runs" | median); f=$(cut -d' ' -f1 "$WORK/fasttext.runs" | median)
sw=$(cut -d' ' -f2 "$WORK/sluice.runs" | median); fw=$(cut -d' ' -f2 "$WORK/fasttext.runs" | median)
printf 'ratio sluice/fasttext: words/s/thread %.2f, wall time %.2f\n' "$(echo "$s / $f" | bc -l)" "$(echo "$sw / $fw" | bc -l)"
