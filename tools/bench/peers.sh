#!/usr/bin/env bash
# tools/bench/peers.sh [peers.py options]: ours vs MXNet 1.9.1, ONNX Runtime and PyTorch on this
# machine (tools/bench/peers.py says how). Builds ours with -c opt, sets up the MXNet venv
# (tools/conformance/setup_venv.sh: mxnet 1.9.1 + onnxruntime 1.19.2) and the PyTorch venv
# (tools/conformance/setup_torch_venv.sh: torch + torchvision, ~6 GB), then runs the benchmark.
# Examples:
#   tools/bench/peers.sh                                     # 5 nets x batch 1, 32 x 1, 2 threads
#   tools/bench/peers.sh --nets resnet18_v1 --batches 1 --threads 2 --rounds 3
#   tools/bench/peers.sh --markdown docs/performance-latest.md
set -euo pipefail
cd "$(dirname "$0")/../.."
./bazelw build -c opt //tools:mxnet >&2
bin="$(./bazelw info -c opt bazel-bin 2>/dev/null)/tools/mxnet/mxnet"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/mxnet"  # a later build in another mode must not replace it mid-run
mxnet_py="$(tools/conformance/setup_venv.sh | tail -1)"
torch_py="$(tools/conformance/setup_torch_venv.sh | tail -1)"
"$mxnet_py" tools/bench/peers.py --cli "$work/mxnet" --mxnet-py "$mxnet_py" --torch-py "$torch_py" \
  --command "tools/bench/peers.sh $*" "$@"
