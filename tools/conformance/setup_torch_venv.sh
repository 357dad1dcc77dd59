#!/usr/bin/env bash
# Create (idempotently) the PyTorch venv of the ONNX import check (torch_requirements.txt).
# Usage: TORCH_PY=$(tools/conformance/setup_torch_venv.sh | tail -1)
# All progress goes to stderr; the last (only) stdout line is the venv's python path.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REQ="$HERE/torch_requirements.txt"
VENV="${MXNET_TORCH_VENV:-$HOME/.cache/mxnet-torch-venv}"
PY="$VENV/bin/python"
STAMP="$VENV/.requirements.sha256"
WANT="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [[ -x "$PY" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]] &&
   "$PY" -c 'import torch, torchvision' >/dev/null 2>&1; then
  echo "$PY"; exit 0
fi
echo "setup_torch_venv: building $VENV (about 6 GB)" >&2
mkdir -p "$(dirname "$VENV")"
[[ -x "$PY" ]] || python3 -m venv "$VENV" >&2
"$PY" -m pip install -q --disable-pip-version-check -r "$REQ" >&2
"$PY" -c 'import torch, torchvision; torch.ones(2).numpy()' >&2
echo "$WANT" > "$STAMP"
echo "$PY"
