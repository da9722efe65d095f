//! End to end: the real binary on a free port, joined by mineflayer and driven over RCON.

mod support;

use support::proxy::Proxy;
use support::{Stream, TestServer};

/// Reads `key=value` from a logfmt line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split(|c: char| c.is_whitespace() || c == '"')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

#[test]
fn a_player_joins_stands_sees_time_is_hurt_dies_and_respawns_in_a_world_lit_as_vanillas() {
    let server = TestServer::start("join", "");
    let result = server.scenario("join");
    let spawn_y = result["spawn"][1].as_f64().expect("spawn in result");
    assert!(
        spawn_y > 40.0,
        "spawned on the ground, not in the void: {result}"
    );
    // Sky light in the open, a dark room, a torch's light and its withdrawal.
    server.scenario("light");
    server.stop();
}

#[test]
fn a_flat_world_is_vanillas_superflat_stood_on_at_vanillas_height() {
    let server = TestServer::start("flat", "generator = \"flat\"\n");
    server.scenario("flat");
    server.stop();
}

#[test]
fn rcon_refuses_a_wrong_password_and_runs_commands() {
    let server = TestServer::start("rcon", "");
    server.scenario("rcon");
    server.stop();
}

#[test]
fn behind_velocity_only_the_proxy_with_the_secret_gets_players_in() {
    let mut server = TestServer::start(
        "velocity",
        "connection_mode = \"velocity\"\nvelocity_secret = \"shared-s3cret\"\n",
    );
    server.scenario_with("velocity", &[("HORDE_VELOCITY_SECRET", "shared-s3cret")]);
    // The operator learns which side is wrong.
    server.wait_line(
        Stream::Stderr,
        "signed with another secret than server.velocity_secret",
    );
    server.wait_line(Stream::Stderr, "connected straight to this server");
    server.stop();
}

#[test]
fn two_backends_behind_a_real_proxy_each_get_their_players_and_keep_their_own_world() {
    const BACKEND: &str = "connection_mode = \"velocity\"\nvelocity_secret = \"network-s3cret\"\n";
    let mut a = TestServer::start("proxied-a", BACKEND);
    let b = TestServer::start("proxied-b", BACKEND);
    let proxy = Proxy::start("infrarust", &[a.port, b.port], "network-s3cret");
    let wrong = Proxy::start("infrarust-wrong", &[a.port], "another-secret");
    let result = a.scenario_with(
        "proxy",
        &[
            ("HORDE_PROXY_PORT", &proxy.port.to_string()),
            ("HORDE_WRONG_PROXY_PORT", &wrong.port.to_string()),
            ("HORDE_B_PORT", &b.port.to_string()),
            ("HORDE_B_RCON_PORT", &b.rcon_port.to_string()),
        ],
    );
    eprintln!("{result}\n--- proxy\n{}", proxy.transcript());
    a.wait_line(Stream::Stderr, "connected straight to this server");
    a.wait_line(
        Stream::Stderr,
        "signed with another secret than server.velocity_secret",
    );
    a.stop();
    b.stop();
}

#[test]
fn chunks_load_and_unload_around_a_roaming_player_and_latency_is_measured() {
    let server = TestServer::start("roam", "[chunks]\nretention_ticks = 40\n");
    let result = server.scenario("roam");
    let chunks = result["chunks"].as_str().expect("chunks line");
    let loads: u64 = field(chunks, "load_samples").unwrap().parse().unwrap();
    let unloads: u64 = field(chunks, "unload_samples").unwrap().parse().unwrap();
    let unload_p50: u64 = field(chunks, "unload_p50").unwrap().parse().unwrap();
    assert!(loads > 400, "chunks loaded at four stops: {chunks}");
    assert!(unloads > 100, "chunks left behind were dropped: {chunks}");
    assert!(
        unload_p50 >= 40,
        "dropped only after the retention: {chunks}"
    );
    for key in ["load_p50", "load_p90", "load_p99", "load_max"] {
        let ticks: u64 = field(chunks, key).unwrap().parse().unwrap();
        assert!(ticks < 20 * 60, "{key}={ticks}: loading stalled");
    }
    println!("measured {chunks}");
    server.stop();
}

