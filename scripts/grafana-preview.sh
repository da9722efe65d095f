#!/usr/bin/env bash
# Renders docs/grafana-dashboard.json with real data into docs/grafana.png.
#
# Grafana itself is not used: it is not installable on the project's machine (which reaches only
# crates.io, PyPI, npm and Debian's apt, and Grafana is in none of them). So the picture is made
# the closest faithful way without it:
#   - the release server (target/release/horde as it is: built only if missing, so rebuild a
#     stale one first) runs on a temporary copy of worlds/default with metrics, query and RCON on;
#   - Debian's Prometheus (installed with apt-get when missing) scrapes its /metrics every second;
#   - scripts/grafana/load.js drives real load for a few minutes: mineflayer players who roam,
#     zombies summoned over RCON, a hunt, night then day, blocks placed and saved, teleports,
#     refused logins, query packets and a flood of them, wrong RCON passwords;
#   - scripts/grafana/render.js runs every panel's own PromQL from the dashboard JSON against
#     that Prometheus (query_range over the run, step 2 s, $__rate_interval = 1m, $instance =
#     the scraped server) and draws the panels at their gridPos with uPlot (the chart library
#     Grafana's time series panel uses) in a dark Grafana-like page, screenshotted by Debian's
#     chromium (/usr/bin/chromium, scripts/test.sh installs it) through playwright-core.
# The picture therefore shows the dashboard's real queries on real data, in Grafana's layout,
# units and colours, but it is not a Grafana screenshot (the image says so in its header).
#
#   scripts/grafana-preview.sh [SECONDS]    (load for SECONDS, default 240; about 5 minutes in all)
# GRAFANA_PREVIEW_HTML=FILE also keeps the drawn page, self-contained, to open in a browser.
# Everything temporary (world copy, configs, Prometheus data, logs) is in one mktemp directory,
# removed at exit with the processes stopped, whether the run succeeds or not.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-240}
html=${GRAFANA_PREVIEW_HTML:-}

command -v node >/dev/null || { echo "error: needs Node.js 20 on PATH" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "error: needs chromium at /usr/bin/chromium (scripts/test.sh installs it)" >&2; exit 1; }
[ -d scripts/node_modules/uplot ] || (cd scripts && npm ci --no-audit --no-fund --loglevel=error)
[ -x target/release/horde ] || cargo build --release --bin horde

# Debian's Prometheus, when there is none on PATH. Where an init system runs, the package
# also starts its own service on :9090; this script does not use it.
if ! command -v prometheus >/dev/null; then
  sudo_or_root=""
  [ "$(id -u)" = 0 ] || sudo_or_root="sudo"
  candidate() { apt-cache policy prometheus 2>/dev/null | sed -n 's/^ *Candidate: //p'; }
  if [ -z "$(candidate)" ] || [ "$(candidate)" = "(none)" ]; then $sudo_or_root apt-get update -qq; fi
  if [ -z "$(candidate)" ] || [ "$(candidate)" = "(none)" ]; then
    echo "error: apt has no prometheus package; put a prometheus binary on PATH and run again" >&2
    exit 1
  fi
  echo "installing Debian's prometheus" >&2
  DEBIAN_FRONTEND=noninteractive $sudo_or_root apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

work=$(mktemp -d)
horde_pid=""
prom_pid=""
child=""
cleanup() {
  # SIGTERM stops horde as `stop` does (it saves); Prometheus and node stop on it too.
  for pid in $child $horde_pid $prom_pid; do kill "$pid" 2>/dev/null || true; done
  for pid in $child $horde_pid $prom_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Runs a step in the background and waits for it, so that a signal stops the run at once.
step() { "$@" & child=$!; wait "$child"; child=""; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rcon_port=$(free_port)
prom_port=$(free_port)

# The server: ports picked by the system (read back from its log), three players at most (the
# fourth login is refused as full), a save every minute, the map off.
cp -r worlds/default "$work/world"
cat > "$work/config.toml" <<TOML
[server]
port = 0
online_mode = false
max_players = 3
view_distance = 6

[save]
autosave_ticks = 1200

[spawning]
enabled = true

[rcon]
enabled = true
port = $rcon_port
password = "x"

[metrics]
port = 0

[query]
enabled = true
port = 0

[map]
enabled = false
TOML
target/release/horde --config "$work/config.toml" --world "$work/world" \
  < /dev/null > "$work/horde.out" 2> "$work/horde.log" &
horde_pid=$!
plain() { sed 's/\x1b\[[0-9;]*m//g' "$work/horde.log"; }
for _ in $(seq 600); do
  grep -q "spawn point" "$work/horde.log" && break
  kill -0 "$horde_pid" 2>/dev/null || { cat "$work/horde.log" >&2; exit 1; }
  sleep 0.2
done
port=$(plain | grep -o 'listening for Minecraft 1.20.1 clients on [^ ]*' | grep -o '[0-9]*$')
metrics=$(plain | grep -o 'metrics at http://[^ ]*' | sed 's/^metrics at http:\/\///; s/\/metrics$//')
query_port=$(plain | grep -o 'query (GameSpy4) on udp [^ ]*' | grep -o '[0-9]*$')
[ -n "$port" ] && [ -n "$metrics" ] && [ -n "$query_port" ] || {
  echo "the server did not log its ports" >&2; cat "$work/horde.log" >&2; exit 1; }
echo "horde: game $port, metrics $metrics, query $query_port, rcon $rcon_port" >&2

# Prometheus: scrapes the server every second into a temporary store.
cat > "$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: horde
    static_configs:
      - targets: ["$metrics"]
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prometheus" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn 2> "$work/prometheus.log" &
prom_pid=$!
prom="http://127.0.0.1:$prom_port"
until curl -sf "$prom/-/ready" >/dev/null; do
  kill -0 "$prom_pid" 2>/dev/null || { cat "$work/prometheus.log" >&2; exit 1; }
  sleep 0.5
done
sleep 5 # a few scrapes before the load
start=$(date +%s)

echo "load for ${seconds}s" >&2
step env HORDE_PORT="$port" HORDE_RCON_PORT="$rcon_port" HORDE_RCON_PASSWORD=x \
  HORDE_QUERY_PORT="$query_port" HORDE_LOAD_SECONDS="$seconds" node scripts/grafana/load.js
sleep 10 # the last gauges and rates settle and get scraped
end=$(date +%s)

# The scrapes must have worked, or the picture would be empty.
up=$(curl -sf "$prom/api/v1/query?query=up")
[[ "$up" == *'"1"]'* ]] || {
  echo "Prometheus is not scraping the server" >&2; cat "$work/prometheus.log" >&2; exit 1; }
step node scripts/grafana/render.js --dashboard docs/grafana-dashboard.json --prometheus "$prom" \
  --start "$start" --end "$end" --step 2 --rate-interval 1m --width 1600 --out docs/grafana.png \
  ${html:+--html "$html"}
echo "docs/grafana.png: $((end - start))s of load rendered" >&2
