#!/usr/bin/env bash
# Checks (default) or fixes (--fix) clang-format style of the project's C++ sources.
#   tools/lint/format.sh            # exit 1 and list files that are not formatted
#   tools/lint/format.sh --fix      # rewrite them in place
#   tools/lint/format.sh --changed  # only files changed against origin/main or HEAD~1
set -euo pipefail
cd "${BUILD_WORKSPACE_DIRECTORY:-$(dirname "$0")/../..}"
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (./bazelw installs it)" >&2; exit 2; }
mode=check
files=()
for a in "$@"; do
  case "$a" in
    --fix) mode=fix ;;
    --changed) mapfile -t files < <(git diff --name-only --diff-filter=ACM HEAD~1 -- '*.cc' '*.h' '*.cu' 2>/dev/null || true) ;;
    *) files+=("$a") ;;
  esac
done
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.cu' | grep -v '^third_party/')
fi
bad=()
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
if [ "$mode" = fix ]; then
  [ ${#existing[@]} -eq 0 ] || clang-format -i "${existing[@]}"
elif [ ${#existing[@]} -gt 0 ]; then
  # One clang-format process for all files; its diagnostics start with "FILE:LINE:COL:".
  mapfile -t bad < <(clang-format --dry-run -Werror "${existing[@]}" 2>&1 >/dev/null |
    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*/\1/p' | sort -u)
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "format.sh: ${#bad[@]} file(s) need clang-format (tools/lint/format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format.sh: ${#files[@]} files checked"
