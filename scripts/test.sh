#!/usr/bin/env bash
# The whole test suite: installs the pinned test clients (mineflayer, rcon-client,
# minecraft-server-util, the playwright-core browser driver) from the npm registry exactly as locked in
# scripts/package-lock.json, Python's prometheus_client (pinned in scripts/e2e/requirements.txt,
# into target/e2e-python) for the metrics test, Debian's chromium for the map's browser test and the pinned
# infrarust proxy for the scale-out test when they are missing, builds the fuzz targets, then
# runs every Rust test, unit, headless, fuzz and end-to-end, in the release profile the server
# is built with.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "error: the end-to-end tests need Node.js 20 and npm on PATH" >&2
  exit 1
fi
(cd scripts && npm ci --no-audit --no-fund --loglevel=error)
# The metrics test parses /metrics with prometheus_client's OpenMetrics parser, pinned.
if ! target/e2e-python/bin/python -c 'import prometheus_client' 2>/dev/null; then
  python3 -m venv target/e2e-python
  target/e2e-python/bin/pip install --quiet --disable-pip-version-check -r scripts/e2e/requirements.txt
fi
if ! command -v chromium >/dev/null; then
  echo "installing Debian's chromium for the map's browser test" >&2
  sudo_or_root=""
  [ "$(id -u)" = 0 ] || sudo_or_root="sudo"
  $sudo_or_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_or_root apt-get install -y -qq chromium >/dev/null
fi
HORDE_INFRARUST=$(scripts/install-infrarust.sh)
export HORDE_INFRARUST
# The fuzz targets, instrumented for libFuzzer (a build of their own); tests/fuzz.rs runs each.
HORDE_FUZZ_BIN=$(scripts/fuzz.sh --build)
export HORDE_FUZZ_BIN
cargo test --release "$@"
