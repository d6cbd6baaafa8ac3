#!/usr/bin/env bash
# Installs the pinned Gemini CLI from npm (idempotent), once per machine in ~/.cache/compact-lsp (.ci/lib.sh's
# npm_cached), linked from tests/gemini_cli/.work. Says on stdout what it installs and how long it took. When npm or
# the registry refuses, the reason goes to .work-failed.txt beside this file (the real-CLI tier is skipped with it)
# and to stderr, and the script fails.
set -uo pipefail
cd "$(dirname "$0")"
source ../../.ci/lib.sh
GEMINI_CLI_VERSION=${GEMINI_CLI_VERSION:-0.61.0}
FAILED="$PWD/.work-failed.txt"
BIN="$PWD/.work/node_modules/.bin/gemini"
fail() {
  { echo "$1"; [ -f "$FAILED.log" ] && tail -5 "$FAILED.log"; } > "$FAILED"
  cat "$FAILED" >&2
  rm -f "$FAILED.log"
  exit 1
}
command -v npm >/dev/null 2>&1 || fail "npm is not installed, so Gemini CLI $GEMINI_CLI_VERSION could not be installed"
npm_cached "Gemini CLI $GEMINI_CLI_VERSION (npm @google/gemini-cli)" "$PWD/.work" "gemini-cli-$GEMINI_CLI_VERSION" \
  "@google/gemini-cli@$GEMINI_CLI_VERSION" 2>"$FAILED.log" \
  || fail "npm could not install @google/gemini-cli@$GEMINI_CLI_VERSION:"
[ "$("$BIN" --version 2>/dev/null | tail -1)" = "$GEMINI_CLI_VERSION" ] \
  || fail "Gemini CLI in $PWD/.work does not run as $GEMINI_CLI_VERSION"
rm -f "$FAILED" "$FAILED.log"
