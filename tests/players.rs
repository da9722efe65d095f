//! Players, headless: no death loop at a spawn camped by zombies. As in vanilla, a player who
//! has just respawned or joined cannot be hurt by mobs for `server.spawn_invulnerable_ticks`.

mod support;

use horde::common::body::Dead;
use horde::player::{Health, MAX_HEALTH};
use support::headless::harness;
use valence::prelude::*;
use valence::status::RequestRespawnEvent;
use valence::testing::create_mock_client;

#[test]
fn a_player_killed_at_a_camped_spawn_respawns_protected_for_sixty_ticks() {
    let mut h = harness();
    let protection = h
        .app
        .world
        .resource::<horde::config::Config>()
        .server
        .spawn_invulnerable_ticks;
    assert_eq!(protection, 60, "vanilla's spawnInvulnerableTime");
    h.run("time set midnight");
    let spawn = h.spawn_point();
    for i in 0..6 {
        let angle = i as f64 * std::f64::consts::TAU / 6.0;
        h.run(&format!(
            "summon zombie {} ~ {}",
            spawn.x + angle.cos(),
            spawn.z + angle.sin()
        ));
    }
    // The zombies kill the player at the spawn.
    for _ in 0..4000 {
        h.app.update();
        if h.app.world.get::<Dead>(h.client).is_some() {
            break;
        }
        // Keep the player where the zombies camp.
        h.app.world.get_mut::<Position>(h.client).unwrap().0 = spawn;
    }
    assert!(h.app.world.get::<Dead>(h.client).is_some(), "killed");

    h.app
        .world
        .send_event(RequestRespawnEvent { client: h.client });
    h.app.update();
    assert!(h.app.world.get::<Dead>(h.client).is_none(), "respawned");
    let back = h.app.world.get::<Position>(h.client).unwrap().0;
    assert!(
        back.distance(spawn) < 1.0,
        "at the spawn, among the zombies"
    );
    for tick in 1..protection {
        h.app.update();
        assert_eq!(
            h.app.world.get::<Health>(h.client).unwrap().0,
            MAX_HEALTH,
            "hurt {tick} ticks after respawning"
        );
    }
    // The zombies are still there: past the protection they hurt again.
    let mut hurt = false;
    for _ in 0..400 {
        h.app.update();
        hurt |= h
            .app
            .world
            .get::<Health>(h.client)
            .is_some_and(|health| health.0 < MAX_HEALTH);
        if hurt {
            break;
        }
    }
    assert!(hurt, "the protection ends");

    // A player who joins at the camped spawn is protected the same way.
    let (bundle, _helper) = create_mock_client("newcomer");
    let newcomer = h.app.world.spawn(bundle).id();
    h.app.update();
    assert!(
        h.app
            .world
            .get::<Position>(newcomer)
            .unwrap()
            .0
            .distance(spawn)
            < 1.0,
        "joined at the spawn"
    );
    for tick in 1..protection {
        h.app.update();
        assert_eq!(
            h.app.world.get::<Health>(newcomer).unwrap().0,
            MAX_HEALTH,
            "hurt {tick} ticks after joining"
        );
    }
}

#[test]
fn a_player_keeps_place_health_mode_and_inventory_across_a_restart() {
    let mut h = harness();
    let id = *h.app.world.get::<UniqueId>(h.client).unwrap();
    let spot = h.spawn_point() + DVec3::new(3.0, 0.0, 2.0);
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = spot;
    h.run("give tester oak_log 7");
    h.run("gamemode adventure tester");
    h.run("damage tester 5");
    h.app.update();
    assert!(h.run("save-all").starts_with("saved=true "));

    // The same player (by UUID) joins the server started again on the same folder.
    let mut app = horde::headless::start(horde::config::Config::default(), h.world.path()).unwrap();
    let (bundle, _helper) = create_mock_client("tester");
    let again = app.world.spawn(bundle).id();
    app.world.entity_mut(again).insert(id);
    app.update();
    app.update();
    assert_eq!(app.world.get::<Position>(again).unwrap().0, spot);
    assert_eq!(
        *app.world.get::<GameMode>(again).unwrap(),
        GameMode::Adventure
    );
    assert_eq!(app.world.get::<Health>(again).unwrap().0, MAX_HEALTH - 5.0);
    let inventory = app.world.get::<Inventory>(again).unwrap();
    let logs: u32 = (0..inventory.slot_count())
        .filter_map(|i| inventory.slot(i))
        .filter(|s| s.item == ItemKind::OakLog)
        .map(|s| s.count() as u32)
        .sum();
    assert_eq!(logs, 7);
}

