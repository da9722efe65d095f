#!/usr/bin/env bash
# Load benchmark: the real server under many real clients, five scenarios and their floors
# (see scripts/load/run.js; about 50 minutes, --only NAME for one). Installs the pinned clients
# and plotting library, builds the server and the floor in release, runs, prints the table and
# plots docs/load.png.
#   scripts/load.sh [--only NAME] [--seconds N] [--profile] [--map off|idle|browser] [--no-floor]
#     [--quiet] [--query-flood N]
# --quiet: the players make no noise (by default each makes one every 2 s where it stands).
# --query-flood N: the query on, and N query packets a second thrown at it for the whole run.
# --map: the live map off, served with nobody looking (the default, as shipped), or open in a
# headless chromium for the measured window.
# Output (JSON, per-tick CSVs, perf data with --profile) goes to target/load/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/load
(cd scripts && npm ci --no-audit --no-fund --loglevel=error)
python3 -m venv target/load-venv
target/load-venv/bin/pip install --quiet --disable-pip-version-check -r scripts/load/requirements.txt
cargo build --release --bin horde --example floor
node scripts/load/run.js --out "$out" "$@"
target/load-venv/bin/python scripts/load/plot.py "$out" docs/load.png
echo "plot: docs/load.png; figures: $out/results.json" >&2
