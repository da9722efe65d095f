#!/usr/bin/env bash
# Chase benchmark (headless, one process): prints one logfmt line per scenario. See
# benches/chase.rs for what each line measures. HORDE_BENCH_QUICK=1 runs the smallest ones.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench chase --bench packs --bench save 2>/dev/null | grep "^scenario="
