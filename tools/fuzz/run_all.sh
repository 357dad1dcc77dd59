#!/usr/bin/env bash
# tools/fuzz/run_all.sh SECONDS [TARGET...]
# Builds the libFuzzer targets (clang-14, ASan + UBSan: tools/fuzz/build.sh) and runs each for
# SECONDS, one after the other, seeded with the repo's real files and ../shared/data (by path,
# never copied into the repo). Limits: -timeout=1 (s per input), -rss_limit_mb=2048 and a
# -malloc_limit_mb per target (the most a single allocation may take, see target_config).
# The corpus each run grows is kept in $MXNET_FUZZ_WORK/<target>/corpus (default
# /tmp/mxnet-fuzz), so runs accumulate; findings go to $MXNET_FUZZ_WORK/<target>/artifacts/.
# A timeout that does not reproduce (-timeout=1, two tries) when the input is replayed alone
# (this machine is shared: libFuzzer's timeout is wall time) is logged as spurious and the run
# resumes.
# MXNET_FUZZ_RUNS=N: also stop a target after N executions (libFuzzer's -runs; whichever of
# SECONDS and N comes first), e.g. MXNET_FUZZ_RUNS=1000000 for the 10^6-execution long runs.
# Prints a summary: executions, exec/s, cov (edges), ft (features), corpus size, findings.
# Exit status: 1 if any target had a (reproducible) finding.
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH="${1:?usage: tools/fuzz/run_all.sh SECONDS [TARGET...]}"
shift
WORK="${MXNET_FUZZ_WORK:-/tmp/mxnet-fuzz}"
SHARED="${MXNET_SHARED_DIR:-$(cd .. && pwd)/shared}"
ALL=(ndarray_params_fuzzer ndarray_npy_fuzzer symbol_json_fuzzer image_fuzzer model_store_fuzzer
     onnx_fuzzer c_api_symbol_fuzzer c_api_ndarray_fuzzer c_api_image_fuzzer c_api_onnx_fuzzer)
targets=("$@")
((${#targets[@]})) || targets=("${ALL[@]}")

# target_config NAME: sets SEEDS (files/dirs/globs), DICT, MAX_LEN, MALLOC_MB.
target_config() {
  DICT=""; MAX_LEN=65536; MALLOC_MB=512
  local params=(ndarray/testdata/mx ndarray/testdata/fuzz modelzoo/testdata/load
                "symbol/testdata/sg/*.params" "gluon/nn/testdata/*.params" gluon/nn/testdata/layers
                "$SHARED/data/models/cifar_resnet20_v1-0000.params")
  local symbols=("symbol/testdata/sg/*-symbol.json" symbol/testdata/fuzz tools/fuzz/seeds/symbol
                 gluon/nn/testdata/model-symbol.json
                 "$SHARED/data/models/cifar_resnet20_v1-symbol.json")
  local images=("gluon/data/vision/testdata/*.png" "gluon/data/vision/testdata/*.jpg"
                gluon/data/vision/testdata/fuzz "$SHARED/data/images")
  case "$1" in
    ndarray_params_fuzzer|c_api_ndarray_fuzzer)
      # Both targets cap densified sparse records at 16 MiB (max_densified_bytes).
      SEEDS=("${params[@]}"); DICT=tools/fuzz/dicts/ndarray.dict; MALLOC_MB=256 ;;
    ndarray_npy_fuzzer)
      SEEDS=(ndarray/testdata/io ndarray/testdata/fuzz); DICT=tools/fuzz/dicts/ndarray.dict
      MALLOC_MB=256 ;;
    symbol_json_fuzzer|c_api_symbol_fuzzer)
      SEEDS=("${symbols[@]}"); DICT=tools/fuzz/dicts/symbol_json.dict; MAX_LEN=131072 ;;
    image_fuzzer|c_api_image_fuzzer)
      SEEDS=("${images[@]}"); DICT=tools/fuzz/dicts/image.dict; MAX_LEN=262144 ;;
    model_store_fuzzer)
      SEEDS=(ndarray/testdata/mx); MAX_LEN=4096 ;;
    onnx_fuzzer|c_api_onnx_fuzzer)
      SEEDS=(gluon/onnx/testdata); MAX_LEN=1048576 ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
}

