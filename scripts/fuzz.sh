#!/usr/bin/env bash
# Fuzzes every door through which bytes from outside come in (src/fuzz.rs, one target each in
# fuzz/) with libFuzzer, on the stable toolchain: builds the targets with LLVM's coverage
# instrumentation, then runs each for SECONDS (60) from its seeds (fuzz/corpus/TARGET) and what
# earlier runs found (target/fuzz/corpus/TARGET). An input that panics, hangs (10 s), or asks
# for more than 256 MB at once stops the run and is kept in target/fuzz/artifacts/TARGET/.
# Prints each target's executions, coverage and corpus.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#   scripts/fuzz.sh --build     builds the targets only and prints the folder they are in
set -euo pipefail
cd "$(dirname "$0")/.."
triple=$(rustc -vV | sed -n 's/^host: //p')
# The flags cargo-fuzz passes with `--sanitizer none` (its sanitizers need nightly): coverage
# counters, comparison tracing and the table of program counters for libFuzzer, `cfg(fuzzing)`,
# and debug assertions and overflow checks on. With --target they reach the target's crates
# only, not the build scripts and macros, which are shared with the release build.
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
cargo build --release --quiet -p horde-fuzz --bins --target "$triple"
bin="target/$triple/release"
if [ "${1:-}" = "--build" ]; then
  echo "$PWD/$bin"
  exit 0
fi
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^horde-fuzz$')
fi
export TMPDIR="$PWD/target/fuzz/tmp"
mkdir -p "$TMPDIR"
# The longest input worth trying: a file's seeds are kilobytes, a frame or a line short.
max_len() {
  case "$1" in
    region_file | world_data | config) echo 65536 ;;
    player_data) echo 16384 ;;
    *) echo 4096 ;;
  esac
}
for t in "${targets[@]}"; do
  mkdir -p "target/fuzz/corpus/$t" "target/fuzz/artifacts/$t"
  # The shipped config.toml is the config target's best seed, as it is now.
  [ "$t" != config ] || cp config.toml "target/fuzz/corpus/$t/shipped"
  log="target/fuzz/$t.log"
  "$bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
    -max_len="$(max_len "$t")" -print_final_stats=1 \
    -artifact_prefix="target/fuzz/artifacts/$t/" "target/fuzz/corpus/$t" "fuzz/corpus/$t" 2>"$log" || {
    tail -40 "$log" >&2
    echo "error: $t found a failure; the input is in target/fuzz/artifacts/$t/" >&2
    exit 1
  }
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(ls "target/fuzz/corpus/$t" | wc -l)
  echo "$t seconds=$seconds execs=$execs execs_per_s=$((execs / seconds)) cov=$cov features=$ft corpus=$((corpus + $(ls "fuzz/corpus/$t" | wc -l)))"
done
rm -rf "$TMPDIR"
