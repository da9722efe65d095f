#!/usr/bin/env bash
# Draws pack trails over one simulated night (headless, seeded) as an SVG map.
#   scripts/pack-trails.sh [OUT.svg]   (default docs/pack-trails.svg)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet --example pack_trails -- "${1:-docs/pack-trails.svg}" 2>/dev/null
