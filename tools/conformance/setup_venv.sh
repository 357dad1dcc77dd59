#!/usr/bin/env bash
# Create (idempotently) a Python venv holding real Apache MXNet 1.9.1 as a reference oracle.
# Usage: PY=$(tools/conformance/setup_venv.sh | tail -1)
# All progress goes to stderr; the last (only) stdout line is the venv's python path.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REQ="$HERE/requirements.txt"
VENV="${MXNET_CONFORMANCE_VENV:-$HOME/.cache/mxnet-conformance/venv}"
PY="$VENV/bin/python"
STAMP="$VENV/.requirements.sha256"
WANT="$(sha256sum "$REQ" | cut -d' ' -f1)"

# Fast path: venv exists, was built from this exact requirements.txt, and mxnet imports.
if [[ -x "$PY" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]] &&
   "$PY" -c 'import mxnet' >/dev/null 2>&1; then
  echo "$PY"; exit 0
fi

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

echo "setup_venv: building $VENV" >&2
mkdir -p "$(dirname "$VENV")"
[[ -x "$PY" ]] || python3 -m venv "$VENV" >&2
"$PY" -m pip install -q --disable-pip-version-check -r "$REQ" >&2
# Smoke test: import and run one op.
"$PY" -c 'import mxnet as mx; assert mx.__version__ == "1.9.1"; mx.nd.ones((2,)).asnumpy()' >&2
echo "$WANT" > "$STAMP"
echo "$PY"
