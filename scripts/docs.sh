#!/usr/bin/env bash
# Regenerates the pictures in docs/ with the scripts that make them:
#   docs/pack-trails.svg  scripts/pack-trails.sh: one simulated night, headless and seeded, so
#                         the same code draws the same picture (10,000 ticks after the build).
#   docs/map.png          scripts/e2e/map.js, the live map's browser check that the e2e test
#                         the_live_map_shows_every_pack_and_ghost_in_a_real_browser_and_asks_nobody_else
#                         runs, against the release server with that test's config on a copy of
#                         worlds/default; its screenshot (HORDE_SCREENSHOT) is kept once the check
#                         passes. Needs chromium at /usr/bin/chromium (scripts/test.sh installs it).
#                         A minute or two: packs form, then turn ghost and walk.
#   docs/load.png         scripts/load.sh --only 20-bots-10k: the 10,000-zombie load on horde and
#                         on its floor, 120 s recorded each after the crowd fills in, plotted by
#                         scripts/load/plot.py from target/load/results.json and the per-tick CSVs.
#                         Several minutes (all three scenarios and their floors take about 20).
#                         A new run draws a new picture: say in BENCHMARKS.md which run it is.
#   docs/grafana.png      scripts/grafana-preview.sh: docs/grafana-dashboard.json's panels on the
#                         data of a 4-minute run scraped by a real Prometheus (about 5 minutes).
#   docs/soak.svg         the soak without kills (scripts/soak/run.js --no-kill, as BENCHMARKS.md
#                         gives it), 120 minutes, plotted by scripts/soak/plot.js; only when asked
#                         for by name (`scripts/docs.sh soak`), as root for its full-disk fault.
# How long in all: about ten minutes on the project's 2-core machine, most of it the load run,
# plus the release builds when they are stale (an estimate; the whole has not been timed).
#   scripts/docs.sh [trails] [map] [load] [grafana] [soak]    (no argument: the first four)
set -euo pipefail
cd "$(dirname "$0")/.."

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(trails map load grafana)
for w in "${want[@]}"; do
  case "$w" in
    trails | map | load | grafana | soak) ;;
    *) echo "usage: scripts/docs.sh [trails] [map] [load] [grafana] [soak]" >&2; exit 2 ;;
  esac
done
wants() { [[ " ${want[*]} " == *" $1 "* ]]; }

if wants soak; then
  echo "docs/soak.svg: two hours of scripts/soak/run.js --no-kill" >&2
  (cd scripts && [ -d node_modules/mineflayer ] || npm ci --no-audit --no-fund --loglevel=error)
  cargo build --release --quiet --bin horde
  node scripts/soak/run.js --out target/soak-long --minutes 120 --clients 48 --bots 2 --no-kill \
    --tick-goal-ms 0 --growth-goal 10
  node scripts/soak/plot.js target/soak-long/samples.csv docs/soak.svg \
    "horde soak: 48 lean clients and 2 bots, faults every 15 s, no kill"
fi

if wants trails; then
  echo "docs/pack-trails.svg: scripts/pack-trails.sh" >&2
  scripts/pack-trails.sh docs/pack-trails.svg
fi

if wants map; then
  echo "docs/map.png: scripts/e2e/map.js against a release server" >&2
  [ -x /usr/bin/chromium ] || { echo "docs/map.png needs chromium at /usr/bin/chromium (scripts/test.sh installs it)" >&2; exit 1; }
  (cd scripts && [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error)
  cargo build --release --quiet --bin horde

  work=$(mktemp -d)
  pid=""
  trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
  cp -r worlds/default "$work/world"
  rcon_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  # The config tests/e2e.rs gives the map's test (tests/support/mod.rs: TestServer::start): a short
  # retention and grace so that packs turn ghost soon, packs of at most 24 (map.js reloads 23),
  # room for the browser's connections and the script's own.
  cat > "$work/config.toml" <<TOML
[server]
port = 0
online_mode = false
view_distance = 6
spawn_protection = 0

[spawning]
enabled = false

[chunks]
retention_ticks = 40

[pack]
dematerialise_sweeps = 10
max_size = 24

[map]
port = 0
max_connections = 8

[rcon]
enabled = true
port = $rcon_port
password = "docs"
TOML
  mkfifo "$work/in"
  target/release/horde --config "$work/config.toml" --world "$work/world" \
    < "$work/in" > "$work/out" 2> "$work/log" &
  pid=$!
  exec 3> "$work/in"
  until grep -q "spawn point" "$work/log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/log" >&2; exit 1; }
    sleep 0.2
  done
  plain() { sed 's/\x1b\[[0-9;]*m//g' "$work/log"; }
  port=$(plain | grep "listening for Minecraft" | grep -o '[0-9]*$')
  map_url=$(plain | grep -o 'map at http://[^ ]*' | sed 's/^map at //')
  [ -n "$map_url" ] || { echo "the server logged no map address" >&2; cat "$work/log" >&2; exit 1; }
  if ! (cd scripts && HORDE_PORT=$port HORDE_RCON_PORT=$rcon_port HORDE_RCON_PASSWORD=docs \
    HORDE_MAP_URL=$map_url HORDE_CONFIG="$work/config.toml" HORDE_SCREENSHOT="$work/map.png" \
    HORDE_MAP_CAP=8 node e2e/map.js) > "$work/map.out"; then
    echo "map.js failed; docs/map.png left as it was" >&2
    cat "$work/map.out" >&2
    exit 1
  fi
  echo stop >&3
  exec 3>&-
  wait "$pid"
  pid=""
  [ -s "$work/map.png" ] || { echo "map.js kept no screenshot" >&2; cat "$work/map.out" >&2; exit 1; }
  cp "$work/map.png" docs/map.png
  rm -rf "$work"
  trap - EXIT
fi

if wants load; then
  echo "docs/load.png: scripts/load.sh --only 20-bots-10k" >&2
  scripts/load.sh --only 20-bots-10k
fi

echo "regenerated: ${want[*]} (git status docs/ shows which pictures changed)" >&2

if wants grafana; then
  echo "docs/grafana.png: scripts/grafana-preview.sh" >&2
  scripts/grafana-preview.sh
fi
