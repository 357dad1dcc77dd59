#!/usr/bin/env bash
# Regenerates the ABI goldens of c_api/abi (layout.txt, symbols.txt, libmxc.abi) from a fresh
# build. Run from the repository root after an intended ABI change and review `git diff c_api/abi`:
# within a major version only additions are allowed.
set -euo pipefail
cd "$(dirname "$0")/../.."
./bazelw build //c_api:libmxc.so.1 //c_api:print_layout >/dev/null
bin="$(./bazelw info bazel-bin 2>/dev/null)"
"$bin/c_api/print_layout" > c_api/abi/layout.txt
c_api/abi/list_symbols.sh "$bin/c_api/libmxc.so.1" > c_api/abi/symbols.txt
abidw --headers-dir c_api/include/mxc --drop-private-types --exported-interfaces-only \
  --no-corpus-path --no-elf-needed --out-file c_api/abi/libmxc.abi "$bin/c_api/libmxc.so.1"
echo "updated c_api/abi/{layout.txt,symbols.txt,libmxc.abi}"
