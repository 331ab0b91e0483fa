#!/usr/bin/env bash
# Token counting on one core: sluice's cl100k_base kernel against the
# reference tokenizer (npm tiktoken, its Rust core compiled to WASM), on the
# same documents of a generated corpus, interleaved round by round. Both
# report the time spent in counting alone; the JSON-parse-only run of the
# reference script is printed as the baseline its whole-process time
# includes.
# Usage: bash bench/tokens/run.sh [--limit DOCS] [--rounds R] [--work DIR] [--corpus FILE] [--tools DIR]
# The corpus comes from bench/gen and the reference runner from bench/peers
# (--tools DIR: DIR/gen_corpus.py and DIR/peers/). Without node and npm the
# reference is skipped and only sluice runs.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${WORK:-/tmp/sluice-bench}
TOOLS=${TOOLS:-}
LIMIT=${LIMIT:-10000}
ROUNDS=${ROUNDS:-3}
CORPUS=${CORPUS:-}
TIKTOKEN=tiktoken@1.0.22
while [ $# -gt 0 ]; do
  case "$1" in
    --limit) LIMIT=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --corpus) CORPUS=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
log() { echo "# $*" >&2; }
die() { echo "run.sh: $*" >&2; exit 1; }

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
command -v go >/dev/null || die "go toolchain not found"
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
PEER_ON=1
if ! bench_has_node; then
  PEER_ON=0
  log "skipping tiktoken: node and npm are needed to run it (apt-get install nodejs npm; see bench/README.md)"
fi

# The corpus: the given file, else the 100k-document one if an earlier
# benchmark made it, else a 20k-document one made here once.
if [ -z "$CORPUS" ]; then
  CORPUS=$WORK/corpus-n100000-s42.jsonl
  if ! bench_corpus_ok "$CORPUS"; then
    CORPUS=$WORK/corpus-n20000-s42.jsonl
    if ! bench_corpus_ok "$CORPUS"; then
      log "generating $CORPUS with $(bench_gen_name)"
      bench_gen 20000 42 "$CORPUS" || die "corpus generation failed"
    fi
  fi
fi
[ -s "$CORPUS" ] || die "no corpus at $CORPUS"

# The reference, in its own folder so other benchmarks' packages stay as they are.
PEERS=$WORK/peers-tiktoken
PEER=$(bench_peers)/tiktoken_count.js
TOOLS_RUN="sluice"
if [ $PEER_ON = 1 ]; then
  [ -f "$PEER" ] || die "missing $PEER"
  bench_npm "$PEERS" "$TIKTOKEN" >/dev/null || die "npm install of $TIKTOKEN failed in $PEERS"
  export NODE_PATH=$PEERS/node_modules
  TOOLS_RUN="sluice tiktoken parse"
fi

BIN=$WORK/tokens-bench
log "building: go build -o $BIN ./bench/tokens"
(cd "$REPO" && go build -o "$BIN" ./bench/tokens)
cat "$CORPUS" >/dev/null # into the page cache before the first timing

OUT=$WORK/tokens-runs.jsonl
: >"$OUT"
for r in $(seq "$ROUNDS"); do
  for tool in $TOOLS_RUN; do
    case $tool in
      sluice) line=$("$BIN" -corpus "$CORPUS" -n "$LIMIT" -encoding cl100k_base) ;;
      tiktoken) line=$(node "$PEER" "$CORPUS" wasm "$LIMIT") ;;
      parse) line=$(node "$PEER" "$CORPUS" parse "$LIMIT") ;;
    esac
    echo "{\"round\": $r, \"tool\": \"$tool\", \"result\": $line}" >>"$OUT"
    log "round $r $tool: $line"
  done
done

echo "token counting, cl100k_base, one core  $(date -u +%FT%RZ)  host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "corpus: $CORPUS, first $LIMIT docs; $ROUNDS rounds; medians"
python3 - "$OUT" <<'EOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
def med(tool, key):
    return statistics.median(r["result"][key] for r in runs if r["tool"] == tool)
def first(tool, key):
    return next(r["result"][key] for r in runs if r["tool"] == tool)
s_mb, s_tok = med("sluice", "MB_per_s"), med("sluice", "tokens_per_s")
print(f"{'tool':<26} {'docs':>7} {'tokens':>11} {'text_MB':>8} {'count_s':>8} {'MB/s':>8} {'Mtok/s':>7}")
print(f"{'sluice (Go)':<26} {first('sluice','docs'):>7} {first('sluice','tokens'):>11} {first('sluice','text_mb'):>8.1f} "
      f"{med('sluice','encode_s'):>8.3f} {s_mb:>8.2f} {s_tok/1e6:>7.2f}")
if not any(r["tool"] == "tiktoken" for r in runs):
    print(f"sluice load of the ranks: {med('sluice','load_s')*1000:.0f} ms (once a process, not in count_s)")
    print("tiktoken skipped: node and npm not found")
    sys.exit(0)
t_mb, t_tok = med("tiktoken", "encode_only_MB_per_s"), med("tiktoken", "encode_only_tokens_per_s")
print(f"{'tiktoken 1.0.22 (WASM)':<26} {first('tiktoken','docs'):>7} {first('tiktoken','tokens'):>11} {first('tiktoken','text_mb'):>8.1f} "
      f"{med('tiktoken','encode_s'):>8.3f} {t_mb:>8.2f} {t_tok/1e6:>7.2f}")
print(f"reference whole process {med('tiktoken','secs'):.3f} s, of which reading + JSON parsing {med('parse','secs'):.3f} s (parse-only run)")
print(f"sluice load of the ranks: {med('sluice','load_s')*1000:.0f} ms (once a process, not in count_s)")
print(f"ratio sluice/tiktoken: {s_mb/t_mb:.1f}x MB/s")
st, tt = first("sluice", "tokens"), first("tiktoken", "tokens")
print("token totals match" if st == tt else f"TOKEN TOTALS DIFFER: sluice {st}, tiktoken {tt}")
sys.exit(0 if st == tt else 1)
EOF
