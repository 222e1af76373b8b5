#!/usr/bin/env bash
# Install the Prism version pinned in package.json (and package-lock.json) into this folder's
# node_modules; does nothing when that version is already there. Needs node and npm.
# Usage: tests/execute/prism/setup.sh    (the Prism tests run it themselves)
set -euo pipefail
cd "$(dirname "$0")"
want=$(node -p "require('./package.json').dependencies['@stoplight/prism-cli']")
have=$(node -p "try { require('./node_modules/@stoplight/prism-cli/package.json').version } catch (e) { '' }")
if [ -x node_modules/.bin/prism ] && [ "$have" = "$want" ]; then
    exit 0
fi
# --ignore-scripts: the only install script in the tree is a telemetry ping (@scarf/scarf).
SCARF_ANALYTICS=false npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
test -x node_modules/.bin/prism
