# Sourced by the install scripts: `venv_with_pip` makes the venv $VENV
# (python $PYTHON) from $HOST_PYTHON where it is missing, and sets the array
# PIP to a pip that installs into it. Uses the caller's `log`.
# Debian's python3 without the python3-venv package has no ensurepip: then
# the venv is made without pip and the host's pip installs into it.
venv_with_pip() {
  mkdir -p "$VENV"
  if [ ! -x "$PYTHON" ]; then
    log "creating the venv in $VENV"
    if ! "$HOST_PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
      rm -rf "$VENV/bin" "$VENV/lib" "$VENV/lib64" "$VENV/include" "$VENV/pyvenv.cfg"
      "$HOST_PYTHON" -m venv --without-pip "$VENV" >&2
    fi
  fi
  if "$PYTHON" -m pip --version >/dev/null 2>&1; then
    PIP=("$PYTHON" -m pip)
  elif "$HOST_PYTHON" -m pip --version >/dev/null 2>&1; then
    PIP=("$HOST_PYTHON" -m pip --python "$PYTHON")
  else
    log "neither the venv nor $HOST_PYTHON has pip: install python3-pip (or python3-venv)"
    return 1
  fi
}