/// The chat lines (not the action bar) a client was sent since the last look, as text.
fn chat_lines(helper: &mut valence::testing::MockClientHelper) -> Vec<String> {
    use valence::protocol::packets::play::GameMessageS2c;
    use valence::protocol::Packet;
    helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == GameMessageS2c::ID)
        .filter_map(|f| f.decode::<GameMessageS2c>().ok())
        .filter(|m| !m.overlay)
        .map(|m| format!("{:?}", m.chat))
        .collect()
}

/// What `helper`'s player was told as they were disconnected, if they were.
fn kicked_for(helper: &mut valence::testing::MockClientHelper) -> Option<String> {
    use valence::protocol::packets::play::DisconnectS2c;
    use valence::protocol::Packet;
    helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == DisconnectS2c::ID)
        .find_map(|f| f.decode::<DisconnectS2c>().ok())
        .map(|d| format!("{:?}", d.reason))
}

fn say(helper: &mut valence::testing::MockClientHelper, message: &str) {
    helper.send(&valence::protocol::packets::play::ChatMessageC2s {
        message,
        timestamp: 0,
        salt: 0,
        signature: None,
        message_count: valence::protocol::VarInt(0),
        acknowledgement: [0; 3],
    });
}

#[test]
fn players_chat_as_vanilla_and_a_control_character_or_a_flood_disconnects() {
    let mut h = harness();
    let (bundle, mut other) = create_mock_client("second");
    let second = h.app.world.spawn(bundle).id();
    h.app.update();
    h.app.update();
    let heard = chat_lines(&mut h.helper);
    assert!(
        heard
            .iter()
            .any(|l| l.contains("multiplayer.player.joined") && l.contains("second")),
        "{heard:?}"
    );
    assert!(
        !chat_lines(&mut other)
            .iter()
            .any(|l| l.contains("multiplayer.player.joined")),
        "not told of their own coming"
    );

    say(&mut h.helper, "hello there");
    h.app.update();
    for lines in [chat_lines(&mut h.helper), chat_lines(&mut other)] {
        assert!(
            lines.iter().any(|l| l.contains("chat.type.text")
                && l.contains("\"tester\"")
                && l.contains("hello there")),
            "{lines:?}"
        );
    }

    say(&mut other, "ring\u{7}");
    h.app.update();
    let reason = kicked_for(&mut other).expect("disconnected");
    assert!(reason.contains("illegal_characters"), "{reason}");
    assert!(h.app.world.get::<horde::access::Kicked>(second).is_some());
    h.app.update();
    h.app.update();
    let heard = chat_lines(&mut h.helper);
    assert!(
        heard.iter().all(|l| !l.contains("ring")),
        "nobody reads it: {heard:?}"
    );
    assert!(
        heard
            .iter()
            .any(|l| l.contains("multiplayer.player.left") && l.contains("second")),
        "{heard:?}"
    );

    // A second after the last line, ten lines at once are chat; the eleventh is a flood.
    for _ in 0..20 {
        h.app.update();
    }
    for i in 0..10 {
        say(&mut h.helper, &format!("line {i}"));
    }
    h.app.update();
    assert_eq!(kicked_for(&mut h.helper), None);
    say(&mut h.helper, "one too many");
    h.app.update();
    let reason = kicked_for(&mut h.helper).expect("kicked for spam");
    assert!(reason.contains("disconnect.spam"), "{reason}");
}

