#!/usr/bin/env bash
# `sluice tasks validate` against `sluice tokens` on one core: a generated
# chat file and, line for line, the same texts as a {"text": ...} file.
# Three whole processes are timed, interleaved round by round (the order
# turns over every round), each with GOMAXPROCS=1 and -j 1:
#   validate       sluice tasks validate CHAT -j 1 --json            (cl100k_base)
#   tokens         sluice tokens TEXT -j 1 --no-progress --json      (cl100k_base)
#   validate-none  sluice tasks validate CHAT -j 1 --tokenizer none --json
# It prints the medians of wall and CPU (user+sys) time, validate's speed as
# a share of tokens' (the target is >= 0.8) and validate-none's MB/s (the
# target is >= 100). --base BIN adds the same validate run of another sluice
# binary (say, one built before a change) to every round: validate-base.
# The timed part takes /tmp/sluice-bench.lock itself: run the script plainly
# (set SLUICE_BENCH_LOCKED=1 if you already hold the lock).
# The files come from `bench/gen --chat` (--tools DIR: bench/tasks/gen_chat.py
# with DIR/gen_corpus.py).
# Usage: bash bench/tasks/run.sh [--n EXAMPLES] [--rounds R] [--seed S] [--work DIR] [--tools DIR] [--base BIN]
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${WORK:-/tmp/sluice-bench}
TOOLS=${TOOLS:-}
N=${N:-120000}
ROUNDS=${ROUNDS:-5}
SEED=${SEED:-7}
BASE=${BASE:-}
while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
log() { echo "# $*" >&2; }
die() { echo "run.sh: $*" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
command -v go >/dev/null || die "go toolchain not found"
[ -z "$TOOLS" ] || [ -f "$TOOLS/gen_corpus.py" ] || die "missing $TOOLS/gen_corpus.py (--tools $TOOLS)"
[ -z "$BASE" ] || [ -x "$BASE" ] || die "--base $BASE: not an executable"
GEN=bench/gen
[ -z "$TOOLS" ] || GEN=gen_chat.py

# The files, made once for each N and seed.
CHAT=$WORK/tasks-chat-n$N-s$SEED.jsonl
TEXT=$WORK/tasks-text-n$N-s$SEED.jsonl
if [ ! -s "$CHAT" ] || [ ! -s "$TEXT" ] || [ "$(cat "$CHAT.gen" 2>/dev/null)" != "$GEN" ]; then
  log "generating $CHAT and $TEXT with $GEN"
  if [ -n "$TOOLS" ]; then
    [ -f /usr/share/dict/words ] || { log "installing wamerican"; apt-get update -qq >&2 && apt-get install -y -qq wamerican >&2; }
    python3 "$REPO/bench/tasks/gen_chat.py" --n "$N" --seed "$SEED" --out "$CHAT.tmp" --text "$TEXT.tmp" --tools "$TOOLS"
  else
    (cd "$REPO" && go build -o "$WORK/bench-gen" ./bench/gen)
    "$WORK/bench-gen" --chat --n "$N" --seed "$SEED" --out "$CHAT.tmp" --text "$TEXT.tmp"
  fi
  mv "$TEXT.tmp" "$TEXT"
  mv "$CHAT.tmp" "$CHAT"
  echo "$GEN" >"$CHAT.gen"
fi

BIN=$WORK/sluice-tasks-bench
log "building: (cd $REPO && go build -o $BIN .)"
(cd "$REPO" && go build -o "$BIN" .)

OUT=$WORK/tasks-runs.jsonl
timed() {
  python3 - "$BIN" "$CHAT" "$TEXT" "$ROUNDS" "$OUT" "$BASE" <<'EOF'
import json, os, resource, statistics, subprocess, sys, time
bin_, chat, text, rounds, out, base = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
cmds = {
    "validate": [bin_, "tasks", "validate", chat, "-j", "1", "--json"],
    "tokens": [bin_, "tokens", text, "-j", "1", "--no-progress", "--json"],
    "validate-none": [bin_, "tasks", "validate", chat, "-j", "1", "--tokenizer", "none", "--json"],
}
if base:
    cmds["validate-base"] = [base] + cmds["validate"][1:]
env = dict(os.environ, GOMAXPROCS="1")
for f in (chat, text):  # into the page cache before the first timing
    with open(f, "rb") as fh:
        while fh.read(1 << 24):
            pass

def cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime

runs = []
order = list(cmds)
for r in range(1, rounds + 1):
    for tool in (order if r % 2 else order[::-1]):
        c0, t0 = cpu(), time.perf_counter()
        p = subprocess.run(cmds[tool], capture_output=True, env=env)
        wall, cpu_s = time.perf_counter() - t0, cpu() - c0
        ok = p.returncode == 0 or (tool != "tokens" and p.returncode == 1)  # validate exits 1 on data errors
        if not ok:
            sys.exit(f"{tool} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
        runs.append({"round": r, "tool": tool, "wall_s": wall, "cpu_s": cpu_s, "rc": p.returncode,
                     "out": json.loads(p.stdout)})
        print(f"# round {r} {tool:<14} wall {wall:6.3f} s  cpu {cpu_s:6.3f} s", file=sys.stderr)
with open(out, "w") as f:
    for x in runs:
        f.write(json.dumps(x) + "\n")

def med(tool, key):
    return statistics.median(x[key] for x in runs if x["tool"] == tool)
def last(tool):
    return next(x["out"] for x in reversed(runs) if x["tool"] == tool)
mb = os.path.getsize(chat) / 1e6
v, t = last("validate"), last("tokens")
print(f"tasks validate vs tokens, one core (GOMAXPROCS=1, -j 1)  {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}  "
      f"host: {os.cpu_count()} cores, load {' '.join(open('/proc/loadavg').read().split()[:3])}")
print(f"chat file: {chat} ({mb:.1f} MB, {v['statistics']['examples']} examples, "
      f"{len(v['errors'])} errors, {len(v['warnings'])} warnings)")
print(f"text file: {text} ({os.path.getsize(text)/1e6:.1f} MB); {rounds} rounds, interleaved; medians")
print(f"{'run':<15} {'wall_s':>7} {'cpu_s':>7} {'MB/s':>7}  tokens")
for tool, toks in (("validate", v["statistics"]["tokens_per_example"]["total"]),
                   ("tokens", t["total"]["tokens"]), ("validate-none", None)) + \
        ((("validate-base", last("validate-base")["statistics"]["tokens_per_example"]["total"]),) if base else ()):
    w = med(tool, "wall_s")
    print(f"{tool:<15} {w:7.3f} {med(tool, 'cpu_s'):7.3f} {mb/w:7.1f}  {toks if toks is not None else '-'}")
print(f"validate speed / tokens speed: {med('tokens','wall_s')/med('validate','wall_s'):.2f}x wall, "
      f"{med('tokens','cpu_s')/med('validate','cpu_s'):.2f}x cpu (target >= 0.8)")
if base:
    print(f"validate-base ({base}) speed / tokens speed: {med('tokens','wall_s')/med('validate-base','wall_s'):.2f}x wall, "
          f"{med('tokens','cpu_s')/med('validate-base','cpu_s'):.2f}x cpu")
print(f"validate --tokenizer none: {mb/med('validate-none','wall_s'):.0f} MB/s wall (target >= 100)")
vt, tt = v["statistics"]["tokens_per_example"]["total"], t["total"]["tokens"]
print("token totals match" if vt == tt else
      f"token totals differ: validate {vt}, tokens {tt} (the text file joins an example's turns with a blank line)")
EOF
}
bench_locked timed
