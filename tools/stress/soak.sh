#!/usr/bin/env bash
# tools/stress/soak.sh [SOAK FLAGS...]: the full soak of issue 22 item 3 (docs/reliability.md
# §8): 10,000 training steps of `mxnet train`'s LeNet (batch 128) and 100,000 calls of a
# hybridized resnet18_v1 on (1, 3, 32, 32), built with -c opt; prints the RSS and allocator curve
# of each phase and PASS/FAIL (exit status 1 on FAIL). Extra flags go to the soak binary (e.g.
# --threads=2, --image=64, --lenet_steps=1000); see tools/stress/soak.cc.
set -euo pipefail
cd "$(dirname "$0")/../.."
./bazelw build -c opt //tools/stress:soak >&2
bin="$(./bazelw info -c opt bazel-bin 2>/dev/null)/tools/stress/soak"
echo "soak.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
start=$(date +%s)
status=0
"$bin" --lenet_steps=10000 --resnet_calls=100000 --image=32 --progress=1 "$@" || status=$?
echo "soak.sh: $(( $(date +%s) - start )) s, load average now $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
