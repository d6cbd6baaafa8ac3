#!/usr/bin/env bash
# Installs the pinned Codex CLI from npm (idempotent; its native linux-x64 binary comes as an npm optional
# dependency, ~420 MB), once per machine in ~/.cache/compact-lsp (.ci/lib.sh's npm_cached), linked from
# tests/codex/.work. tests/codex/test_real_codex.py skips with the reason when it is missing.
set -euo pipefail
cd "$(dirname "$0")"
source ../../.ci/lib.sh
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
npm_cached "the Codex CLI $CODEX_VERSION (npm @openai/codex, ~420 MB)" "$PWD/.work" "codex-$CODEX_VERSION" \
  "@openai/codex@$CODEX_VERSION"
if [ "$("$PWD/.work/node_modules/.bin/codex" --version 2>&1)" != "codex-cli $CODEX_VERSION" ]; then
  echo "the Codex CLI in tests/codex/.work does not run as codex-cli $CODEX_VERSION:" >&2
  "$PWD/.work/node_modules/.bin/codex" --version >&2 || true
  exit 1
fi
