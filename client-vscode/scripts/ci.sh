#!/usr/bin/env bash
# Builds and checks the VS Code extension from its lockfile: npm ci, eslint, unit tests (tsc
# type-checks src/ and test/ first; Node's test runner, `vscode` stubbed), esbuild bundle, and
# `vsce package` -> client-vscode/dist/*.vsix.
set -euo pipefail
cd "$(dirname "$0")/.."

# --prefer-offline: the lockfile pins every version; the npm cache need not be revalidated.
npm ci --no-audit --no-fund --prefer-offline --loglevel=error
npm run -s lint
npm test
npm run -s build
rm -f dist/*.vsix
npm run -s package
ls -l dist/*.vsix
