//! The load harness (scripts/load) on a tiny crowd: one lean protocol client (playing: it
//! stands on the ground and fights) and two mineflayer bots, 60 zombies, a few seconds on horde
//! and on the floor. The benchmark's figures are not checked here (they are timings); what is
//! checked is that each part still measures something.

mod support;

use std::process::Command;

use serde_json::Value;
use support::TempDir;

#[test]
fn the_load_harness_measures_horde_and_the_floor() {
    support::needs::test_clients();
    let out = TempDir::new("load");
    let horde = std::path::Path::new(env!("CARGO_BIN_EXE_horde"));
    // `cargo test` builds the examples beside the binaries.
    let floor = horde.parent().unwrap().join("examples/floor");
    assert!(floor.exists(), "no floor example at {}", floor.display());
    let status = Command::new("node")
        .args([
            "scripts/load/run.js",
            "--only",
            "smoke",
            "--seconds",
            "12",
            "--out",
        ])
        .arg(out.path())
        .env("HORDE_BIN", horde)
        .env("HORDE_FLOOR_BIN", &floor)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("node runs");
    assert!(status.success(), "the harness failed: {status:?}");

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("results.json")).unwrap())
            .unwrap();
    let runs = results.as_array().unwrap();
    assert_eq!(runs.len(), 2, "horde and the floor");
    for run in runs {
        let name = if run["floor"].as_bool().unwrap() {
            "floor"
        } else {
            "horde"
        };
        let tick = &run["tick"];
        assert!(
            tick["ticks"].as_u64().unwrap() > 0,
            "{name}: no tick recorded"
        );
        let (p50, p99, max) = (
            tick["p50"].as_f64().unwrap(),
            tick["p99"].as_f64().unwrap(),
            tick["max"].as_f64().unwrap(),
        );
        assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{name}: {tick}");
        let phases = run["phases"].as_array().unwrap();
        assert_eq!(phases.len(), 3, "{name}: home, away, back: {phases:?}");
        let in_phases: u64 = phases.iter().map(|p| p["ticks"].as_u64().unwrap()).sum();
        assert_eq!(
            in_phases,
            tick["ticks"].as_u64().unwrap(),
            "{name}: every tick in one phase: {phases:?}"
        );
        assert!(
            phases.iter().all(|p| p["ticks"].as_u64().unwrap() > 0),
            "{name}: a phase without ticks: {phases:?}"
        );
        let machine = &run["machine"];
        assert!(
            machine["cores"].as_u64().unwrap() > 0
                && machine["commit"].as_str().is_some_and(|c| c.len() == 40),
            "{name}: the machine and the commit are recorded: {machine}"
        );
        // The tick's phases are timed apart (src/metrics/phases.rs); the floor has no zombie
        // systems, and both write layers.
        let tick_phases = &run["tickPhases"];
        let ms = |p: &str| tick_phases[p].as_f64();
        assert!(
            ["world", "players", "zombies", "clients", "flush"]
                .iter()
                .all(|p| ms(p).is_some_and(|ms| ms >= 0.0))
                && ms("layers").is_some_and(|ms| ms > 0.0)
                && (name == "floor" || ms("zombies").is_some_and(|ms| ms > 0.0)),
            "{name}: {tick_phases}"
        );
        assert!(
            run["memory"]["crowdMiB"].as_f64().unwrap() > 0.0,
            "{name}: {}",
            run["memory"]
        );
        // The smoke's one lean client is the crowd's first player: a fighter.
        assert_eq!(run["roles"]["fighter"], 1, "{name}: {}", run["roles"]);
        let client = &run["client"];
        assert!(client["kBps"].as_f64().unwrap() > 0.0, "{name}: {client}");
        assert!(
            client["zombieKBps"].as_f64().unwrap() > 0.0
                && client["zombiesInView"].as_f64().unwrap() > 0.0,
            "{name}: the lean client saw no zombie: {client}"
        );
        let watchers = run["watchers"].as_array().unwrap();
        assert!(
            watchers
                .iter()
                .any(|w| w["mostZombies"].as_u64().unwrap() > 0),
            "{name}: no mineflayer bot saw a zombie: {watchers:?}"
        );
        assert!(
            std::fs::metadata(out.path().join(format!(
                "smoke{}-ticks.csv",
                if name == "floor" { "-floor" } else { "" }
            )))
            .unwrap()
            .len()
                > 0
        );
    }
    let horde_run = runs.iter().find(|r| r["floor"] == false).unwrap();
    let last = horde_run["timeline"].as_array().unwrap().last().unwrap();
    assert!(
        last["total"].as_u64().unwrap() + last["ghost_members"].as_u64().unwrap() > 0,
        "horde reported no zombies: {last}"
    );
}
