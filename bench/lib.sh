# Helpers the benchmark scripts source: where the corpus and the peer
# runners come from. The caller sets REPO (the repository root) and WORK;
# TOOLS, when set (--tools DIR), names an outside folder with gen_corpus.py
# and peers/ to use instead of the repository's own bench/gen and
# bench/peers.

# bench_gen_name: the generator the corpus comes from, as reports name it.
bench_gen_name() { if [ -n "${TOOLS:-}" ]; then echo gen_corpus.py; else echo bench/gen; fi; }

# bench_peers: the folder of the peer runner scripts.
bench_peers() { if [ -n "${TOOLS:-}" ]; then echo "$TOOLS/peers"; else echo "$REPO/bench/peers"; fi; }

# bench_has_node: whether node and npm are both on PATH.
bench_has_node() { command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; }

# bench_corpus_ok FILE: FILE exists and was made by the generator in use
# (its FILE.meta.json says so), so a cached corpus from the other generator
# is made again rather than reused.
bench_corpus_ok() {
  local meta=${1%.jsonl}.meta.json
  [ -s "$1" ] && [ -f "$meta" ] || return 1
  if [ -n "${TOOLS:-}" ]; then ! grep -q '"generator": "bench/gen"' "$meta"
  else grep -q '"generator": "bench/gen"' "$meta"; fi
}

# bench_gen N SEED OUT: writes the corpus OUT, with OUT's .dups.jsonl (the
# true duplicate clusters) and .meta.json beside it. Progress goes to stderr.
bench_gen() {
  local n=$1 seed=$2 out=$3
  if [ -n "${TOOLS:-}" ]; then
    [ -f "$TOOLS/gen_corpus.py" ] || { echo "missing $TOOLS/gen_corpus.py (--tools $TOOLS)" >&2; return 1; }
    if [ ! -f /usr/share/dict/words ]; then # gen_corpus.py reads its words from there
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wamerican >&2
    fi
    python3 "$TOOLS/gen_corpus.py" --n "$n" --seed "$seed" --out "$out" >&2
  else
    mkdir -p "$WORK"
    (cd "$REPO" && go build -o "$WORK/bench-gen" ./bench/gen) >&2 && "$WORK/bench-gen" --n "$n" --seed "$seed" --out "$out" >&2
  fi
}

# bench_npm DIR PKG...: installs the pinned npm packages into DIR once (a
# stamp file remembers the list) and prints DIR/node_modules.
bench_npm() {
  local dir=$1; shift
  local stamp=$dir/.installed
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$*" ]; then
    echo "# installing $* into $dir" >&2
    mkdir -p "$dir"
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } \
      && npm i -E --no-audit --no-fund "$@" >&2) || return 1
    echo "$*" >"$stamp"
  fi
  echo "$dir/node_modules"
}

# bench_time LOG CMD...: runs CMD under /usr/bin/time with its output in LOG
# and prints "wall_s user_s sys_s max_rss_kb"; returns 1 when CMD fails.
bench_time() {
  local log=$1 tf
  shift
  tf=$(mktemp)
  if ! /usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" >"$log" 2>&1; then
    rm -f "$tf"
    return 1
  fi
  tail -n 1 "$tf"
  rm -f "$tf"
}

# bench_locked CMD...: runs CMD holding /tmp/sluice-bench.lock, so that no
# two benchmarks time themselves at once on the machine. It does not take
# the lock again when SLUICE_BENCH_LOCKED is set or when the script runs
# under `flock /tmp/sluice-bench.lock ...` already (an open descriptor of
# this shell is on the lock).
bench_locked() {
  local lock=/tmp/sluice-bench.lock fd held=""
  for fd in /proc/$$/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$lock" ] && held=${fd##*/}
  done
  if [ -n "${SLUICE_BENCH_LOCKED:-}" ] || [ -n "$held" ]; then
    "$@"
    return
  fi
  echo "# waiting for $lock" >&2
  exec 9>"$lock"
  flock 9
  "$@"
  exec 9>&-
}
