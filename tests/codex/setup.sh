#!/usr/bin/env bash
# Installs the pinned Codex CLI from npm into tests/codex/.work (idempotent; its native linux-x64 binary comes as
# an npm optional dependency, ~420 MB). tests/codex/test_real_codex.py skips with the reason when it is missing.
set -euo pipefail
cd "$(dirname "$0")"
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
WORK="$PWD/.work"
if [ -x "$WORK/node_modules/.bin/codex" ] && [ "$("$WORK/node_modules/.bin/codex" --version 2>/dev/null)" = "codex-cli $CODEX_VERSION" ]; then
  exit 0
fi
echo "== installing the Codex CLI $CODEX_VERSION (npm @openai/codex, ~420 MB)"
start=$(date +%s)
mkdir -p "$WORK" && echo '{"private": true}' > "$WORK/package.json"
(cd "$WORK" && npm install --no-audit --no-fund --loglevel=error "@openai/codex@$CODEX_VERSION") >&2
"$WORK/node_modules/.bin/codex" --version >&2
echo "   the Codex CLI $CODEX_VERSION: $(( $(date +%s) - start )) s"
