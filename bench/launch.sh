#!/usr/bin/env bash
# The overhead of `sluice launch` against `sluice run`: one pipeline file
# (normalize, gopher_quality, dedup_exact, dedup_minhash) over a generated
# corpus, run in one process and launched as array tasks on this machine
# (`launch --executor local --tasks T`), in interleaved rounds; medians of
# wall time, user+sys CPU and max RSS, the ratios launch/run of wall and
# CPU time, and for launch each phase's wall time, its tasks' summed time
# and their summed overhead (process start, plan, lease, markers, moves:
# what each task's done marker records). Both outputs must hold the same
# counts (their manifests), or the script fails.
# Usage: bash bench/launch.sh [--n DOCS] [--rounds R] [--work DIR] [--tasks T]
#                             [--seed S]
# Every option can also be given by environment: N, ROUNDS, WORK, TASKS,
# SEED. The timed part takes /tmp/sluice-bench.lock, unless the script runs
# under `flock /tmp/sluice-bench.lock ...` already (or SLUICE_BENCH_LOCKED=1).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${N:-100000}
ROUNDS=${ROUNDS:-3}
WORK=${WORK:-/tmp/sluice-bench}
TASKS=${TASKS:-4}
SEED=${SEED:-42}
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --tasks) TASKS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "launch.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
die() { echo "launch.sh: $*" >&2; exit 1; }
log() { echo "# $*" >&2; }

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
command -v go >/dev/null || die "go toolchain not found"
if [ ! -x /usr/bin/time ]; then
  command -v apt-get >/dev/null || die "/usr/bin/time (GNU time) is needed: install the time package"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing time"
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq time >&2
fi
TOOLS="" # the corpus comes from the repository's bench/gen
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"

CORPUS=$WORK/corpus-n$N-s$SEED.jsonl
bench_corpus_ok "$CORPUS" || { log "generating $CORPUS with bench/gen"; bench_gen "$N" "$SEED" "$CORPUS"; }
log "building sluice"
(cd "$REPO" && go build -o "$WORK/sluice" .) || die "go build failed"
BYTES=$(stat -c %s "$CORPUS")
PIPE=$WORK/launch-pipeline.yaml
cat >"$PIPE" <<EOF
input: ["$CORPUS"]
stages:
  - normalize: {}
  - gopher_quality: {}
  - dedup_exact: {}
  - dedup_minhash: {}
EOF
RUN_OUT=$WORK/launch-run-out
LAUNCH_OUT=$WORK/launch-launch-out
RUNS=$WORK/launch-runs.txt     # name round wall user sys rss_kb
PHASES=$WORK/launch-phases.txt # round phase tasks task_s overhead_s phase_s

# timed NAME CMD...: times one run; appends "NAME round wall user sys
# rss_kb" to the runs file. /usr/bin/time's CPU holds the tasks' (the
# launch waits for them); its max RSS is the largest process's.
timed() {
  local name=$1 t
  shift
  t=$(bench_time "$WORK/launch-$name.log" "$@") || die "$name failed; see $WORK/launch-$name.log"
  echo "$name $r $t" >>"$RUNS"
}

rounds() {
  cat "$CORPUS" >/dev/null # into the page cache before the first round
  : >"$RUNS"
  : >"$PHASES"
  for r in $(seq "$ROUNDS"); do
    timed run "$WORK/sluice" run "$PIPE" -o "$RUN_OUT" --overwrite --no-progress
    timed launch "$WORK/sluice" launch "$PIPE" -o "$LAUNCH_OUT" --executor local --tasks "$TASKS" --overwrite --no-progress
    # The line launch prints for each phase: "PHASE T tasks done (T run
    # now; peak RSS of a task X MiB; task time Xs, overhead Xs; phase Xs)".
    sed -n 's/^\([^ ]*\)  *\([0-9]*\) tasks done (.*task time \([0-9.]*\)s, overhead \([0-9.]*\)s; phase \([0-9.]*\)s)$/\1 \2 \3 \4 \5/p' \
      "$WORK/launch-launch.log" | sed "s/^/$r /" >>"$PHASES"
    grep -q . "$PHASES" || die "launch printed no phase times; see $WORK/launch-launch.log"
    log "round $r of $ROUNDS: $(tail -n 2 "$RUNS" | awk '{printf "%s %.2fs wall %.2fs cpu  ", $1, $3, $4 + $5}')"
  done
}

