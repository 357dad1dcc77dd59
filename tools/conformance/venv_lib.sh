# Sourced by setup_venv.sh and setup_torch_venv.sh: builds a Python venv from a requirements file,
# idempotently.
#   ensure_venv NAME REQUIREMENTS VENV_DIR PROBE SMOKE
# PROBE: Python code that must run for an existing venv to be reused (with the stamp below);
# SMOKE: Python code run once after pip install. The venv is reused when it was built from the
# same requirements file (sha256 in VENV_DIR/.requirements.sha256) and PROBE runs. Progress goes to
# stderr; the venv's python path is printed on stdout as the last (only) line.
ensure_venv() {
  local name="$1" req="$2" venv="$3" probe="$4" smoke="$5"
  local py="$venv/bin/python" stamp="$venv/.requirements.sha256" want
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [[ -x "$py" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] &&
    "$py" -c "$probe" >/dev/null 2>&1; then
    echo "$py"
    return 0
  fi
  echo "$name: building $venv" >&2
  mkdir -p "$(dirname "$venv")"
  [[ -x "$py" ]] || python3 -m venv "$venv" >&2
  "$py" -m pip install -q --disable-pip-version-check -r "$req" >&2
  "$py" -c "$smoke" >&2
  echo "$want" >"$stamp"
  echo "$py"
}
