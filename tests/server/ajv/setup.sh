#!/usr/bin/env bash
# Install the MCP TypeScript SDK (and the Ajv it validates with) pinned in package.json and
# package-lock.json into this folder's node_modules; does nothing when they are there.
# Needs node and npm. Usage: tests/server/ajv/setup.sh    (the tests run it themselves)
set -euo pipefail
cd "$(dirname "$0")"
want=$(node -p "require('./package.json').dependencies['@modelcontextprotocol/sdk']")
have=$(node -p "try { require('./node_modules/@modelcontextprotocol/sdk/package.json').version } catch (e) { '' }")
if [ -d node_modules/ajv-formats ] && [ "$have" = "$want" ]; then
    exit 0
fi
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
