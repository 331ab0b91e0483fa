#!/usr/bin/env bash
# Side-by-side JSONL -> Parquet (zstd) benchmark: sluice vs DuckDB vs Polars.
# See bench/README.md. Usage:
#   bash bench/convert.sh [--n DOCS] [--work DIR] [--rounds R] [--tools DIR]
#                         [--threads "1 2"] [--seed S] [--only "sluice sluice-l1 duckdb polars"]
# Every option can also be given by environment: N, WORK, ROUNDS, TOOLS, THREADS, SEED, ONLY.
# The corpus comes from bench/gen and the peer runners from bench/peers;
# --tools DIR uses DIR/gen_corpus.py and DIR/peers/ instead.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${N:-100000}
WORK=${WORK:-/tmp/sluice-bench}
ROUNDS=${ROUNDS:-3}
TOOLS=${TOOLS:-}
THREADS=${THREADS:-"1 2"}
SEED=${SEED:-42}
ONLY=${ONLY:-"sluice sluice-l1 duckdb polars"}

while [ $# -gt 0 ]; do
  case "$1" in
    --n) N=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --tools) TOOLS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "convert.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

# Peer packages, pinned (the versions listed in the peers README).
PEER_PKGS=(@duckdb/node-api@1.5.6-r.1 nodejs-polars@0.25.2 nodejs-polars-linux-x64-gnu@0.25.2)