#[test]
fn the_clock_phase_and_spawn_are_saved_on_stop_and_restored_on_start() {
    let mut server = TestServer::start("clock", "");
    let set = server.command("time set 5000");
    assert!(set.starts_with("daytime=5000 "), "{set}");
    assert!(server.command("phase set 3").starts_with("phase=3 "));
    let spawn = server.command("setworldspawn 12 90 -7");
    assert!(spawn.starts_with("spawn=true x=12 y=90 z=-7 "), "{spawn}");
    let before = server.command("time query");
    let dir = server.stop();
    let mut server = TestServer::start_in(dir, "");
    assert!(
        server
            .transcript()
            .contains("spawn point x=12.5 y=90 z=-6.5 (set)"),
        "the world spawn is saved too:\n{}",
        server.transcript()
    );
    let after = server.command("time query");
    let age = |line: &str| field(line, "gametime").unwrap().parse::<i64>().unwrap();
    let daytime = |line: &str| field(line, "daytime").unwrap().parse::<i64>().unwrap();
    assert!(age(&after) >= age(&before), "{before} then {after}");
    assert!(
        (5000..5000 + 20 * 60).contains(&daytime(&after)),
        "{before} then {after}"
    );
    let phase = server.command("phase");
    assert!(
        phase.starts_with("phase=3 "),
        "the phase is saved too: {phase}"
    );
    server.stop();
}

#[test]
fn sigterm_saves_and_exits_cleanly() {
    let mut server = TestServer::start("sigterm", "");
    server.command("time set 7000");
    server.signal("TERM");
    let status = server.wait_exit();
    assert!(status.success(), "exit {status:?}");
    let saved = server.dir.path().join("world/data/horde_world.dat");
    assert!(saved.exists(), "no save at {}", saved.display());
    let dir = server.into_dir();
    let mut server = TestServer::start_in(dir, "");
    let after = server.command("time query");
    let daytime: i64 = field(&after, "daytime").unwrap().parse().unwrap();
    assert!(daytime >= 7000, "{after}");
    server.stop();
}

#[test]
fn sigint_saves_and_exits_cleanly() {
    let mut server = TestServer::start("sigint", "");
    server.signal("INT");
    server.wait_line(Stream::Stderr, "stopping the server");
    let status = server.wait_exit();
    assert!(status.success(), "exit {status:?}");
    assert!(server
        .dir
        .path()
        .join("world/data/horde_world.dat")
        .exists());
}

#[test]
fn a_vanilla_world_is_served_block_for_block() {
    let dir = support::TempDir::new("vanilla");
    let region = dir.path().join("world/region");
    std::fs::create_dir_all(&region).unwrap();
    // A region saved by vanilla Minecraft, shipped as a test fixture by the npm package.
    let fixture = support::needs::vanilla_region("1.19.4");
    std::fs::copy(&fixture, region.join("r.0.0.mca")).unwrap();
    let mut server = TestServer::start_in(dir, "");
    server.scenario_with(
        "vanilla-world",
        &[("HORDE_REGION_DIR", region.to_str().unwrap())],
    );
    let chunks = server.command("chunks");
    assert_eq!(field(&chunks, "failed"), Some("0"), "{chunks}");
    server.stop();
}

#[test]
fn a_zombie_walks_around_a_wall_hits_the_player_dies_to_a_sword_and_follows_a_runner() {
    let server = TestServer::start("chase", "");
    server.scenario("chase");
    server.stop();
}

#[test]
fn at_noon_a_client_sees_the_open_zombie_burn_the_roofed_not_and_none_when_immune() {
    let server = TestServer::start("daylight", "");
    server.scenario("daylight");
    server.stop();
}

