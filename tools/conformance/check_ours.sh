#!/usr/bin/env bash
# Live cross-check: real MXNet 1.9.1 (and numpy) read the NDArray files our writer makes.
#   tools/conformance/check_ours.sh [OUT_DIR]
# Builds //tools/conformance:io_conformance_writer, writes files (see its header) into OUT_DIR
# (default: a fresh temp dir) and checks each one:
#   resaved/*  MXNet reference files loaded and saved again by us: mx.nd.load must give exactly
#              ndarray/testdata/mx/manifest.json, and the bytes must equal MXNet's own file;
#   fresh/*    files made by us from scratch: mx.nd.load vs the manifest the writer made;
#   numpy/*    .npy/.npz made by us: numpy.load vs the manifest;
#   params/*   the real shared/ cifar_resnet20_v1 params resaved: mx.nd.load of ours equals
#              mx.nd.load of the original, array by array, bit for bit.
# Not part of `bazel test` (needs the conformance venv). Exit 0 only if every check passes.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="$(tools/conformance/setup_venv.sh | tail -1)"
OUT="${1:-$(mktemp -d -t io_conformance.XXXXXX)}"
SHARED="${MXNET_SHARED_DIR:-$(pwd)/../shared}"
PARAMS="$SHARED/data/models/cifar_resnet20_v1-0000.params"
[ -f "$PARAMS" ] || PARAMS=/work/shared/data/models/cifar_resnet20_v1-0000.params

./bazelw build //tools/conformance:io_conformance_writer >&2
args=("$OUT" ndarray/testdata/mx)
[ -f "$PARAMS" ] && args+=("$PARAMS")
bazel-bin/tools/conformance/io_conformance_writer "${args[@]}"

pass=0 fail=0
check() {  # check DESCRIPTION COMMAND...
  if "${@:2}"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $1" >&2; fi
}
for f in "$OUT"/resaved/*; do
  check "$f" "$PY" tools/conformance/check_read_ours.py "$f" ndarray/testdata/mx/manifest.json
  check "$f bytes" cmp "$f" "ndarray/testdata/mx/$(basename "$f")"
done
for f in "$OUT"/fresh/*; do
  [[ "$f" == *.json ]] && continue
  check "$f" "$PY" tools/conformance/check_read_ours.py "$f" "$f.json"
done
for f in "$OUT"/numpy/*.np[yz]; do
  check "$f" "$PY" tools/conformance/check_npy_ours.py "$f" "$f.json"
done
for f in "$OUT"/params/*; do
  check "$f" "$PY" - "$PARAMS" "$f" <<'PYEOF'
import sys, warnings
warnings.filterwarnings("ignore")
import numpy as np, mxnet as mx
a, b = mx.nd.load(sys.argv[1]), mx.nd.load(sys.argv[2])
assert list(a.keys()) == list(b.keys()), "names differ"
for k in a:
    x, y = a[k], b[k]
    assert x.dtype == y.dtype and x.shape == y.shape, k
    assert x.asnumpy().tobytes() == y.asnumpy().tobytes(), k
print("OK %s (%d arrays equal to the original's, as MXNet loads them)" % (sys.argv[2], len(b)))
PYEOF
done
echo "check_ours: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
