#!/usr/bin/env bash
# The chaos soak (scripts/soak/run.js): the release server for MINUTES (30) under CLIENTS (48)
# lean clients and two mineflayer bots, with every fault in turn every 15 seconds. Prints the
# table of what held; run as root for the full-disk fault (a size-limited tmpfs).
#   scripts/soak.sh [MINUTES] [CLIENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
(cd scripts && [ -d node_modules/mineflayer ] || npm ci --no-audit --no-fund --loglevel=error)
cargo build --release --quiet
out=target/soak
mkdir -p "$out"
node scripts/soak/run.js --out "$out" --minutes "${1:-30}" --clients "${2:-48}" --bots 2