#[test]
fn a_clients_belongings_outlast_leaving_and_a_restart_under_vanillas_offline_uuid() {
    use horde::access::offline::legacy_offline_uuid;
    let mut server = TestServer::start("playerdata", "");
    let left = server.scenario_with("playerdata", &[("HORDE_STEP", "leave")]);
    let spot = left["spot"].to_string();
    assert!(left["spot"].is_object(), "no spot in {left}");
    let uuid = left["uuid"].as_str().expect("the keeper's UUID");
    let playerdata = server.dir.path().join("world/playerdata");
    let file = playerdata.join(format!("{uuid}.dat"));
    server.wait_until("the keeper's file is written under its UUID", |_| {
        file.exists()
    });
    let dir = server.stop();
    // As an older horde left it: the file and the op list under Valence's offline UUID.
    let legacy = legacy_offline_uuid("keeper").hyphenated().to_string();
    std::fs::rename(&file, playerdata.join(format!("{legacy}.dat"))).unwrap();
    let ops = dir.path().join("ops.json");
    let op = format!("[{{\"uuid\": \"{legacy}\", \"name\": \"keeper\", \"level\": 4}}]");
    std::fs::write(&ops, op).unwrap();
    let server = TestServer::start_in(dir, "");
    assert!(
        server
            .transcript()
            .contains("ops.json: players without accounts listed under horde's old UUIDs"),
        "{}",
        server.transcript()
    );
    let ops = std::fs::read_to_string(&ops).unwrap();
    assert!(ops.contains(uuid) && !ops.contains(&legacy), "{ops}");
    server.scenario_with(
        "playerdata",
        &[("HORDE_STEP", "back"), ("HORDE_SPOT", &spot)],
    );
    assert!(
        server
            .transcript()
            .contains("keeper's playerdata moved to vanilla's offline UUID"),
        "{}",
        server.transcript()
    );
    assert!(file.exists(), "the file is under vanilla's UUID again");
    server.stop();
}

#[test]
fn the_live_map_shows_every_pack_and_ghost_in_a_real_browser_and_asks_nobody_else() {
    support::needs::chromium();
    // The pack test's shorter grace, so that the packs become ghosts soon.
    // Room for the browser's few connections and the script's own.
    let cap = 8;
    let server = TestServer::start(
        "map",
        &format!(
            "[chunks]\nretention_ticks = 40\n[pack]\ndematerialise_sweeps = 10\nmax_size = 24\n\
             [map]\nport = 0\nmax_connections = {cap}\n"
        ),
    );
    let transcript = server.transcript();
    let url = transcript
        .lines()
        .find_map(|l| l.split("map at ").nth(1))
        .unwrap_or_else(|| panic!("no map address logged:\n{transcript}"))
        .trim()
        .to_string();
    let screenshot = server.dir.path().join("map.png");
    let config = server.dir.path().join("config.toml");
    server.scenario_with(
        "map",
        &[
            ("HORDE_MAP_URL", &url),
            ("HORDE_CONFIG", config.to_str().unwrap()),
            ("HORDE_SCREENSHOT", screenshot.to_str().unwrap()),
            ("HORDE_MAP_CAP", &cap.to_string()),
        ],
    );
    assert!(screenshot.exists(), "the harness keeps a screenshot");
    server.stop();
}

#[test]
fn whitelist_bans_kicks_spawn_protection_and_refused_commands_as_vanilla() {
    let server = TestServer::start("access", "spawn_protection = 16\n");
    server.scenario("access");
    let lists = server.dir.path();
    for file in [
        "whitelist.json",
        "banned-players.json",
        "banned-ips.json",
        "ops.json",
    ] {
        assert!(
            lists.join(file).exists(),
            "{file} is kept beside config.toml"
        );
    }
    let config = std::fs::read_to_string(lists.join("config.toml")).unwrap();
    assert!(
        config.contains("whitelist = false"),
        "whitelist off is kept: {config}"
    );
    assert!(
        config.contains("natural_regeneration = false"),
        "the game rule is kept: {config}"
    );
    server.stop();
}

