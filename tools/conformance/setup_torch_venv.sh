#!/usr/bin/env bash
# Create (idempotently) the PyTorch venv of the ONNX import check (torch_requirements.txt).
# Usage: TORCH_PY=$(tools/conformance/setup_torch_venv.sh | tail -1)
# All progress goes to stderr; the last (only) stdout line is the venv's python path.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=venv_lib.sh
source "$HERE/venv_lib.sh"
ensure_venv "setup_torch_venv (about 6 GB)" "$HERE/torch_requirements.txt" \
  "${MXNET_TORCH_VENV:-$HOME/.cache/mxnet-torch-venv}" 'import torch, torchvision' \
  'import torch, torchvision; torch.ones(2).numpy()'
