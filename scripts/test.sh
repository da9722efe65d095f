#!/usr/bin/env bash
# The whole test suite: installs the pinned test clients (mineflayer, rcon-client) from the
# npm registry exactly as locked in scripts/package-lock.json, then runs every Rust test,
# unit, headless and end-to-end, in the release profile the server is built with.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "error: the end-to-end tests need Node.js 20 and npm on PATH" >&2
  exit 1
fi
(cd scripts && npm ci --no-audit --no-fund --loglevel=error)
cargo test --release "$@"