#[test]
fn a_client_sees_rain_begin_and_end_and_the_rain_is_back_after_a_restart() {
    let server = TestServer::start("weather", "");
    server.scenario("weather");
    let server = TestServer::start_in(server.stop(), "");
    server.scenario_with("weather", &[("HORDE_STEP", "after-restart")]);
    server.stop();
}

#[test]
fn a_client_digs_and_places_another_sees_both_and_both_still_do_after_a_restart() {
    let mut server = TestServer::start("build", "");
    let built = server.scenario("build");
    let saved = server.command("save-all");
    let chunks: usize = field(&saved, "chunks").unwrap().parse().unwrap();
    assert!(chunks >= 1, "{saved}");
    let dir = server.stop();
    assert!(dir.path().join("world/region").read_dir().unwrap().count() > 0);
    let server = TestServer::start_in(dir, "");
    // The answer names the changed blocks.
    server.scenario_with(
        "build",
        &[
            ("HORDE_STEP", "after-restart"),
            ("HORDE_SPOT", &built.to_string()),
        ],
    );
    server.stop();
}

#[test]
fn a_survival_client_walled_in_at_night_is_dug_out_and_the_holes_outlast_a_restart() {
    // Spawn protection would keep the zombie out of a box at the spawn.
    let server = TestServer::start("siege", "spawn_protection = 0\n");
    let sieged = server.scenario("siege");
    let ticks = sieged["ticks"].as_u64().unwrap();
    // Two blocks of dirt at vanilla's 15 ticks each, the walk, the swing: well within a minute.
    assert!(ticks < 1200, "hurt after {ticks} ticks: {sieged}");
    eprintln!("walled in: hurt after {ticks} ticks; {}", sieged["zombies"]);
    let server = TestServer::start_in(server.stop(), "spawn_protection = 0\n");
    server.scenario_with(
        "siege",
        &[
            ("HORDE_STEP", "after-restart"),
            ("HORDE_SPOT", &sieged.to_string()),
        ],
    );
    server.stop();
}

#[test]
fn operators_tools_see_the_list_the_query_and_the_metrics_and_a_query_flood_is_dropped() {
    let python = support::needs::prometheus_parser();
    let server = TestServer::start(
        "status",
        "motd = \"§2horde §7under test\"\nhide_online_players = false\n\
         [metrics]\nport = 0\n[query]\nenabled = true\nport = 0\n",
    );
    let logged = |needle: &str| {
        let transcript = server.transcript();
        let line = transcript
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?}:\n{transcript}"))
            .to_string();
        line
    };
    let metrics = logged("metrics at ");
    let metrics = metrics
        .split("metrics at ")
        .nth(1)
        .unwrap()
        .trim()
        .to_string();
    let query = logged("query (GameSpy4) on udp ");
    let query_port = query.rsplit(':').next().unwrap().trim().to_string();
    let config = server.dir.path().join("config.toml");
    let seen = server.scenario_with(
        "status",
        &[
            ("HORDE_METRICS", &metrics),
            ("HORDE_QUERY_PORT", &query_port),
            ("HORDE_CONFIG", config.to_str().unwrap()),
            ("HORDE_PYTHON", python.to_str().unwrap()),
        ],
    );
    eprintln!("status: {seen}");
    server.stop();
}

#[test]
fn a_client_digging_at_night_out_of_sight_draws_a_zombie_to_the_place() {
    // Zombies stroll no more than 2 blocks, so the one behind the wall stays within earshot.
    let server = TestServer::start("noise", "[zombies]\nwander_radius = 2.0\n");
    let heard = server.scenario("noise");
    eprintln!("noise: {heard}");
    server.stop();
}

