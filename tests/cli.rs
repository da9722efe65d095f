//! Bad input at start: the binary refuses it with one clear line and a non-zero exit, never a
//! panic or a backtrace.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::{binary, copy_tree, free_port, repo, TempDir, TestServer};

fn run(args: &[&str], cwd: &Path) -> Output {
    Command::new(binary())
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run horde")
}

/// Asserts a refusal: non-zero exit, one `error:` line containing every `needle`.
fn assert_refused(output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "accepted; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panicked: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "want one error line, got: {stderr}");
    for needle in needles {
        assert!(
            errors[0].contains(needle),
            "{needle:?} not in {:?}",
            errors[0]
        );
    }
}

fn with_config(text: &str) -> TempDir {
    let dir = TempDir::new("cli");
    std::fs::write(dir.path().join("config.toml"), text).unwrap();
    std::fs::create_dir_all(dir.path().join("worlds/default")).unwrap();
    dir
}

#[test]
fn out_of_range_value_is_refused_with_key_value_and_range() {
    let dir = with_config("[server]\nview_distance = 99\n");
    let out = run(&[], dir.path());
    assert_refused(&out, &["server.view_distance", "99", "2..=32"]);
}

#[test]
fn unknown_key_is_refused() {
    let dir = with_config("[time]\nday_lenght_ticks = 24000\n");
    let out = run(&[], dir.path());
    assert_refused(&out, &["time.day_lenght_ticks", "unknown field"]);
}

#[test]
fn wrong_type_is_refused() {
    let dir = with_config("[save]\nautosave_ticks = \"often\"\n");
    let out = run(&[], dir.path());
    assert_refused(&out, &["save.autosave_ticks", "often", "20..=1728000"]);
}

#[test]
fn missing_config_file_is_refused() {
    let dir = TempDir::new("cli");
    let out = run(&["--config", "nope.toml"], dir.path());
    assert_refused(&out, &["nope.toml"]);
}

#[test]
fn missing_world_folder_is_refused() {
    let dir = with_config("[server]\nonline_mode = false\nworld = \"elsewhere\"\n");
    let out = run(&["--port", "0"], dir.path());
    assert_refused(&out, &["worlds/elsewhere", "does not exist"]);
}

#[test]
fn world_that_is_not_a_folder_is_refused() {
    let dir = with_config("");
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let out = run(&["--world", "file", "--port", "0"], dir.path());
    assert_refused(&out, &["file", "is not a folder"]);
}

#[test]
fn world_saved_by_a_newer_horde_is_refused_and_left_alone() {
    let dir = with_config("[server]\nonline_mode = false\n");
    let data = dir.path().join("worlds/default/data");
    std::fs::create_dir_all(&data).unwrap();
    let newer = horde::save::SaveFile::new(data.join("horde_world.dat"), 999);
    newer.write(&Default::default()).unwrap();
    let before = std::fs::read(data.join("horde_world.dat")).unwrap();
    let out = run(&["--port", "0"], dir.path());
    assert_refused(&out, &["horde_world.dat", "newer horde"]);
    assert_eq!(std::fs::read(data.join("horde_world.dat")).unwrap(), before);
}

#[test]
fn bad_arguments_are_refused() {
    let dir = with_config("");
    assert_refused(&run(&["--port", "99999"], dir.path()), &["--port", "99999"]);
    assert_refused(
        &run(&["--frobnicate"], dir.path()),
        &["--frobnicate", "usage"],
    );
    assert_refused(&run(&["--config"], dir.path()), &["--config needs a value"]);
}

#[test]
fn a_busy_game_port_stops_the_start_before_anything_says_it_listens() {
    let taken = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let rcon = free_port();
    let dir = with_config(&format!(
        "[server]\nonline_mode = false\n[rcon]\nenabled = true\nport = {rcon}\npassword = \"x\"\n"
    ));
    let out = run(&["--port", &port], dir.path());
    assert_refused(&out, &[&port, "cannot listen"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("listening"), "said it listens: {stderr}");
}

#[test]
fn a_busy_map_port_is_a_warning_and_the_game_and_rcon_go_on() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let mut server =
        TestServer::start("busy-map", &format!("[map]\nenabled = true\nport = {port}"));
    let warning = server
        .transcript()
        .lines()
        .find(|l| l.contains("the map is off"))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no warning:\n{}", server.transcript()));
    assert!(warning.contains("WARN"), "{warning}");
    assert!(
        warning.contains(&port.to_string()) && warning.contains("map.port"),
        "{warning}"
    );
    // The warning came before the server said it listens.
    let lines: Vec<String> = server.transcript().lines().map(str::to_owned).collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap();
    assert!(at("the map is off") < at("listening for Minecraft"));
    // A player joins and RCON answers.
    server.scenario("join");
    assert!(server.command("list").contains("players="));
}

/// Two backends on one machine from the shipped config, differing only in their game and RCON
/// ports: both run, and the second says its map is off and why.
#[test]
fn two_servers_from_the_shipped_config_both_run() {
    let shipped = std::fs::read_to_string(repo().join("config.toml")).unwrap();
    let start = |name: &str| {
        let dir = TempDir::new(name);
        copy_tree(&repo().join("worlds/default"), &dir.path().join("world"));
        let (port, rcon) = (free_port(), free_port());
        let config = shipped
            .replacen("port = 25565", &format!("port = {port}"), 1)
            .replacen("port = 25575", &format!("port = {rcon}"), 1);
        assert_ne!(config, shipped);
        TestServer::launch(dir, &config, rcon)
    };
    let mut first = start("shipped-1");
    let mut second = start("shipped-2");
    assert!(
        second.transcript().contains("the map is off"),
        "{}",
        second.transcript()
    );
    assert!(second.transcript().contains("map.port"));
    for server in [&mut first, &mut second] {
        assert!(server.command("list").contains("players=0"));
    }
    first.stop();
    second.stop();
}

#[test]
fn a_malformed_list_file_stops_the_server_rather_than_letting_everyone_in() {
    let dir = with_config("[server]\nonline_mode = false\nwhitelist = true\n");
    std::fs::write(dir.path().join("whitelist.json"), "[{\"name\": \"Alex\"").unwrap();
    let out = run(&["--port", "0"], dir.path());
    assert_refused(&out, &["whitelist.json", "not a valid list"]);
}
