#!/usr/bin/env bash
# list_symbols.sh LIB: the dynamic symbols LIB defines (with their version node), sorted. Fails if
# any is not an mxc_ function or an MXC_ version node.
set -euo pipefail
syms="$(nm -D --defined-only "$1" | awk '{print $3}' | LC_ALL=C sort)"
bad="$(grep -Ev '^(mxc_[a-z0-9_]+@@?MXC_[0-9]+\.[0-9]+|MXC_[0-9]+\.[0-9]+)$' <<<"$syms" || true)"
if [ -n "$bad" ]; then
  echo "symbols outside the mxc_ ABI are exported:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "$syms"