#[test]
fn a_survival_client_falls_heals_hears_wears_iron_loots_eats_crafts_and_its_drop_outlasts_a_restart(
) {
    let server = TestServer::start("survival", "");
    // First, on the same server: from five logs, raw iron and coal to a chest and an iron
    // sword, and a night slept through (before the survivor's emeralds lie at the spawn).
    let crafted = server.scenario("craft");
    eprintln!("craft: {crafted}");
    assert_eq!(crafted["made"]["iron_sword"], 1, "{crafted}");
    assert!(
        crafted["slept"]["dayTime"]
            .as_i64()
            .is_some_and(|t| t < 1000),
        "the night slept through: {crafted}"
    );
    let lived = server.scenario("survival");
    eprintln!("survival: {lived}");
    let server = TestServer::start_in(server.stop(), "");
    let after = server.scenario_with(
        "survival",
        &[
            ("HORDE_STEP", "after-restart"),
            ("HORDE_SPOT", &lived.to_string()),
        ],
    );
    assert!(after["moved"].as_f64().unwrap() < 0.01, "{after}");
    let kept = server.scenario_with(
        "craft",
        &[
            ("HORDE_STEP", "after-restart"),
            ("HORDE_SPOT", &crafted.to_string()),
        ],
    );
    eprintln!("craft after restart: {kept}");
    server.stop();
}

#[test]
fn a_vanilla_chunk_edited_and_saved_keeps_what_horde_does_not_model() {
    let dir = support::TempDir::new("vanilla-save");
    let region = dir.path().join("world/region");
    std::fs::create_dir_all(&region).unwrap();
    let fixture = support::needs::vanilla_region("1.19.4");
    let fixtures = fixture.parent().unwrap();
    std::fs::copy(&fixture, region.join("r.0.0.mca")).unwrap();
    let mut server = TestServer::start_in(dir, "");
    // Two sections of chunk 0 0, one of them partly underground.
    let (from, to) = ("3 60 3", "6 70 6");
    server.wait_until("the spawn chunks are loaded", |s| {
        let filled = s.command(&format!("fill {from} {to} glass"));
        field(&filled, "unloaded") == Some("0")
    });
    // The edited chunk, and those beside it on disk whose light the edit changed.
    let saved = server.command("save-all");
    let chunks: u32 = field(&saved, "chunks")
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    assert!(chunks >= 1, "{saved}");
    let box_ = format!("{from} {to} glass");
    server.scenario_with(
        "region-save",
        &[
            ("HORDE_SAVED_DIR", region.to_str().unwrap()),
            ("HORDE_ORIGINAL_DIR", fixtures.to_str().unwrap()),
            ("HORDE_BOX", &box_),
        ],
    );
    // And horde serves the saved chunk, edits included, to a client after a restart.
    let dir = server.stop();
    let server = TestServer::start_in(dir, "");
    server.scenario_with(
        "vanilla-world",
        &[("HORDE_REGION_DIR", region.to_str().unwrap())],
    );
    server.stop();
}

#[test]
fn a_pack_survives_a_short_trip_becomes_a_ghost_on_a_long_one_and_comes_back() {
    // A shorter grace and retention than shipped, in the same proportion, to keep the test short.
    let server = TestServer::start(
        "pack",
        "[chunks]\nretention_ticks = 40\n[pack]\ndematerialise_sweeps = 10\n",
    );
    server.scenario_with("pack", &[("HORDE_GRACE_SWEEPS", "10")]);
    server.stop();
}

