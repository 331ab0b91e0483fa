#!/usr/bin/env bash
# The cleaning pipeline on one core: `sluice clean --normalize --filters
# gopher_quality,gopher_repetition,c4,fineweb --pii email,phone,ip -j 1` on a
# generated corpus, and `sluice convert -j 1` of the same file (the same
# reading and writing without the stages), in interleaved rounds; medians of
# MB/s per core (input bytes / user+sys CPU seconds) and of wall time; the
# stages alone, per core, from the Go benchmark BenchmarkCleanStages; the
# profile's top lines.
# Usage: bash bench/clean.sh [--n DOCS] [--work DIR] [--rounds R] [--seed S]
#                            [--tools DIR] [--base BIN] [--bench-count K]
#                            [-- SLUICE-FLAGS...]
# Every option can also be given by environment: N, WORK, ROUNDS, SEED,
# TOOLS, BASE, BENCH_COUNT. --base BIN adds the clean command of another
# sluice binary (an older build) to every round, for before/after ratios.
# Flags after -- go to every sluice command (convert, clean and base), e.g.
# -- --compression-level 1 to compare builds whose default levels differ.
# The timed part takes /tmp/sluice-bench.lock (set SLUICE_BENCH_LOCKED=1 if
# you hold it already).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${N:-100000}
WORK=${WORK:-/tmp/sluice-bench}
ROUNDS=${ROUNDS:-3}
SEED=${SEED:-42}
TOOLS=${TOOLS:-}
BASE=${BASE:-}
BENCH_COUNT=${BENCH_COUNT:-6}
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --bench-count) BENCH_COUNT=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "clean.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "clean.sh: $*" >&2; exit 1; }
log() { echo "# $*" >&2; }

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
command -v go >/dev/null || die "go toolchain not found"
[ -z "$BASE" ] || [ -x "$BASE" ] || die "--base $BASE: not an executable"
if [ ! -x /usr/bin/time ]; then
  command -v apt-get >/dev/null || die "/usr/bin/time (GNU time) is needed: install the time package"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing time"
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq time >&2
fi
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"

CORPUS=$WORK/corpus-n$N-s$SEED.jsonl
bench_corpus_ok "$CORPUS" || { log "generating $CORPUS with $(bench_gen_name)"; bench_gen "$N" "$SEED" "$CORPUS"; }
log "building sluice"
(cd "$REPO" && go build -o "$WORK/sluice" .) || die "go build failed"
log "building the stage benchmark"
(cd "$REPO" && go test -c -o "$WORK/stages.test" ./stages) || die "go test -c ./stages failed"
BYTES=$(stat -c %s "$CORPUS")
STAGES=(--normalize --filters gopher_quality,gopher_repetition,c4,fineweb --pii email,phone,ip)
COMMON=(-j 1 --overwrite --no-progress ${EXTRA[@]+"${EXTRA[@]}"})

# run NAME CMD...: times one run; appends "NAME wall user sys rss_kb" to the
# runs file.
run() {
  local name=$1 t
  shift
  t=$(bench_time "$WORK/clean-run-$name.log" "$@") || die "$name failed; see $WORK/clean-run-$name.log"
  echo "$name $t" >>"$WORK/clean-runs.txt"
}

timed() {
  cat "$CORPUS" >/dev/null # into the page cache before the first round
  : >"$WORK/clean-runs.txt"
  for r in $(seq "$ROUNDS"); do
    run convert "$WORK/sluice" convert "$CORPUS" -o "$WORK/clean-conv.parquet" "${COMMON[@]}"
    run clean "$WORK/sluice" clean "$CORPUS" -o "$WORK/clean-out" "${COMMON[@]}" "${STAGES[@]}"
    [ -z "$BASE" ] || run base "$BASE" clean "$CORPUS" -o "$WORK/clean-base" "${COMMON[@]}" "${STAGES[@]}"
    log "round $r of $ROUNDS: $(tail -n "$([ -z "$BASE" ] && echo 2 || echo 3)" "$WORK/clean-runs.txt" | awk '{printf "%s %.2fs cpu  ", $1, $3+$4}')"
  done
  # The stages alone, on one core: the stages of the clean command over one
  # batch of generated documents, in memory.
  (cd "$REPO/stages" && "$WORK/stages.test" -test.run '^$' -test.bench 'CleanStages/filter' -test.cpu 1 \
    -test.count "$BENCH_COUNT") >"$WORK/clean-stages-bench.txt" 2>&1 || die "the stage benchmark failed; see $WORK/clean-stages-bench.txt"
  "$WORK/sluice" --cpuprofile "$WORK/clean.prof" clean "$CORPUS" -o "$WORK/clean-out" "${COMMON[@]}" "${STAGES[@]}" >/dev/null 2>&1
}
bench_locked timed

{
  echo "clean benchmark  $(date -u +%FT%RZ)  host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "corpus: $N docs ($(bench_gen_name) --seed $SEED), $BYTES bytes; $ROUNDS rounds; -j 1"
  echo "command: sluice clean ${STAGES[*]} ${COMMON[*]}"
  echo
  awk -v b="$BYTES" '
    { wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " ($3 + $4); if ($5 > rss[$1]) rss[$1] = $5; seen[$1] = 1 }
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int((n + 1) / 2)]
    }
    END {
      printf "%-9s %9s %9s %15s %13s %8s\n", "run", "median_s", "cpu_s", "MB/s per core", "MB/s (wall)", "rss_MB"
      split("convert clean base", order, " ")
      for (k = 1; k <= 3; k++) {
        name = order[k]
        if (!seen[name]) continue
        w = median(wall[name]); c = median(cpu[name])
        mb[name] = b / 1e6 / c
        printf "%-9s %9.2f %9.2f %15.1f %13.1f %8.0f\n", name, w, c, mb[name], b / 1e6 / w, rss[name] / 1024
        cs[name] = c
      }
      if (cs["clean"] > cs["convert"]) printf "%-9s %9s %9.2f %15.1f   (clean minus convert)\n", "stages", "", cs["clean"] - cs["convert"], b / 1e6 / (cs["clean"] - cs["convert"])
      if (seen["base"]) printf "\nclean / base, MB/s per core: %.2fx\n", mb["clean"] / mb["base"]
    }' "$WORK/clean-runs.txt"
  echo
  echo "stages alone, one core (go test ./stages -bench CleanStages/filter -cpu 1, $BENCH_COUNT runs; cpu-MB/s by CPU time):"
  awk '/^BenchmarkCleanStages/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "MB/s") w = w " " $i; if ($(i+1) == "cpu-MB/s") c = c " " $i } }
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int((n + 1) / 2)]
    }
    END { printf "  median %.1f cpu-MB/s, %.1f MB/s by wall time\n", median(c), median(w) }' "$WORK/clean-stages-bench.txt"
  echo
  echo "profile of one clean run, top functions by cumulative time:"
  go tool pprof -top -cum -nodecount=60 "$WORK/sluice" "$WORK/clean.prof" 2>/dev/null |
    grep -v OrderedMap | grep -E 'stages\.|kernels/|columnar\.|dataset\.\(\*Writer\)\.Encode|jsonlSource|runtime\.(memmove|memclrNoHeapPointers|mallocgc)$' | head -20
} | tee "$WORK/clean-report.txt"
