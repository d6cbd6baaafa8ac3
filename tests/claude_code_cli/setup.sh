#!/usr/bin/env bash
# Installs the pinned Claude Code CLI (VERSION beside this file) with npm (idempotent; the native linux-x64 binary
# arrives as the npm optional dependency @anthropic-ai/claude-code-linux-x64), once per machine in
# ~/.cache/compact-lsp (.ci/lib.sh's npm_cached), linked from tests/claude_code_cli/.work/cc. Says on stdout what it
# installs and how long it took. When npm or the registry refuses, the reason goes to .work/setup-failed.txt (the
# real-CLI tier is skipped with it) and to stderr, and the script fails.
set -uo pipefail
cd "$(dirname "$0")"
source ../../.ci/lib.sh
WORK="$PWD/.work"
VERSION=$(cat VERSION)
BIN="$WORK/cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
mkdir -p "$WORK"
fail() {
  { echo "$1"; [ -f "$WORK/npm.log" ] && tail -5 "$WORK/npm.log"; } > "$WORK/setup-failed.txt"
  cat "$WORK/setup-failed.txt" >&2
  exit 1
}
command -v npm >/dev/null 2>&1 || fail "npm is not installed, so Claude Code $VERSION could not be installed"
rm -f "$WORK/npm.log"
npm_cached "Claude Code $VERSION (npm @anthropic-ai/claude-code)" "$WORK/cc" "claude-code-$VERSION" \
  "@anthropic-ai/claude-code@$VERSION" 2>"$WORK/npm.log" \
  || fail "npm could not install @anthropic-ai/claude-code@$VERSION (or its linux-x64 binary):"
[ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null | cut -d' ' -f1)" = "$VERSION" ] \
  || fail "Claude Code in $WORK/cc does not run as $VERSION"
rm -f "$WORK/setup-failed.txt" "$WORK/npm.log"
