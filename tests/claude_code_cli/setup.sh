#!/usr/bin/env bash
# Installs the pinned Claude Code CLI (VERSION beside this file) with npm into tests/claude_code_cli/.work
# (idempotent; the native linux-x64 binary arrives as the npm optional dependency @anthropic-ai/claude-code-linux-x64).
# Says on stdout what it installs and how long it took. When npm or the registry refuses, the reason goes to
# .work/setup-failed.txt (the real-CLI tier is skipped with it) and to stderr, and the script fails.
set -uo pipefail
cd "$(dirname "$0")"
WORK="$PWD/.work"
VERSION=$(cat VERSION)
BIN="$WORK/cc/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
mkdir -p "$WORK/cc"
if [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null | cut -d' ' -f1)" = "$VERSION" ]; then
  rm -f "$WORK/setup-failed.txt"; exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "npm is not installed, so Claude Code $VERSION could not be installed" | tee "$WORK/setup-failed.txt" >&2
  exit 1
fi
echo '{"private": true}' > "$WORK/cc/package.json"
echo "== installing Claude Code $VERSION (npm @anthropic-ai/claude-code)"
start=$(date +%s)
if (cd "$WORK/cc" && npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$VERSION") >"$WORK/npm.log" 2>&1 \
   && [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  rm -f "$WORK/setup-failed.txt"
  echo "   Claude Code $VERSION: $(( $(date +%s) - start )) s"
else
  { echo "npm could not install @anthropic-ai/claude-code@$VERSION (or its linux-x64 binary):"; tail -5 "$WORK/npm.log"; } > "$WORK/setup-failed.txt"
  cat "$WORK/setup-failed.txt" >&2
  exit 1
fi
