//! A short run of every fuzz target (src/fuzz.rs, fuzz/): libFuzzer mutates each door's seeds
//! (fuzz/corpus/TARGET, which also holds every input that once failed; the shipped
//! config.toml for the config) for a fixed number of inputs from a fixed seed, and fails on a
//! panic, a hang, or one allocation past 256 MB. `scripts/fuzz.sh` runs them for longer.

mod support;

use std::process::Command;

use support::{needs, patience, repo, TempDir};

/// Inputs tried per target: a few seconds each here (the region file's target reads and
/// writes two files per input).
fn runs(target: &str) -> u32 {
    match target {
        "region_file" => 2_000,
        "world_data" | "player_data" | "access_lists" => 5_000,
        _ => 30_000,
    }
}

fn fuzz(target: &str) {
    let bin = needs::fuzz_targets().join(target);
    let found = TempDir::new(&format!("fuzz-{target}"));
    let tmp = TempDir::new(&format!("fuzz-{target}-tmp"));
    if target == "config" {
        // The shipped config.toml is the config target's best seed, as it is now.
        std::fs::copy(repo().join("config.toml"), found.path().join("shipped")).unwrap();
    }
    let output = Command::new(&bin)
        .arg(format!("-runs={}", runs(target)))
        .args(["-seed=1", "-rss_limit_mb=2048", "-malloc_limit_mb=256"])
        .arg(format!("-timeout={}", patience().as_secs()))
        .arg(format!("-artifact_prefix={}/", found.path().display()))
        .arg(found.path())
        .arg(repo().join("fuzz/corpus").join(target))
        .env("TMPDIR", tmp.path())
        .output()
        .expect("the fuzz target runs");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{target} failed; the input is in fuzz/corpus/{target} once copied there:\n{}",
        log.lines()
            .rev()
            .take(40)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        log.contains(&format!("Done {} runs", runs(target))),
        "{target} did not run its inputs:\n{log}"
    );
}

#[test]
fn region_files_and_chunks() {
    fuzz("region_file");
}

#[test]
fn world_data_files() {
    fuzz("world_data");
}

#[test]
fn player_data_files() {
    fuzz("player_data");
}

#[test]
fn access_list_files() {
    fuzz("access_lists");
}

#[test]
fn config_files() {
    fuzz("config");
}

#[test]
fn rcon_frames() {
    fuzz("rcon");
}

#[test]
fn query_packets() {
    fuzz("query");
}

#[test]
fn the_proxy_doors_login() {
    fuzz("proxy_login");
}

#[test]
fn console_lines() {
    fuzz("console_line");
}
