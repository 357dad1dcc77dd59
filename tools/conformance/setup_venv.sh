#!/usr/bin/env bash
# Create (idempotently) a Python venv holding real Apache MXNet 1.9.1 as a reference oracle.
# Usage: PY=$(tools/conformance/setup_venv.sh | tail -1)
# All progress goes to stderr; the last (only) stdout line is the venv's python path.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${MXNET_CONFORMANCE_VENV:-$HOME/.cache/mxnet-conformance/venv}"
# shellcheck source=venv_lib.sh
source "$HERE/venv_lib.sh"

# libmxnet.so needs these system libs (libgfortran.so.3 and libopenblas ship inside the wheel).
# They are normally present with gcc; install them via apt if not (needs root).
missing=()
libs="$(ldconfig -p)"  # captured first: `ldconfig -p | grep -q` can SIGPIPE under pipefail
grep -q 'libquadmath\.so\.0 ' <<<"$libs" || missing+=(libquadmath0)
grep -q 'libgomp\.so\.1 ' <<<"$libs" || missing+=(libgomp1)
if ((${#missing[@]})); then
  echo "setup_venv: installing system libs: ${missing[*]}" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >&2
fi

# Smoke test after building: import and run one op.
ensure_venv setup_venv "$HERE/requirements.txt" "$VENV" 'import mxnet' \
  'import mxnet as mx; assert mx.__version__ == "1.9.1"; mx.nd.ones((2,)).asnumpy()'