bench_locked rounds

# The manifests' counts: rows in, out, removed, quarantined...
counts() { awk '/^  "counts": \{/ { on = 1; next } on && /^  \}/ { exit } on { gsub(/[ ",]/, ""); printf "%s ", $0 }' "$1/manifest.json"; }
RUN_COUNTS=$(counts "$RUN_OUT")
LAUNCH_COUNTS=$(counts "$LAUNCH_OUT")
[ -n "$RUN_COUNTS" ] || die "no counts in $RUN_OUT/manifest.json"
[ "$RUN_COUNTS" = "$LAUNCH_COUNTS" ] || die "the outputs differ: run $RUN_COUNTS; launch $LAUNCH_COUNTS"
[ "$(ls "$RUN_OUT"/data | wc -l)" -gt 0 ] || die "run wrote no data files"

{
  echo "launch benchmark  $(date -u +%FT%RZ)  host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "corpus: $N docs (bench/gen --seed $SEED), $BYTES bytes; $ROUNDS rounds"
  echo "pipeline: normalize, gopher_quality, dedup_exact, dedup_minhash (defaults)"
  echo "commands: sluice run PIPE; sluice launch PIPE --executor local --tasks $TASKS (max-parallel $(nproc))"
  echo "counts (both manifests): $RUN_COUNTS"
  echo
  awk '
    { wall[$1] = wall[$1] " " $3; cpu[$1] = cpu[$1] " " ($4 + $5); rss[$1] = rss[$1] " " $6 }
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int((n + 1) / 2)]
    }
    END {
      printf "%-8s %9s %9s %8s\n", "command", "median_s", "cpu_s", "rss_MB"
      for (k = 1; k <= 2; k++) {
        name = k == 1 ? "run" : "launch"
        w[name] = median(wall[name]); c[name] = median(cpu[name])
        printf "%-8s %9.2f %9.2f %8.0f\n", name, w[name], c[name], median(rss[name]) / 1024
      }
      printf "launch / run: wall %.2fx, cpu %.2fx\n", w["launch"] / w["run"], c["launch"] / c["run"]
    }' "$RUNS"
  echo
  echo "launch, by phase (medians over the rounds; task_s and overhead_s summed over the phase's tasks):"
  awk -v launch="$(awk '$1 == "launch" { print $3 }' "$RUNS" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')" '
    !($2 in seen) { seen[$2] = 1; order[++n] = $2; tasks[$2] = $3 }
    { ts[$2] = ts[$2] " " $4; ov[$2] = ov[$2] " " $5; ph[$2] = ph[$2] " " $6 }
    function median(s,   a, m, i, j, t) {
      m = split(s, a, " ")
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int((m + 1) / 2)]
    }
    END {
      printf "%-24s %5s %9s %9s %11s %14s\n", "phase", "tasks", "phase_s", "task_s", "overhead_s", "overhead/task"
      for (k = 1; k <= n; k++) {
        p = order[k]; a = median(ph[p]); b = median(ts[p]); o = median(ov[p])
        printf "%-24s %5d %9.2f %9.2f %11.2f %12.0fms\n", p, tasks[p], a, b, o, 1000 * o / tasks[p]
        sa += a; sb += b; so += o; st += tasks[p]
      }
      printf "%-24s %5d %9.2f %9.2f %11.2f %12.0fms\n", "all phases", st, sa, sb, so, 1000 * so / st
      printf "summed task overhead: %.2fs of %.2fs task time (%.0f%%), %.0f ms a task\n", so, sb, 100 * so / sb, 1000 * so / st
      printf "launch outside the phases (plan, schema inference, summary): %.2fs\n", launch - sa
    }' "$PHASES"
} | tee "$WORK/launch-report.txt"