/// At night, on a flat stone field around the spawn, six zombies close enough to form a pack.
fn six_zombies_on_a_field(server: &mut TestServer) {
    server.command("time set 14000");
    let line = server.command("summon zombie ~ ~ ~");
    let at: Vec<f64> = ["x", "y", "z"]
        .iter()
        .map(|k| field(&line, k).unwrap().parse().unwrap())
        .collect();
    let (x, y, z) = (
        at[0].floor() as i64,
        at[1].floor() as i64,
        at[2].floor() as i64,
    );
    server.command(&format!(
        "fill {} {} {} {} {} {} stone",
        x - 8,
        y - 2,
        z - 8,
        x + 8,
        y - 1,
        z + 8
    ));
    server.command(&format!(
        "fill {} {} {} {} {} {} air",
        x - 8,
        y,
        z - 8,
        x + 8,
        y + 5,
        z + 8
    ));
    for i in 0..5 {
        server.command(&format!(
            "summon zombie {}.5 {y} {}.5",
            x + 1 + i % 3,
            z + i / 3
        ));
    }
}

/// `packs` lines as (id, members + ghosts, state).
fn pack_lines(packs: &str) -> Vec<(u64, u64, String)> {
    packs
        .lines()
        .filter(|l| l.starts_with("id="))
        .map(|l| {
            let n = |k: &str| field(l, k).unwrap().parse::<u64>().unwrap();
            (
                n("id"),
                n("members") + n("ghosts"),
                field(l, "state").unwrap().to_string(),
            )
        })
        .collect()
}

/// Reads every line of a multi-line console answer (`packs`).
fn packs_of(server: &mut TestServer) -> String {
    let first = server.command("packs");
    let mut lines = vec![first];
    while !lines.last().unwrap().starts_with("packs=") {
        lines.push(server.wait_line(Stream::Stdout, "="));
    }
    lines.join("\n")
}