#[test]
fn the_console_says_whispers_and_emotes_as_vanillas_does() {
    let mut h = harness();
    h.app.update();
    chat_lines(&mut h.helper);
    assert!(h.run("say the gates close at dusk").starts_with("said="));
    h.run("msg tester psst");
    h.run("me looks around");
    h.app.update();
    let heard = chat_lines(&mut h.helper);
    let has = |key: &str, words: &str| heard.iter().any(|l| l.contains(key) && l.contains(words));
    assert!(
        has("chat.type.announcement", "the gates close at dusk"),
        "{heard:?}"
    );
    assert!(has("chat.type.announcement", "\"Server\""), "{heard:?}");
    assert!(
        has("commands.message.display.incoming", "psst"),
        "{heard:?}"
    );
    assert!(has("chat.type.emote", "looks around"), "{heard:?}");
    assert!(h.run("msg nobody hello").contains("no player named nobody"));
    assert!(h.run("say").starts_with("usage: say"));

    // tellraw and title: a JSON text in chat and on the screen.
    h.run(r#"tellraw tester {"text":"the wall holds","color":"gold"}"#);
    h.run(r#"title tester title {"text":"Night falls"}"#);
    h.app.update();
    let frames = h.helper.collect_received();
    use valence::protocol::Packet;
    let titled = frames
        .0
        .iter()
        .filter(|f| f.id == valence::protocol::packets::play::TitleS2c::ID)
        .filter_map(|f| {
            f.decode::<valence::protocol::packets::play::TitleS2c>()
                .ok()
        })
        .any(|t| format!("{:?}", t.title_text).contains("Night falls"));
    assert!(titled, "the title reached the screen");
    let told = frames
        .0
        .iter()
        .filter_map(|f| {
            f.decode::<valence::protocol::packets::play::GameMessageS2c>()
                .ok()
        })
        .any(|m| format!("{:?}", m.chat).contains("the wall holds"));
    assert!(told, "tellraw reached the chat");
}

#[test]
fn operators_clear_inventories_and_give_and_set_experience_as_vanillas_do() {
    let mut h = harness();
    h.app.update();
    h.run("give tester dirt 5");
    h.run("give tester bread 2");
    h.app.update();
    assert_eq!(h.run("clear tester dirt 2"), "cleared=2 player=tester");
    assert_eq!(h.count(ItemKind::Dirt), 3);
    assert_eq!(h.run("clear tester"), "cleared=5 player=tester");
    assert_eq!(h.count(ItemKind::Bread), 0);
    assert!(h.run("clear tester").contains("No items were found"));

    assert!(h.run("xp add tester 30 levels").starts_with("added=30"));
    assert_eq!(
        h.run("xp query tester levels"),
        "has=30 unit=levels player=tester"
    );
    assert!(h
        .run("xp set tester 112 points")
        .contains("above the maximum"));
    h.run("xp set tester 100 points");
    assert_eq!(
        h.run("experience query tester points"),
        "has=100 unit=points player=tester"
    );
    h.run("xp add tester -31 levels");
    assert_eq!(
        h.run("xp query tester levels"),
        "has=0 unit=levels player=tester"
    );
    assert!(h.run("seed").starts_with("seed="));

    // Game rules horde keeps as configuration keys, by their vanilla names.
    assert_eq!(
        h.run("gamerule fallDamage"),
        "rule=fallDamage value=true key=survival.fall_damage"
    );
    assert_eq!(
        h.run("gamerule fallDamage false"),
        "rule=fallDamage value=false key=survival.fall_damage"
    );
    let config = h.app.world.resource::<horde::config::Config>();
    assert!(!config.survival.fall_damage);
    assert!(h
        .run("gamerule playersSleepingPercentage 1000")
        .contains("out of range"));
    assert!(h.run("gamerule fallDamage 3").starts_with("error="));
    assert!(h.run("gamerule randomTickSpeed 3").contains("no game rule"));

    // keepInventory: a player who dies keeps what they carried and their levels.
    h.run("gamerule keepInventory true");
    h.run("give tester dirt 4");
    h.run("xp set tester 3 levels");
    h.run("kill tester");
    h.app.update();
    h.app.update();
    assert!(h.app.world.get::<Dead>(h.client).is_some(), "killed");
    assert_eq!(h.count(ItemKind::Dirt), 4, "the dirt is kept");
    assert_eq!(
        h.run("xp query tester levels"),
        "has=3 unit=levels player=tester"
    );
    h.app
        .world
        .send_event(RequestRespawnEvent { client: h.client });
    h.app.update();
    h.app.update();
    assert_eq!(
        h.count(ItemKind::Dirt),
        4,
        "and still there after respawning"
    );
    h.run("gamerule keepInventory false");

    // The difficulty, told to clients when it changes.
    assert_eq!(h.run("difficulty"), "difficulty=normal");
    h.helper.clear_received();
    assert_eq!(h.run("difficulty hard"), "difficulty=hard set=true");
    h.app.update();
    use valence::protocol::packets::play::DifficultyS2c;
    use valence::protocol::Packet;
    let told = h
        .helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == DifficultyS2c::ID)
        .filter_map(|f| f.decode::<DifficultyS2c>().ok())
        .any(|d| d.difficulty == valence::protocol::Difficulty::Hard);
    assert!(told, "the client is told");
    assert_eq!(
        h.app
            .world
            .resource::<horde::config::Config>()
            .server
            .difficulty,
        horde::config::Difficulty::Hard
    );
    assert!(h.run("difficulty peaceful").starts_with("error="));
}

#[test]
fn a_player_is_sent_the_commands_of_their_level_and_completions_as_vanillas_are() {
    use valence::protocol::packets::play::command_tree_s2c::NodeData;
    use valence::protocol::packets::play::{
        CommandExecutionC2s, CommandSuggestionsS2c, CommandTreeS2c, EntityStatusS2c,
        RequestCommandCompletionsC2s,
    };
    use valence::protocol::{Packet, VarInt};

    /// The commands of the last tree sent, and the last permission level told.
    fn told(helper: &mut valence::testing::MockClientHelper) -> (Vec<String>, Option<u8>) {
        let frames = helper.collect_received();
        let tree = frames
            .0
            .iter()
            .rev()
            .filter(|f| f.id == CommandTreeS2c::ID)
            .find_map(|f| f.decode::<CommandTreeS2c>().ok())
            .map(|tree| {
                tree.commands[tree.root_index.0 as usize]
                    .children
                    .iter()
                    .filter_map(|c| match &tree.commands[c.0 as usize].data {
                        NodeData::Literal { name } => Some(name.to_string()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let level = frames
            .0
            .iter()
            .rev()
            .filter(|f| f.id == EntityStatusS2c::ID)
            .filter_map(|f| f.decode::<EntityStatusS2c>().ok())
            .find(|s| s.entity_id == 0 && (24..=28).contains(&s.entity_status))
            .map(|s| s.entity_status - 24);
        (tree, level)
    }

    let mut h = harness();
    h.app.update();
    let (commands, level) = told(&mut h.helper);
    assert_eq!(level, Some(0));
    assert!(commands.contains(&"msg".to_string()), "{commands:?}");
    assert!(!commands.contains(&"give".to_string()), "{commands:?}");
    h.helper.send(&CommandExecutionC2s {
        command: "help",
        timestamp: 0,
        salt: 0,
        argument_signatures: Vec::new(),
        message_count: VarInt(0),
        acknowledgement: [0; 3],
    });
    h.app.update();
    let help = chat_lines(&mut h.helper).join("\n");
    assert!(help.contains("msg <targets> <message>"), "{help}");
    assert!(
        !help.contains("give <targets>"),
        "only what they may run: {help}"
    );

    assert!(h.run("op tester").contains("opped=tester"), "opped");
    h.app.update();
    let (commands, level) = told(&mut h.helper);
    assert_eq!(level, Some(4), "ops.json's default level");
    for command in ["give", "setblock", "summon", "stop", "kick"] {
        assert!(commands.contains(&command.to_string()), "{command}");
    }
    h.app.update();
    assert_eq!(told(&mut h.helper), (Vec::new(), None), "told once");

    h.helper.send(&RequestCommandCompletionsC2s {
        transaction_id: VarInt(7),
        text: "/give te",
    });
    h.app.update();
    let answer = h
        .helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == CommandSuggestionsS2c::ID)
        .find_map(|f| {
            let s = f.decode::<CommandSuggestionsS2c>().ok()?;
            let matches: Vec<String> = s
                .matches
                .iter()
                .map(|m| m.suggested_match.to_owned())
                .collect();
            Some((s.id.0, s.start.0, s.length.0, matches))
        });
    assert_eq!(answer, Some((7, 6, 2, vec!["tester".to_string()])));

    let feet = h.spawn_point();
    h.helper.send(&CommandExecutionC2s {
        command: "setblock ~2 ~ ~ minecraft:oak_stairs[facing=east,half=top]",
        timestamp: 0,
        salt: 0,
        argument_signatures: Vec::new(),
        message_count: VarInt(0),
        acknowledgement: [0; 3],
    });
    h.app.update();
    let stairs = h.block(BlockPos::new(
        feet.x.floor() as i32 + 2,
        feet.y.floor() as i32,
        feet.z.floor() as i32,
    ));
    assert_eq!(stairs.to_kind(), BlockKind::OakStairs);
    assert_eq!(stairs.get(PropName::Facing), Some(PropValue::East));
    assert_eq!(stairs.get(PropName::Half), Some(PropValue::Top));

    // `kill` with a selector takes zombies too, measured from the player.
    let zombie = h.summon(BlockPos::new(
        feet.x.floor() as i32 + 4,
        feet.y.floor() as i32,
        feet.z.floor() as i32,
    ));
    chat_lines(&mut h.helper);
    h.helper.send(&CommandExecutionC2s {
        command: "kill @e[type=zombie,distance=..10]",
        timestamp: 0,
        salt: 0,
        argument_signatures: Vec::new(),
        message_count: VarInt(0),
        acknowledgement: [0; 3],
    });
    h.app.update();
    assert!(h
        .app
        .world
        .get::<horde::common::body::Dying>(zombie)
        .is_some());
    let heard = chat_lines(&mut h.helper);
    assert!(
        heard
            .iter()
            .any(|l| l.contains("commands.kill.success.single")
                && l.contains("entity.minecraft.zombie")),
        "{heard:?}"
    );

    h.run("deop tester");
    h.app.update();
    assert_eq!(told(&mut h.helper).1, Some(0), "told again when deopped");
}

#[test]
fn a_flat_world_is_vanillas_superflat_and_a_player_stands_on_its_grass() {
    use horde::config::{Config, GeneratorSetting};
    let mut config = Config::default();
    config.spawning.enabled = false;
    config.server.generator = GeneratorSetting::Flat;
    let mut h = support::headless::harness_with(config);
    assert_eq!(
        h.spawn_point(),
        DVec3::new(0.5, -60.0, 0.5),
        "vanilla's height"
    );
    for (y, block) in [
        (-64, BlockState::BEDROCK),
        (-63, BlockState::DIRT),
        (-62, BlockState::DIRT),
        (-61, BlockState::GRASS_BLOCK),
        (-60, BlockState::AIR),
    ] {
        assert_eq!(h.block(BlockPos::new(21, y, -7)), block, "y {y}");
    }
    for _ in 0..40 {
        h.app.update();
    }
    let feet = h.app.world.get::<Position>(h.client).unwrap().0;
    assert_eq!(feet.y, -60.0, "stands on the grass");
    let flat = h.app.world.get::<valence::spawn::IsFlat>(h.client).unwrap();
    assert!(flat.0, "the client draws a flat world's horizon");
}

#[test]
fn operators_play_sounds_and_show_particles_as_vanillas_commands_do() {
    use valence::protocol::packets::play::{ParticleS2c, PlaySoundS2c};
    let mut h = harness();
    h.app.update();
    h.helper.clear_received();
    let played = h.run("playsound minecraft:entity.zombie.ambient hostile tester ~ ~ ~ 1 0.5");
    assert_eq!(
        played,
        "sound=minecraft:entity.zombie.ambient player=tester"
    );
    h.app.update();
    let received = h.helper.collect_received();
    let sound = received.first::<PlaySoundS2c>();
    assert_eq!(sound.pitch, 0.5);
    assert!(h
        .run("playsound entity.zombie.ambient hostile tester ~100 ~ ~")
        .contains("too far away"));
    assert!(h
        .run("playsound x loud tester")
        .starts_with("usage: playsound"));

    h.helper.clear_received();
    let shown = h.run("particle dust 1 0 0 2 ~ ~1 ~ 0.5 0.5 0.5 0 20");
    assert_eq!(shown, "particle=minecraft:dust seen=1");
    h.app.update();
    let received = h.helper.collect_received();
    let particles = received.first::<ParticleS2c>();
    assert_eq!((particles.particle.id(), particles.count), (14, 20));
    assert!(h
        .run("particle flame ~40 ~ ~")
        .contains("not visible for anybody"));
    assert_eq!(
        h.run("particle flame ~40 ~ ~ 0 0 0 0 1 force tester"),
        "particle=minecraft:flame seen=1"
    );
    let unknown = h.run("particle sparkles");
    assert!(unknown.contains("Unknown particle"), "{unknown}");
}

#[test]
fn an_operators_boss_bar_is_shown_to_its_players_and_outlasts_a_restart() {
    use valence::protocol::packets::play::boss_bar_s2c::BossBarAction;
    use valence::protocol::packets::play::BossBarS2c;
    use valence::protocol::Packet;
    let mut h = harness();
    h.app.update();
    let added = h.run(r#"bossbar add siege {"text":"The siege","color":"red"}"#);
    assert_eq!(added, "bossbar=minecraft:siege created=true");
    h.run("bossbar set siege max 40");
    h.run("bossbar set siege value 10");
    h.helper.clear_received();
    assert_eq!(
        h.run("bossbar set siege players tester"),
        "bossbar=minecraft:siege set=players count=1 names=tester"
    );
    let received = (0..5)
        .find_map(|_| {
            h.app.update();
            let received = h.helper.collect_received();
            (received.0.iter().any(|f| f.id == BossBarS2c::ID)).then_some(received)
        })
        .expect("the bar is sent");
    let bar = received.first::<BossBarS2c>();
    let BossBarAction::Add { health, .. } = bar.action else {
        panic!("not added: {:?}", bar.action);
    };
    assert_eq!(health, 0.25, "10 of 40");
    assert_eq!(
        h.run("bossbar get siege max"),
        "bossbar=minecraft:siege max=40"
    );

    // Kept in the save, and shown again to its player.
    let mut h = h.restarted();
    assert_eq!(h.run("bossbar list"), "bossbars=1 ids=minecraft:siege");
    h.helper.clear_received();
    h.run("bossbar set siege visible false");
    h.app.update();
    h.app.update();
    let received = h.helper.collect_received();
    let bar = received.first::<BossBarS2c>();
    assert!(
        matches!(bar.action, BossBarAction::Remove),
        "{:?}",
        bar.action
    );
    assert!(h.run("bossbar remove siege").contains("removed=true"));
    assert!(h.run("bossbar set siege value 3").contains("No bossbar"));
    assert!(h
        .run("bossbar set siege color mauve")
        .starts_with("usage: bossbar"));
}
