#!/usr/bin/env bash
# Install the npm packages pinned in a folder's package.json and package-lock.json into its
# node_modules; does nothing when every pinned version is already there. Needs node and npm.
# Usage: tests/server/clients/setup.sh [hosts]   (the client and host tests run it themselves)
#   no argument: the MCP TypeScript SDK (this folder); hosts: Claude Code and Codex (hosts/).
set -euo pipefail
cd "$(dirname "$0")/${1:-.}"
if node -e '
  const lock = require("./package-lock.json").packages;
  for (const name of Object.keys(require("./package.json").dependencies)) {
    const want = lock["node_modules/" + name].version;
    let have = "";
    try { have = require("./node_modules/" + name + "/package.json").version; } catch (e) {}
    if (have !== want) process.exit(1);
  }' 2>/dev/null; then
    exit 0
fi
npm ci --no-audit --no-fund --loglevel=error --ignore-scripts
# The one install script run: Claude Code's, which puts the binary of its platform package
# (an optional dependency, already downloaded) in place of its launcher stub.
if [ -f node_modules/@anthropic-ai/claude-code/install.cjs ]; then
    node node_modules/@anthropic-ai/claude-code/install.cjs
fi
