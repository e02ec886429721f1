#!/usr/bin/env bash
# Builds and checks the VS Code extension from its lockfile: npm ci, type check, lint, unit
# tests (Node, `vscode` stubbed), esbuild bundle, and `vsce package` -> client-vscode/dist/*.vsix.
set -euo pipefail
cd "$(dirname "$0")/.."

npm ci --no-audit --no-fund --loglevel=error
npm run -s typecheck
npm run -s lint
npm test
npm run -s build
rm -f dist/*.vsix
npm run -s package
ls -l dist/*.vsix
