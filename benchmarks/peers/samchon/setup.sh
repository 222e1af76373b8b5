#!/usr/bin/env bash
# Install the pinned peer (@samchon/openapi 6.0.1, js-yaml 4.1.0 for YAML specs) into
# benchmarks/peers/samchon/node_modules. Needs node >= 18 and the npm registry.
set -euo pipefail
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi
node -e 'const p=require("./node_modules/@samchon/openapi/package.json"); console.log(p.name+" "+p.version)'
