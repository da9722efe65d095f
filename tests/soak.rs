//! The chaos soak (scripts/soak) in short: a few clients and every fault once: reloads good
//! and bad, save-all, garbage to both ports, an RCON flood, a client that never reads, a full
//! disk, a slow disk and SIGKILL mid-autosave with a restart. Its own checks decide; timings
//! are only bounded by the tests' patience here (the 30-minute run judges them).

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{patience, TempDir};

#[test]
fn a_short_soak_loses_nothing_and_closes_every_garbage_connection() {
    support::needs::test_clients();
    let out = TempDir::new("soak");
    let mut node = Command::new("node")
        .args([
            "scripts/soak/run.js",
            "--minutes",
            "0",
            "--clients",
            "8",
            "--bots",
            "1",
            "--fault-every",
            "3",
            "--tick-goal-ms",
            "0",
            "--close-within",
        ])
        .arg(patience().as_secs().to_string())
        .arg("--out")
        .arg(out.path())
        .env("HORDE_BIN", env!("CARGO_BIN_EXE_horde"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::fs::File::create(out.path().join("table.md")).unwrap())
        .stderr(std::fs::File::create(out.path().join("soak.log")).unwrap())
        .spawn()
        .expect("node runs");
    // Every wait inside the soak is bounded; this bounds the whole in case one is not.
    let deadline = Instant::now() + patience() * 10;
    let status = loop {
        if let Some(status) = node.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = node.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let table = std::fs::read_to_string(out.path().join("table.md")).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the soak failed ({status:?}):\n{table}\n{}",
        std::fs::read_to_string(out.path().join("soak.log")).unwrap_or_default()
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("soak.json")).unwrap())
            .unwrap();
    let checks = summary["checks"].as_array().unwrap();
    let held = |what: &str| {
        checks
            .iter()
            .any(|c| c["what"].as_str().unwrap().starts_with(what) && c["ok"] == true)
    };
    for what in [
        "reload with a valid edit",
        "reload with an invalid edit",
        "save-all while players move",
        "an RCON flood",
        "a full disk",
        "once space is back",
        "after SIGKILL mid-autosave the population",
        "after SIGKILL mid-autosave every region file reads whole",
        "every saved pack id is back",
        "no player's saved data is lost",
        "no panic",
        "garbage closed (rcon: nothing at all)",
        "garbage closed (minecraft: a client that never reads)",
    ] {
        assert!(held(what), "{what:?} did not hold:\n{table}");
    }
    assert_eq!(summary["lives"], 2, "one restart after the kill:\n{table}");
    println!("{table}");
}