# Links every seed file into $1 (flat; names prefixed to stay unique).
collect_seeds() {
  local dir="$1" i=0 p f
  rm -rf "$dir"; mkdir -p "$dir"
  for p in "${SEEDS[@]}"; do
    for f in $p; do
      if [ -d "$f" ]; then
        for g in "$f"/*; do [ -f "$g" ] && ln -sf "$(realpath "$g")" "$dir/$((i += 1))-$(basename "$g")"; done
      elif [ -f "$f" ]; then
        ln -sf "$(realpath "$f")" "$dir/$((i += 1))-$(basename "$f")"
      fi
    done
  done
  echo "$i"
}

# MXNET_FUZZ_BIN_DIR: use the binaries already built there (skips tools/fuzz/build.sh).
declare -A BIN
if [ -n "${MXNET_FUZZ_BIN_DIR:-}" ]; then
  for t in "${targets[@]}"; do BIN[$t]="$MXNET_FUZZ_BIN_DIR/$t"; done
else
  while read -r name path; do BIN[$name]="$path"; done < <(tools/fuzz/build.sh "${targets[@]}")
  kept=()
  for t in "${targets[@]}"; do [ -n "${BIN[$t]:-}" ] && kept+=("$t"); done
  targets=("${kept[@]}")
fi

status=0
summary=()
for t in "${targets[@]}"; do
  target_config "$t" || exit 2
  d="$WORK/$t"
  mkdir -p "$d/corpus" "$d/artifacts"
  n_seeds="$(collect_seeds "$d/seeds")"
  log="$d/run-$(date -u +%Y%m%dT%H%M%SZ).log"
  flags=(-timeout=1 -rss_limit_mb=2048 -malloc_limit_mb="$MALLOC_MB" -max_len="$MAX_LEN"
         -artifact_prefix="$d/artifacts/" -print_final_stats=1 -close_fd_mask=1)
  [ -n "$DICT" ] && flags+=(-dict="$DICT")
  echo "== $t: $n_seeds seed files, ${SECONDS_EACH}s, log $log" >&2
  start=$(date +%s); execs=0; finding="-"; spurious=0
  while :; do
    left=$((SECONDS_EACH - ($(date +%s) - start)))
    ((left > 0)) || break
    runs=()
    if [ -n "${MXNET_FUZZ_RUNS:-}" ]; then
      ((execs < MXNET_FUZZ_RUNS)) || break
      runs=(-runs=$((MXNET_FUZZ_RUNS - execs)))
    fi
    before="$(ls "$d/artifacts" | sort)"
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
      "${BIN[$t]}" "${flags[@]}" -max_total_time="$left" "${runs[@]}" "$d/corpus" "$d/seeds" >>"$log" 2>&1
    rc=$?
    e=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    execs=$((execs + ${e:-0}))
    new="$(comm -13 <(echo "$before") <(ls "$d/artifacts" | sort) | head -1)"
    ((rc == 0)) && break
    if [[ "$new" == timeout-* ]] && { timeout 60 "${BIN[$t]}" -timeout=1 "$d/artifacts/$new" >/dev/null 2>&1 ||
                                     timeout 60 "${BIN[$t]}" -timeout=1 "$d/artifacts/$new" >/dev/null 2>&1; }; then
      echo "   spurious timeout (replays alone in < 1 s): $new" | tee -a "$log" >&2
      mv "$d/artifacts/$new" "$d/artifacts/spurious-$new"; spurious=$((spurious + 1))
      continue
    fi
    finding="${new:-rc=$rc}"; status=1
    break
  done
  last="$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)"
  cov="$(grep -o 'cov: [0-9]*' <<<"$last" | awk '{print $2}')"
  ft="$(grep -o 'ft: [0-9]*' <<<"$last" | awk '{print $2}')"
  secs=$(($(date +%s) - start))
  summary+=("$(printf '%-22s %12s %8s %7s %7s %7s  %s' "$t" "$execs" "$((execs / (secs > 0 ? secs : 1)))" \
    "${cov:-?}" "${ft:-?}" "$(ls "$d/corpus" | wc -l)" "$finding (spurious timeouts: $spurious)")")
done
echo
echo "run_all.sh $SECONDS_EACH  ($(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores)"
printf '%-22s %12s %8s %7s %7s %7s  %s\n' target execs exec/s cov ft corpus finding
for l in "${summary[@]}"; do echo "$l"; done
exit $status
