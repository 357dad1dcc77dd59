#!/usr/bin/env bash
# In-suite run of one fuzz target (mx_fuzz_target's <name>_test):
#   run_target_test.sh BINARY SECONDS MAX_LEN MALLOC_LIMIT_MB SHARED_SEEDS SEED_FILE...
# Collects the seed files (and ../shared files named by SHARED_SEEDS, comma-separated paths under
# $MXNET_SHARED_DIR, when it is set) into one directory, then runs the target on it: every seed
# and reproducer is replayed, then SECONDS of mutation. Works for both builds of the target
# (tools/fuzz/driver.cc with g++, libFuzzer with --config=fuzz): both take libFuzzer's flags.
set -euo pipefail
bin="$1"; secs="$2"; max_len="$3"; malloc_mb="$4"; shared="$5"; shift 5
work="${TEST_TMPDIR:-$(mktemp -d)}"
seeds="$work/seeds"; corpus="$work/corpus"
mkdir -p "$seeds" "$corpus"
i=0
add() { i=$((i + 1)); ln -sf "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" "$seeds/$i-$(basename "$1")"; }
for f in "$@"; do [ -f "$f" ] && add "$f"; done
if [ "$shared" != "-" ] && [ -n "${MXNET_SHARED_DIR:-}" ]; then
  IFS=, read -ra rels <<<"$shared"
  for r in "${rels[@]}"; do
    p="$MXNET_SHARED_DIR/$r"
    if [ -d "$p" ]; then for f in "$p"/*; do [ -f "$f" ] && add "$f"; done
    elif [ -f "$p" ]; then add "$p"; fi
  done
fi
echo "$(basename "$bin"): $i seed files, ${secs}s of mutation"
# libFuzzer writes new inputs into its first corpus directory (here a scratch one).
exec "$bin" -max_total_time="$secs" -timeout=1 -max_len="$max_len" -malloc_limit_mb="$malloc_mb" \
  -rss_limit_mb=2048 -seed=1 -print_final_stats=1 "$corpus" "$seeds"
