#!/usr/bin/env bash
# abidiff_test.sh BASELINE.abi LIB HEADERS_DIR: compares LIB's ABI (the types reachable from the
# public headers) with the committed baseline using libabigail's abidiff. Any change fails; after
# an intended change (additions only within a major version) c_api/abi/update.sh regenerates it.
set -euo pipefail
baseline="$1" lib="$2" headers="$3"
if ! command -v abidiff >/dev/null; then
  echo "abidiff not found (Debian package abigail-tools; ./bazelw installs it)" >&2
  exit 1
fi
set +e
abidiff --no-added-syms --exported-interfaces-only --drop-private-types --headers-dir2 "$headers" \
  "$baseline" "$lib"
rc=$?
set -e
if [ $rc -ne 0 ]; then
  echo "FAIL: abidiff exit code $rc (bit 2: ABI change, bit 3: incompatible change)." >&2
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
