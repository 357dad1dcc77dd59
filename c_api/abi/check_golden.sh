#!/usr/bin/env bash
# check_golden.sh GOLDEN CMD [ARGS...]: runs CMD and diffs its output with the committed GOLDEN.
# A difference fails the test; after an intended ABI change, c_api/abi/update.sh regenerates it.
set -euo pipefail
golden="$1"; shift
actual="$(mktemp)"; trap 'rm -f "$actual"' EXIT
"$@" > "$actual"
if ! diff -u "$golden" "$actual"; then
  echo "FAIL: the output differs from $golden (lines - golden, + now)." >&2
  echo "If the change is intended (additions only within a major version), run c_api/abi/update.sh." >&2
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
