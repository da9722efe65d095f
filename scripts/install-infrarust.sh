#!/usr/bin/env bash
# Prints the path of the pinned infrarust (a Minecraft proxy speaking Velocity's modern
# forwarding), building it once from crates.io into a cache outside the clone. Its manifest
# asks for a newer Rust than it needs, hence --ignore-rust-version.
set -euo pipefail
version=2.0.0-beta.4
root="${XDG_CACHE_HOME:-$HOME/.cache}/horde/infrarust-$version"
mkdir -p "$(dirname "$root")"
# Two suites starting at once build it once.
exec 9> "$root.lock"
flock 9
if [ ! -x "$root/bin/infrarust" ]; then
  echo "installing infrarust $version for the proxy tests (once; about 8 minutes)" >&2
  cargo install infrarust --version "=$version" --locked --no-default-features \
    --ignore-rust-version --root "$root" --quiet >&2
fi
echo "$root/bin/infrarust"
