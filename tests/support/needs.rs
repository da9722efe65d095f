//! What the end-to-end, soak and load tests need beyond Rust, each checked before it is used:
//! a test on a machine without it fails at once with one line naming what is missing and the
//! command that installs it, not with an error from deep inside a client. `scripts/test.sh`
//! installs all of them.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::repo;

fn missing(what: &str, install: &str) -> ! {
    panic!("missing {what}: {install}");
}

/// Node.js on PATH.
pub(crate) fn node() {
    let runs = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        missing(
            "Node.js (`node` on PATH)",
            "install Node.js 20, then run scripts/test.sh",
        );
    }
}

/// The pinned npm packages under `scripts/` (mineflayer, the RCON client, the Anvil reader,
/// playwright-core), which also ship the vanilla region fixtures.
pub(crate) fn test_clients() {
    node();
    if !repo().join("scripts/node_modules/mineflayer").exists() {
        missing(
            "the pinned test clients in scripts/node_modules",
            "run scripts/test.sh (or `npm ci` in scripts/)",
        );
    }
}

/// A vanilla world's region file shipped by prismarine-provider-anvil: `version` is its
/// fixture folder (`1.19.4`).
pub(crate) fn vanilla_region(version: &str) -> PathBuf {
    let dir = repo().join("scripts/node_modules/prismarine-provider-anvil/test/fixtures");
    let file = dir.join(version).join("r.0.0.mca");
    if !file.exists() {
        missing(
            &format!("the vanilla {version} region fixture ({})", file.display()),
            "run scripts/test.sh (or `npm ci` in scripts/)",
        );
    }
    file
}

/// Debian's chromium, which the map's browser test drives.
pub(crate) fn chromium() {
    if !std::path::Path::new("/usr/bin/chromium").exists() {
        missing(
            "chromium at /usr/bin/chromium",
            "run scripts/test.sh (or `apt-get install chromium`)",
        );
    }
}

/// The pinned infrarust proxy, whose path scripts/test.sh puts in `HORDE_INFRARUST`.
pub(crate) fn infrarust() -> PathBuf {
    let path = std::env::var_os("HORDE_INFRARUST").map(PathBuf::from);
    match path {
        Some(path) if path.exists() => path,
        _ => missing(
            "the pinned infrarust proxy (HORDE_INFRARUST)",
            "run scripts/test.sh, which builds it into ~/.cache/horde",
        ),
    }
}

/// The fuzz targets built with coverage instrumentation; scripts/test.sh builds them and puts
/// their folder in `HORDE_FUZZ_BIN`.
pub(crate) fn fuzz_targets() -> PathBuf {
    let path = std::env::var_os("HORDE_FUZZ_BIN").map(PathBuf::from);
    match path {
        Some(path) if path.join("config").exists() => path,
        _ => missing(
            "the fuzz targets (HORDE_FUZZ_BIN)",
            "run scripts/test.sh, or `HORDE_FUZZ_BIN=$(scripts/fuzz.sh --build)`",
        ),
    }
}

/// A file of crate `name` as cargo keeps the crate's source (under `CARGO_HOME`): some crates
/// ship real worlds among their test data.
pub(crate) fn crate_file(name: &str, file: &str) -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default();
    let found = std::fs::read_dir(home.join("registry/src"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .filter(|krate| {
            let dir = krate.file_name().to_string_lossy().to_string();
            dir.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('-'))
        })
        .map(|krate| krate.path().join(file))
        .find(|path| path.exists());
    found.unwrap_or_else(|| {
        missing(
            &format!("{file} of the {name} crate"),
            "run `cargo fetch` (the crate is one of horde's dependencies)",
        )
    })
}

/// A Python with the pinned `prometheus_client` (the metrics test's parser), which
/// scripts/test.sh installs into `target/e2e-python`.
pub(crate) fn prometheus_parser() -> PathBuf {
    let python = repo().join("target/e2e-python/bin/python");
    let parses = Command::new(&python)
        .args(["-c", "import prometheus_client.openmetrics.parser"])
        .status()
        .is_ok_and(|s| s.success());
    if !parses {
        missing(
            "prometheus_client in target/e2e-python",
            "run scripts/test.sh (or `python3 -m venv target/e2e-python && target/e2e-python/bin/pip install -r scripts/e2e/requirements.txt`)",
        );
    }
    python
}