#[test]
fn packs_survive_a_restart_and_a_kill_after_an_autosave_readable_by_a_third_party_nbt_reader() {
    let mut server = TestServer::start("persist", "[save]\nautosave_ticks = 100\n");
    six_zombies_on_a_field(&mut server);
    // Zombies act only near a player: a bot watches while the pack forms.
    server.scenario_with("watch", &[("HORDE_WATCH_SECONDS", "15")]);
    let before = pack_lines(&packs_of(&mut server));
    assert!(!before.is_empty(), "a pack formed");

    // Stop and start again: the same packs come back (as ghosts until someone is near).
    let dir = server.stop();
    let data = dir.path().join("world/data");
    support::needs::test_clients();
    let read = std::process::Command::new("node")
        .arg(support::repo().join("scripts/e2e/read-save.js"))
        .arg(&data)
        .current_dir(support::repo().join("scripts"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&read.stdout);
    assert!(
        read.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&read.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON from read-save.js");
    assert_eq!(json["dataVersion"], 3465, "{json}");
    let saved: Vec<(u64, u64)> = json["packs"]
        .as_array()
        .expect("packs")
        .iter()
        .map(|p| (p["id"].as_u64().unwrap(), p["members"].as_u64().unwrap()))
        .collect();
    for (id, members, _) in &before {
        assert!(
            saved.contains(&(*id, *members)),
            "pack {id} of {members} in {json}"
        );
    }
    let mut server = TestServer::start_in(dir, "[save]\nautosave_ticks = 100\n");
    let after = pack_lines(&packs_of(&mut server));
    let ids = |v: &[(u64, u64, String)]| v.iter().map(|(i, m, _)| (*i, *m)).collect::<Vec<_>>();
    assert_eq!(
        ids(&after),
        ids(&before),
        "same ids and member counts after a restart"
    );

    // An autosave, then kill -9: nothing saved is lost.
    server.wait_line(Stream::Stderr, "autosaved");
    server.signal("KILL");
    server.wait_exit();
    let dir = server.into_dir();
    let mut server = TestServer::start_in(dir, "");
    let after_kill = pack_lines(&packs_of(&mut server));
    assert_eq!(ids(&after_kill), ids(&before), "same packs after kill -9");
    server.stop();
}

#[test]
fn reload_applies_live_keys_refuses_bad_edits_and_defers_restart_keys() {
    let mut server = TestServer::start("reload", "");
    let config = server.dir.path().join("config.toml");
    assert_eq!(server.command("config pack.max_size"), "pack.max_size=24");
    six_zombies_on_a_field(&mut server);
    let mut watcher = server.scenario_in_background("watch", &[("HORDE_WATCH_SECONDS", "60")]);
    let biggest = |server: &mut TestServer| {
        pack_lines(&packs_of(server))
            .iter()
            .map(|(_, m, _)| *m)
            .max()
            .unwrap_or(0)
    };
    server.wait_until("a pack of six formed", |s| biggest(s) == 6);

    // Pack and chase keys apply live; a restart key is reported and left alone.
    let text = std::fs::read_to_string(&config).unwrap();
    let edited = text.replace(
        "view_distance = 6\n",
        "view_distance = 6\nmax_players = 5\n",
    ) + "[pack]\nmax_size = 3\n[chase]\nhop_radius = 6.0\n";
    std::fs::write(&config, &edited).unwrap();
    let answer = server.command("reload");
    assert_eq!(
        answer,
        "reloaded=true changed=chase.hop_radius,pack.max_size restart_required=server.max_players lists_reloaded=true"
    );
    assert_eq!(server.command("config pack.max_size"), "pack.max_size=3");
    assert_eq!(
        server.command("config chase.hop_radius"),
        "chase.hop_radius=6.0"
    );
    assert_eq!(
        server.command("config server.max_players"),
        "server.max_players=20"
    );
    server.wait_until("the pack was trimmed to 3", |s| biggest(s) <= 3);
    let zombies = server.command("zombies");
    assert_eq!(
        field(&zombies, "total"),
        Some("6"),
        "nobody was deleted: {zombies}"
    );

    // A bad edit is refused with the start-up message and changes nothing.
    std::fs::write(&config, edited.replace("max_size = 3", "max_size = 0")).unwrap();
    let refused = server.command("reload");
    assert!(refused.starts_with("reloaded=false error="), "{refused}");
    assert!(
        refused.contains("pack.max_size = 0: is out of range (allowed 2..=1000)"),
        "{refused}"
    );
    assert_eq!(server.command("config pack.max_size"), "pack.max_size=3");
    let _ = watcher.kill();
    let _ = watcher.wait();
    server.stop();
}

#[test]
fn a_running_hunt_and_its_zombies_survive_a_restart() {
    // One zombie in all: no later wave can change the figures between the stop and the
    // questions after the restart, however long either takes.
    let single = "[[hunt.presets]]\nname = \"single\"\ntypes = [\"zombie_gladiator\"]\n\
                  max_spawn = 1\nspawn_rate_s = 1.0\nmax_alive = 1\nmax_total = 1\n\
                  round_time_s = 600.0\nspawn_points = [[14.0, 0.0]]\n";
    let mut server = TestServer::start("hunt-save", single);
    server.command("time set 14000");
    assert_eq!(
        server.command("hunt start single"),
        "hunt=single starting=true"
    );
    // The first wave comes after the preset's spawn rate.
    server.wait_until("the first wave", |s| {
        field(&s.command("hunt"), "spawned").is_some_and(|n| n != "0")
    });
    let status = server.command("hunt");
    let spawned = field(&status, "spawned").unwrap().to_string();
    assert_eq!(spawned, "1", "{status}");
    let zombies_before = field(&server.command("zombies"), "total")
        .unwrap()
        .to_string();
    let dir = server.stop();
    let mut server = TestServer::start_in(dir, single);
    let resumed = server.command("hunt");
    assert!(resumed.starts_with("hunt=single "), "{resumed}");
    assert_eq!(
        field(&resumed, "spawned"),
        Some(spawned.as_str()),
        "{resumed}"
    );
    let zombies_after = server.command("zombies");
    assert_eq!(
        field(&zombies_after, "total"),
        Some(zombies_before.as_str()),
        "{zombies_after}"
    );
    server.stop();
}