die() { echo "convert.sh: $*" >&2; exit 1; }
log() { echo "# $*" >&2; }
has() { case " $ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
if [ -n "$TOOLS" ]; then
  [ -d "$TOOLS" ] || die "tools not found at $TOOLS (--tools DIR)"
  TOOLS=$(cd "$TOOLS" && pwd)
  [ -f "$TOOLS/gen_corpus.py" ] || die "missing $TOOLS/gen_corpus.py"
fi
PEER_JS=$(bench_peers)

# ---- system packages ---------------------------------------------------------
APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "need $* but apt-get is not available"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ $APT_UPDATED -eq 0 ]; then $sudo apt-get update -qq >&2; APT_UPDATED=1; fi
  log "installing $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2
}
[ -x /usr/bin/time ] || apt_install time
if [ -n "$TOOLS" ]; then command -v python3 >/dev/null || apt_install python3; fi
if (has duckdb || has polars) && ! bench_has_node; then
  skipped=""
  for x in duckdb polars; do has $x && skipped="$skipped $x"; done
  log "skipping${skipped}: node and npm are needed to run the peers (apt-get install nodejs npm; see bench/README.md)"
  ONLY=" $ONLY "; ONLY=${ONLY// duckdb / }; ONLY=${ONLY// polars / }
fi

# ---- build sluice (fails first, before any long step) -------------------------
SLUICE=$WORK/sluice
if has sluice || has sluice-l1; then
  command -v go >/dev/null || die "go toolchain not found"
  log "building sluice: (cd $REPO && go build -o $SLUICE .)"
  if ! (cd "$REPO" && go build -o "$SLUICE" .) >&2; then
    die "BUILD FAILED: 'go build -o $SLUICE .' in $REPO did not produce the sluice binary
  (the CLI must be a main package at the repository root). To benchmark only the
  peers meanwhile: bash bench/convert.sh --only 'duckdb polars'"
  fi
fi

# ---- peer node packages -------------------------------------------------------
PEERS=$WORK/peers-node
if has duckdb || has polars; then
  bench_npm "$PEERS" "${PEER_PKGS[@]}" >/dev/null || die "npm install failed in $PEERS"
  readme=$REPO/bench/README.md
  [ -z "$TOOLS" ] || readme=$TOOLS/peers/README.md
  for p in "${PEER_PKGS[@]}"; do
    grep -qF -- "$p" "$readme" 2>/dev/null || log "warning: $p is not the version named in $readme"
  done
  export NODE_PATH=$PEERS/node_modules
fi

# ---- corpus (generated once, cached) -----------------------------------------
CORPUS=$WORK/corpus-n$N-s$SEED.jsonl
if ! bench_corpus_ok "$CORPUS"; then
  log "generating $CORPUS with $(bench_gen_name)"
  rm -rf "$WORK/.gen" && mkdir -p "$WORK/.gen"
  bench_gen "$N" "$SEED" "$WORK/.gen/corpus.jsonl" || die "corpus generation failed"
  for x in jsonl dups.jsonl meta.json; do mv "$WORK/.gen/corpus.$x" "${CORPUS%.jsonl}.$x"; done
  rm -rf "$WORK/.gen"
fi
IN_BYTES=$(stat -c %s "$CORPUS")
DOCS=$(wc -l <"$CORPUS")
cat "$CORPUS" >/dev/null # warm the page cache so no tool pays for the first read

# ---- one run ------------------------------------------------------------------
OUTDIR=$WORK/out
mkdir -p "$OUTDIR"
RAW=$WORK/runs.tsv
: >"$RAW"

run_one() { # tool threads round -> appends "tool threads round wall rssKB cpu outB" to $RAW
  local tool=$1 t=$2 r=$3 out="$OUTDIR/$1-t$2.parquet" tf="$WORK/time.txt" lf="$WORK/run-$1-t$2.log"
  rm -f "$out"
  local cmd
  case "$tool" in
    sluice) cmd=("$SLUICE" convert "$CORPUS" -o "$out" --workers "$t" --overwrite --compression zstd) ;;
    sluice-l1) cmd=("$SLUICE" convert "$CORPUS" -o "$out" --workers "$t" --overwrite --compression zstd --compression-level 1) ;;
    duckdb) cmd=(node "$PEER_JS/duckdb_run.js" parquet "$CORPUS" "$out" "$t") ;;
    polars) cmd=(env POLARS_MAX_THREADS="$t" node "$PEER_JS/polars_to_parquet.js" "$CORPUS" "$out" eager) ;;
    *) die "unknown tool $tool" ;;
  esac
  if ! /usr/bin/time -f '%e %M %U %S' -o "$tf" "${cmd[@]}" >"$lf" 2>&1; then
    tail -n 20 "$lf" >&2
    die "$tool (threads=$t, round $r) failed: ${cmd[*]}"
  fi
  [ -s "$out" ] || die "$tool (threads=$t) wrote no output at $out"
  local wall rss us ss
  read -r wall rss us ss < <(tail -n 1 "$tf")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$t" "$r" "$wall" "$rss" \
    "$(awk -v a="$us" -v b="$ss" 'BEGIN{printf "%.2f", a+b}')" "$(stat -c %s "$out")" >>"$RAW"
  log "round $r $tool t=$t: ${wall}s rss=$((rss / 1024))MB"
}

# sluice: one tiny conversion first, so a CLI mismatch fails in seconds.
if has sluice || has sluice-l1; then
  head -n 2 "$CORPUS" >"$WORK/smoke.jsonl"
  "$SLUICE" convert "$WORK/smoke.jsonl" -o "$WORK/smoke.parquet" --workers 1 --overwrite --compression zstd >&2 \
    || die "sluice smoke test failed: sluice convert IN -o OUT.parquet --workers N --overwrite --compression zstd"
  [ -s "$WORK/smoke.parquet" ] || die "sluice smoke test wrote no $WORK/smoke.parquet"
fi

