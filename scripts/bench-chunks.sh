#!/usr/bin/env bash
# Measures chunk load and unload latency (in ticks) with the shipped config: starts the release
# server on a temporary copy of worlds/default, lets a real mineflayer client roam across
# HOPS far-apart spots, waits past the retention, and prints the server's `chunks` line.
#   scripts/bench-chunks.sh [HOPS]
set -euo pipefail
cd "$(dirname "$0")/.."
hops=${1:-8}
(cd scripts && [ -d node_modules/mineflayer ] || npm ci --no-audit --no-fund --loglevel=error)
cargo build --release --quiet

work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -r worlds/default "$work/world"
rcon_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The shipped config, with what a benchmark on a shared machine needs on top.
sed -e 's/^port = 25565/port = 0/' -e 's/^port = 8100/port = 0/' -e 's/^online_mode = true/online_mode = false/' \
    -e 's/^enabled = false/enabled = true/' -e "s/^port = 25575/port = $rcon_port/" \
    -e 's/^password = ""/password = "bench"/' config.toml > "$work/config.toml"
mkfifo "$work/in"
target/release/horde --config "$work/config.toml" --world "$work/world" \
  < "$work/in" > "$work/out" 2> "$work/log" &
pid=$!
exec 3> "$work/in"
until grep -q "listening for Minecraft" "$work/log"; do sleep 0.2; done
port=$(grep "listening for Minecraft" "$work/log" | sed 's/\x1b\[[0-9;]*m//g' | grep -o '[0-9]*$')
retention=$(grep '^retention_ticks' config.toml | grep -o '[0-9]*')
(cd scripts && HORDE_PORT=$port HORDE_RCON_PORT=$rcon_port HORDE_RCON_PASSWORD=bench \
  HORDE_ROAM_HOPS=$hops HORDE_ROAM_SETTLE_TICKS=$((retention + 100)) node e2e/roam.js) \
  | sed 's/.*"chunks":"\(.*\)".*/chunks \1/'
echo stop >&3
wait "$pid"
