#!/usr/bin/env bash
# Installs the pinned Qwen Code CLI from npm (idempotent), once per machine in ~/.cache/compact-lsp (.ci/lib.sh's
# npm_cached), linked from tests/qwen_code/.work. When npm or the registry refuses, the reason goes to
# .work-failed.txt beside this file (the real-CLI tier skips with it) and to stderr, and the script fails.
set -uo pipefail
cd "$(dirname "$0")"
source ../../.ci/lib.sh
QWEN_CODE_VERSION=${QWEN_CODE_VERSION:-0.24.4}
FAILED="$PWD/.work-failed.txt"
fail() { echo "$1" > "$FAILED"; cat "$FAILED" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || fail "npm is not installed, so Qwen Code $QWEN_CODE_VERSION could not be installed"
log=$(mktemp)
npm_cached "Qwen Code $QWEN_CODE_VERSION (npm @qwen-code/qwen-code)" "$PWD/.work" "qwen-code-$QWEN_CODE_VERSION" \
  "@qwen-code/qwen-code@$QWEN_CODE_VERSION" 2>"$log" \
  || fail "npm could not install @qwen-code/qwen-code@$QWEN_CODE_VERSION: $(tail -3 "$log")"
rm -f "$log"
version=$("$PWD/.work/node_modules/.bin/qwen" --version 2>/dev/null | tail -1)
[ "$version" = "$QWEN_CODE_VERSION" ] || fail "the Qwen Code CLI in tests/qwen_code/.work runs as '$version', not $QWEN_CODE_VERSION"
rm -f "$FAILED"
