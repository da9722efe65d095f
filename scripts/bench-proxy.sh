#!/usr/bin/env bash
# What the proxy costs a player: one horde taking players directly and one behind infrarust
# (Velocity modern forwarding), both release builds on copies of worlds/default with the
# shipped config; a mineflayer client joins each ROUNDS times, alternating, and the join time
# and bytes received are printed per route.
#   scripts/bench-proxy.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
(cd scripts && [ -d node_modules/mineflayer ] || npm ci --no-audit --no-fund --loglevel=error)
infrarust=$(scripts/install-infrarust.sh)
cargo build --release --quiet

work=$(mktemp -d)
# Each process leaves its pid in $work/*/pid (start_horde runs in a subshell).
trap 'kill $(cat "$work"/*/pid 2>/dev/null) 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Starts horde in $work/$1 with the shipped config edited by the sed arguments after it;
# prints its port.
start_horde() {
  local dir="$work/$1"
  shift
  mkdir -p "$dir"
  cp -r worlds/default "$dir/world"
  sed -e 's/^port = 25565/port = 0/' -e 's/^port = 8100/port = 0/' \
      -e 's/^online_mode = true/online_mode = false/' "$@" config.toml > "$dir/config.toml"
  target/release/horde --config "$dir/config.toml" --world "$dir/world" \
    < /dev/null > "$dir/out" 2> "$dir/log" &
  local pid=$!
  echo "$pid" > "$dir/pid"
  until grep -q "spawn point" "$dir/log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$dir/log" >&2; exit 1; }
    sleep 0.2
  done
  grep "listening for Minecraft" "$dir/log" | sed 's/\x1b\[[0-9;]*m//g' | grep -o '[0-9]*$'
}

direct_port=$(start_horde direct)
backend_port=$(start_horde backend -e 's/^connection_mode = "direct"/connection_mode = "velocity"/' \
  -e 's/^velocity_secret = ""/velocity_secret = "bench-s3cret"/')
grep -q "behind Velocity" "$work/backend/log" || { echo "the backend is not in velocity mode" >&2; exit 1; }

proxy_port=$(free_port)
mkdir -p "$work/proxy/servers"
printf '%s' bench-s3cret > "$work/proxy/forwarding.secret"
cat > "$work/proxy/infrarust.toml" <<TOML
bind = "127.0.0.1:$proxy_port"
servers_dir = "$work/proxy/servers"
plugins_dir = "$work/proxy/plugins"

[forwarding]
mode = "velocity"
secret_file = "$work/proxy/forwarding.secret"

[ban]
file = "$work/proxy/bans.json"
TOML
cat > "$work/proxy/servers/horde.toml" <<TOML
domains = ["*"]
addresses = ["127.0.0.1:$backend_port"]
proxy_mode = "offline"
forwarding_mode = "velocity"
TOML
(cd "$work/proxy" && NO_COLOR=1 exec "$infrarust" --config "$work/proxy/infrarust.toml" \
  < /dev/null > "$work/proxy/log" 2>&1) &
echo $! > "$work/proxy/pid"
until grep -q "accepting connections" "$work/proxy/log"; do
  kill -0 "$(cat "$work/proxy/pid")" 2>/dev/null || { cat "$work/proxy/log" >&2; exit 1; }
  sleep 0.2
done

echo "infrarust 2.0.0-beta.4 in front of horde $(git rev-parse --short HEAD), $rounds joins per route"
(cd scripts && HORDE_DIRECT_PORT=$direct_port HORDE_PROXY_PORT=$proxy_port ROUNDS=$rounds \
  node load/proxy-cost.js)
