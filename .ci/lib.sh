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

# npm_cached WHAT LINK KEY PACKAGE...: the real clients the test tiers drive (code-server and its Node, playwright-core,
# the Codex and Claude Code CLIs) are installed by npm once per machine, in $COMPACT_CACHE_DIR/KEY
# (~/.cache/compact-lsp/KEY; KEY names the pinned versions), and LINK in the clone points there, so a fresh clone
# reuses them at once instead of downloading ~1.5 GB and building code-server's native modules again (488 s at
# load 12). A half-done install (no .complete) is started over; two clones installing at once take turns (flock).
# Says "== installing WHAT" and how long it took when it installs; nothing when the cache has it.
npm_cached() {
  local what=$1 link=$2 key=$3; shift 3
  local cache=${COMPACT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/compact-lsp}
  local dir="$cache/$key"
  mkdir -p "$cache" "$(dirname "$link")"
  (
    flock 9
    [ -f "$dir/.complete" ] && exit 0
    echo "== installing $what"
    local start; start=$(date +%s)
    rm -rf "$dir" && mkdir -p "$dir" && echo '{"private": true}' > "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$@") >&2 || exit 1
    touch "$dir/.complete"
    echo "   $what: $(( $(date +%s) - start )) s"
  ) 9>"$cache/$key.lock" || return 1
  [ "$(readlink "$link" 2>/dev/null)" = "$dir" ] || { rm -rf "$link" && ln -s "$dir" "$link"; }
}
