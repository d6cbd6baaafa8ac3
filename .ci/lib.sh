# Sourced by .ci/setup and .ci/setup-tests: the venv's pip, quiet, and a stamp that makes a step run once.

# pip, saying nothing unless something is wrong. Machines whose pip config lists local file:// indexes
# (`extra-index-url = file:///opt/pypi/simple file:///opt/pypi-more/simple` in ~/.config/pip/pip.conf here) that
# hold only some projects make pip warn once per project and index that lacks it: "Location 'file:///...' is
# ignored: it is neither a file nor a directory." That is the machine's config answering "not here" (pip then takes
# the project from the next index), not a problem with the install: exactly those lines are dropped; every other
# warning and every error still shows.
quiet_pip() {
  { "$VENV_PYTHON" -m pip --disable-pip-version-check -q "$@" 2>&1 1>&3 3>&- \
      | { grep -v -E "^WARNING: Location 'file:[^']*' is ignored: it is neither a file nor a directory\.$" || true; } >&2
  } 3>&1
}

# A step's stamp: what the step depends on, hashed. `stamp_current NAME INPUT...` is true when the step last ran
# with these same inputs; `stamp_write NAME INPUT...` records them after the step succeeded.
_stamp_of() { { "$VENV_PYTHON" --version; cat "$@"; } 2>/dev/null | sha256sum | cut -d' ' -f1; }
stamp_current() { local name=$1; shift; [ -f ".venv/.stamp-$name" ] && [ "$(cat ".venv/.stamp-$name")" = "$(_stamp_of "$@")" ]; }
stamp_write() { local name=$1; shift; _stamp_of "$@" > ".venv/.stamp-$name"; }