TOOL_LIST=()
for x in sluice sluice-l1 duckdb polars; do has $x && TOOL_LIST+=("$x"); done
[ ${#TOOL_LIST[@]} -gt 0 ] || die "nothing to run (--only '$ONLY')"

for r in $(seq 1 "$ROUNDS"); do
  for t in $THREADS; do
    for tool in "${TOOL_LIST[@]}"; do run_one "$tool" "$t" "$r"; done
  done
done

# Row-count check of the last outputs (outside the timings), when DuckDB is at hand.
declare -A ROWS
for t in $THREADS; do
  for tool in "${TOOL_LIST[@]}"; do
    ROWS[$tool/$t]="?"
    if [ -d "$PEERS/node_modules/@duckdb" ] && bench_has_node; then
      ROWS[$tool/$t]=$(NODE_PATH=$PEERS/node_modules node "$PEER_JS/duckdb_run.js" count "$OUTDIR/$tool-t$t.parquet" 2>/dev/null \
        | sed -n 's/.*"n":"\{0,1\}\([0-9]*\).*/\1/p')
      [ "${ROWS[$tool/$t]}" = "$DOCS" ] || log "warning: $tool t=$t wrote ${ROWS[$tool/$t]:-?} rows, corpus has $DOCS"
    fi
  done
done

# ---- report -------------------------------------------------------------------
# per tool/threads: median wall s, MB/s (input bytes / median s, MB = 1e6 B),
# peak RSS MB (max over rounds), median CPU s (user+sys), output bytes (last round)
summary() {
  awk -F'\t' -v tool="$1" -v t="$2" -v inb="$IN_BYTES" '
    $1 == tool && $2 == t { n++; w[n] = $4; c[n] = $6; if ($5 + 0 > rss) rss = $5 + 0; out = $7 }
    function med(a, n,   i, j, x) { # insertion sort of a[1..n], then the middle
      for (i = 2; i <= n; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j+1] = a[j]; a[j+1] = x }
      return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    END { if (!n) exit 1; m = med(w, n); printf "%.3f %.1f %.0f %.2f %d %d\n", m, inb / 1e6 / m, rss / 1024, med(c, n), out, n }
  ' "$RAW"
}
declare -A MBS OUTB
{
  echo "sluice convert benchmark  $(date -u +%Y-%m-%dT%H:%MZ)  host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "corpus: $DOCS docs, $IN_BYTES bytes ($(bench_gen_name) --n $N --seed $SEED)  rounds: $ROUNDS  sluice rev: $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo none)"
  printf '%-9s %3s %9s %8s %8s %8s %12s %7s\n' tool thr median_s MB/s rss_MB cpu_s out_bytes rows
  for t in $THREADS; do
    for tool in "${TOOL_LIST[@]}"; do
      read -r med mbs rss cpu out _ < <(summary "$tool" "$t")
      MBS[$tool/$t]=$mbs; OUTB[$tool/$t]=$out
      printf '%-9s %3s %9s %8s %8s %8s %12s %7s\n' "$tool" "$t" "$med" "$mbs" "$rss" "$cpu" "$out" "${ROWS[$tool/$t]:-?}"
    done
  done
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ printf (b > 0 ? "%.2f" : "n/a"), (b > 0 ? a / b : 0) }'; }
  for t in $THREADS; do
    for s in sluice sluice-l1; do
      for peer in duckdb polars; do
        if has $s && has $peer; then
          printf '%-40s %s\n' "MB/s $s/$peer threads=$t:" "$(ratio "${MBS[$s/$t]}" "${MBS[$peer/$t]}")"
        fi
      done
    done
  done
  for s in sluice sluice-l1; do
    if has $s && has duckdb; then
      for t in $THREADS; do
        printf '%-40s %s\n' "output bytes $s/duckdb threads=$t:" "$(ratio "${OUTB[$s/$t]}" "${OUTB[duckdb/$t]}")"
      done
    fi
  done
  set -- $THREADS
  if [ $# -ge 2 ]; then
    lo=$1; hi=${!#}
    for tool in "${TOOL_LIST[@]}"; do
      printf '%-40s %s\n' "scaling $tool threads=$hi/threads=$lo:" "$(ratio "${MBS[$tool/$hi]}" "${MBS[$tool/$lo]}")"
    done
  fi
  echo "raw runs: $RAW"
} | tee "$WORK/report.txt"
