//! Commands players type in the game's chat: the console's commands, run at the player's
//! permission level (vanilla's: 0 for `help` and `list`, 2 for the game's commands, 3 for who
//! may join, 4 for running the server), with vanilla's target selectors `@s`, `@p`, `@r` and
//! `@a`, a target left out where vanilla allows it meaning the player, `~` coordinates relative
//! to the player and `^` ones along their look.

use valence::math::DVec3;
use valence::prelude::*;

use super::command::{Command, XpChange};
use super::selector::{Candidate, Selector};

/// Where a player typing a command stands and looks, which `^` coordinates follow.
#[derive(Debug, Clone, Copy)]
pub struct Stance {
    pub feet: DVec3,
    pub yaw: f32,
    pub pitch: f32,
}

impl Stance {
    /// The point `left`, `up` and `forwards` blocks from the feet along the player's look
    /// (`LocalCoordinates.getPosition`).
    fn local(&self, left: f64, up: f64, forwards: f64) -> DVec3 {
        let (yaw, pitch) = (
            f64::from(self.yaw + 90.0).to_radians(),
            f64::from(-self.pitch).to_radians(),
        );
        let lifted = f64::from(-self.pitch + 90.0).to_radians();
        let ahead = DVec3::new(
            yaw.cos() * pitch.cos(),
            pitch.sin(),
            yaw.sin() * pitch.cos(),
        );
        let above = DVec3::new(
            yaw.cos() * lifted.cos(),
            lifted.sin(),
            yaw.sin() * lifted.cos(),
        );
        let leftwards = -ahead.cross(above);
        self.feet + ahead * forwards + above * up + leftwards * left
    }
}

/// `words` with each run of three `^` coordinates made absolute from `stance`; an error for a
/// `^` mixed with other coordinates, as vanilla refuses it.
fn local_coordinates(words: &mut Vec<String>, stance: Stance) -> Result<(), String> {
    let mut i = 0;
    while i < words.len() {
        if !words[i].starts_with('^') {
            i += 1;
            continue;
        }
        let offsets: Option<Vec<f64>> = words
            .get(i..i + 3)
            .map(|three| {
                three
                    .iter()
                    .map(|w| {
                        let rest = w.strip_prefix('^')?;
                        if rest.is_empty() {
                            Some(0.0)
                        } else {
                            rest.parse::<f64>().ok().filter(|v| v.is_finite())
                        }
                    })
                    .collect()
            })
            .unwrap_or(None);
        let Some(offsets) = offsets else {
            return Err("local coordinates (^) come three together, all of them ^".into());
        };
        let at = stance.local(offsets[0], offsets[1], offsets[2]);
        words.splice(i..i + 3, [at.x, at.y, at.z].map(|v| v.to_string()));
        i += 3;
    }
    Ok(())
}

/// What a player who typed `command` is told, given the console's `answer` to it: vanilla's
/// feedback where horde has it (a translation the client shows in its own language), an error
/// in red, nothing for a command whose line speaks for itself (`say`, `me`, `msg`), the
/// console's line in grey for the rest. `me` is the player who typed it.
pub fn reply(command: &Command, answer: &str, me: &str) -> Option<Text> {
    if let Some(error) = answer.strip_prefix("error=") {
        // The quoted message, without the fields some errors add after it.
        let message = match error.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(quoted),
            None => error,
        };
        return Some(Text::text(message.to_owned()).color(Color::RED));
    }
    let text = |s: &str| Text::text(s.to_owned());
    let field = |key: &str| {
        answer
            .split([' ', '\n'])
            .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
            .unwrap_or_default()
            .to_owned()
    };
    // Vanilla writes coordinates in its answers with six decimals (`%f`).
    let at = |keys: [&str; 3]| {
        keys.map(|key| text(&format!("{:.6}", field(key).parse().unwrap_or(0.0))))
            .to_vec()
    };
    let translate = |key: &str, with: Vec<Text>| Some(Text::translate(key.to_owned(), with));
    match command {
        Command::Say(_) | Command::Me(_) | Command::Msg { .. } => None,
        Command::Give { player, count, .. } => {
            let given = field("given");
            let name =
                ItemKind::from_str(&given).map_or(given, |kind| kind.translation_key().to_owned());
            // An item is shown as vanilla's `getDisplayName`: its name in brackets.
            let shown = text("[") + Text::translate(name, []) + text("]");
            translate(
                "commands.give.success.single",
                vec![text(&count.to_string()), shown, text(player)],
            )
        }
        Command::GameMode { player, .. } => {
            let mode = Text::translate(format!("gameMode.{}", field("gamemode")), []);
            if player == me {
                translate("commands.gamemode.success.self", vec![mode])
            } else {
                translate("commands.gamemode.success.other", vec![text(player), mode])
            }
        }
        Command::Tp { player, .. } => {
            let mut with = vec![text(player)];
            with.extend(at(["x", "y", "z"]));
            translate("commands.teleport.success.location.single", with)
        }
        Command::Kill { player } => match field("killed").parse::<usize>() {
            Ok(1) if field("zombies") == "1" => translate(
                "commands.kill.success.single",
                vec![Text::translate("entity.minecraft.zombie", [])],
            ),
            Ok(1) => translate("commands.kill.success.single", vec![text(&field("name"))]),
            Ok(n) => translate("commands.kill.success.multiple", vec![text(&n.to_string())]),
            Err(_) => translate("commands.kill.success.single", vec![text(player)]),
        },
        Command::Summon { .. } => translate(
            "commands.summon.success",
            vec![Text::translate("entity.minecraft.zombie", [])],
        ),
        Command::SetBlock { .. } => {
            let at = ["x", "y", "z"].map(|key| text(&field(key))).to_vec();
            translate("commands.setblock.success", at)
        }
        Command::Fill { .. } => translate("commands.fill.success", vec![text(&field("filled"))]),
        Command::TimeSet(ticks) => translate("commands.time.set", vec![text(&ticks.to_string())]),
        Command::WeatherSet(kind, _) => translate(
            match kind {
                crate::weather::Kind::Clear => "commands.weather.set.clear",
                crate::weather::Kind::Rain => "commands.weather.set.rain",
                crate::weather::Kind::Thunder => "commands.weather.set.thunder",
            },
            Vec::new(),
        ),
        Command::EffectGive { player, .. } => translate(
            "commands.effect.give.success.single",
            vec![
                Text::translate(format!("effect.minecraft.{}", field("effect")), []),
                text(player),
            ],
        ),
        Command::EffectClear(player) => translate(
            "commands.effect.clear.everything.success.single",
            vec![text(player)],
        ),
        Command::Op(player) => translate("commands.op.success", vec![text(player)]),
        Command::Seed => translate(
            "commands.seed.success",
            vec![text(&format!("[{}]", field("seed"))).color(Color::GREEN)],
        ),
        Command::List => translate(
            "commands.list.players",
            vec![
                text(&field("players")),
                text(&field("max")),
                text(&field("names").replace(',', ", ")),
            ],
        ),
        Command::Tellraw { .. } | Command::Title { .. } => None,
        Command::Difficulty(to) => {
            let name = Text::translate(format!("options.difficulty.{}", field("difficulty")), []);
            match to {
                Some(_) => translate("commands.difficulty.success", vec![name]),
                None => translate("commands.difficulty.query", vec![name]),
            }
        }
        Command::PlaySound { player, .. } => translate(
            "commands.playsound.success.single",
            vec![text(&field("sound")), text(player)],
        ),
        Command::Particle { .. } => {
            translate("commands.particle.success", vec![text(&field("particle"))])
        }
        Command::BossBar(bar) => {
            use super::command::BarCommand;
            use crate::show::bossbar::Change;
            let id = text(&format!("[{}]", field("bossbar")));
            let some = |key: &str, n: String, names: String| {
                translate(
                    key,
                    vec![id.clone(), text(&n), text(&names.replace(',', ", "))],
                )
            };
            match bar {
                BarCommand::Add { .. } => translate("commands.bossbar.create.success", vec![id]),
                BarCommand::Remove(_) => translate("commands.bossbar.remove.success", vec![id]),
                BarCommand::List => match field("bossbars").as_str() {
                    "0" => translate("commands.bossbar.list.bars.none", vec![]),
                    n => translate(
                        "commands.bossbar.list.bars.some",
                        vec![text(n), text(&field("ids").replace(',', ", "))],
                    ),
                },
                BarCommand::Set { change, .. } => {
                    let key = match change {
                        Change::Name(_) => "commands.bossbar.set.name.success",
                        Change::Color(_) => "commands.bossbar.set.color.success",
                        Change::Style(_) => "commands.bossbar.set.style.success",
                        Change::Value(_) => "commands.bossbar.set.value.success",
                        Change::Max(_) => "commands.bossbar.set.max.success",
                        Change::Visible(true) => "commands.bossbar.set.visible.success.visible",
                        Change::Visible(false) => "commands.bossbar.set.visible.success.hidden",
                        Change::Players(_) => "commands.bossbar.set.players.success.some",
                    };
                    translate(key, vec![id, text(&field("value"))])
                }
                BarCommand::SetPlayers { .. } => match field("count").as_str() {
                    "0" => translate("commands.bossbar.set.players.success.none", vec![id]),
                    n => some(
                        "commands.bossbar.set.players.success.some",
                        n.to_owned(),
                        field("names"),
                    ),
                },
                BarCommand::Get { what, .. } => match (what.as_str(), field(what).as_str()) {
                    ("visible", "true") => {
                        translate("commands.bossbar.get.visible.visible", vec![id])
                    }
                    ("visible", _) => translate("commands.bossbar.get.visible.hidden", vec![id]),
                    ("players", "0") => translate("commands.bossbar.get.players.none", vec![id]),
                    ("players", n) => some(
                        "commands.bossbar.get.players.some",
                        n.to_owned(),
                        String::new(),
                    ),
                    (what, n) => {
                        translate(&format!("commands.bossbar.get.{what}"), vec![id, text(n)])
                    }
                },
            }
        }
        Command::SetWorldSpawn { .. } => translate(
            "commands.setworldspawn.success",
            ["x", "y", "z", "angle"]
                .map(|key| text(&field(key)))
                .to_vec(),
        ),
        Command::SpawnPoint { player, .. } => {
            let mut with: Vec<Text> = ["x", "y", "z"].map(|key| text(&field(key))).to_vec();
            with.extend([text("0.0"), text("minecraft:overworld"), text(player)]);
            translate("commands.spawnpoint.success.single", with)
        }
        Command::GameRule { rule, value } => translate(
            if value.is_some() {
                "commands.gamerule.set"
            } else {
                "commands.gamerule.query"
            },
            vec![text(rule), text(&field("value"))],
        ),
        Command::Clear { player, .. } => translate(
            "commands.clear.success.single",
            vec![text(&field("cleared")), text(player)],
        ),
        Command::Xp { player, change } => {
            let (key, amount) = match change {
                XpChange::Add(n, unit) => (
                    format!("commands.experience.add.{}.success.single", unit.name()),
                    *n,
                ),
                XpChange::Set(n, unit) => (
                    format!("commands.experience.set.{}.success.single", unit.name()),
                    *n,
                ),
                XpChange::Query(unit) => (
                    format!("commands.experience.query.{}", unit.name()),
                    field("has").parse().unwrap_or(0),
                ),
            };
            let with = match change {
                XpChange::Query(_) => vec![text(player), text(&amount.to_string())],
                _ => vec![text(&amount.to_string()), text(player)],
            };
            translate(&key, with)
        }
        Command::Deop(player) => translate("commands.deop.success", vec![text(player)]),
        _ => Some(text(answer).color(Color::GRAY)),
    }
}

/// A player's line made into the console's lines, one for each player its selectors name
/// (`selector`), measured from where `me` stands: `@s` for a target left out (`tp X Y Z`,
/// `kill`, `gamemode MODE`, `effect clear`), `minecraft:` dropped from names, `^` coordinates
/// made absolute from where `me` stands and looks. `kill` keeps its selector, which the
/// console resolves among players and zombies alike. `random` seeds `@r`. An error for a
/// selector that names nobody, or entities where only players may be named.
pub fn expand(
    line: &str,
    (me, stance): (&str, Stance),
    players: &[Candidate],
    random: u64,
) -> Result<Vec<String>, String> {
    let line = line.trim().trim_start_matches('/');
    let mut owned: Vec<String> = line
        .split_whitespace()
        .map(|w| w.strip_prefix("minecraft:").unwrap_or(w).to_owned())
        .collect();
    local_coordinates(&mut owned, stance)?;
    let mut words: Vec<&str> = owned.iter().map(String::as_str).collect();
    match words[..] {
        ["tp" | "teleport", _, _, _] => words.insert(1, "@s"),
        ["kill"] | ["clear"] | ["spawnpoint"] | ["gamemode", _] | ["effect", "clear"] => {
            words.push("@s")
        }
        ["setworldspawn"] => words.extend(["~", "~", "~"]),
        _ => {}
    }
    // Each of these takes its selectors whole, as one set of players or entities.
    let keeps_selectors = matches!(words.first(), Some(&"kill" | &"bossbar"));
    let mut lines: Vec<Vec<&str>> = vec![Vec::new()];
    for word in words {
        let named: Vec<&str> = match Selector::parse(word) {
            Some(_) if keeps_selectors => vec![word],
            None => vec![word],
            Some(Err(e)) => return Err(e),
            Some(Ok(selector)) => {
                if !selector.players_only() {
                    return Err("Only players may be affected by this command, but the \
                                provided selector includes entities"
                        .into());
                }
                let picked = selector.pick(players, stance.feet, Some(me), random);
                if picked.is_empty() {
                    return Err("No player was found".into());
                }
                picked.iter().map(|p| p.name.as_str()).collect()
            }
        };
        lines = lines
            .into_iter()
            .flat_map(|line| {
                named.iter().map(move |name| {
                    let mut line = line.clone();
                    line.push(*name);
                    line
                })
            })
            .collect();
    }
    Ok(lines.into_iter().map(|words| words.join(" ")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn online() -> Vec<Candidate> {
        let player = |name: &str, x: f64, mode| Candidate {
            name: name.into(),
            pos: DVec3::new(x, 64.0, -3.5),
            kind: super::super::selector::Kind::Player,
            mode: Some(mode),
            what: (),
        };
        vec![
            player("alice", 10.5, GameMode::Survival),
            player("bob", 30.5, GameMode::Creative),
        ]
    }

    fn standing() -> Stance {
        Stance {
            feet: DVec3::new(10.5, 64.0, -3.5),
            yaw: 0.0,
            pitch: 0.0,
        }
    }

    #[test]
    fn selectors_and_left_out_targets_name_players_as_vanillas_do() {
        let lines = |line| expand(line, ("alice", standing()), &online(), 1).unwrap();
        assert_eq!(lines("/give @p diamond 3"), ["give alice diamond 3"]);
        assert_eq!(lines("give @s minecraft:diamond"), ["give alice diamond"]);
        let drawn: Vec<String> = (0..16)
            .map(|r| {
                expand("give @r bread", ("alice", standing()), &online(), r).unwrap()[0].clone()
            })
            .collect();
        assert!(drawn.contains(&"give alice bread".to_string()));
        assert!(drawn.contains(&"give bob bread".to_string()));
        assert_eq!(
            lines("give @a bread"),
            ["give alice bread", "give bob bread"]
        );
        assert_eq!(lines("give @a[distance=10..] bread"), ["give bob bread"]);
        assert_eq!(
            lines("gamemode survival @a[gamemode=creative]"),
            ["gamemode survival bob"]
        );
        assert_eq!(lines("tp ~ ~10 ~"), ["tp alice ~ ~10 ~"]);
        assert_eq!(lines("tp bob 0 64 0"), ["tp bob 0 64 0"]);
        assert_eq!(lines("gamemode creative"), ["gamemode creative alice"]);
        assert_eq!(
            lines("summon minecraft:zombie ~5 ~ ~"),
            ["summon zombie ~5 ~ ~"]
        );
        // `kill` keeps its selectors for the console, which knows the zombies.
        assert_eq!(lines("kill"), ["kill @s"]);
        assert_eq!(lines("kill @e[type=zombie]"), ["kill @e[type=zombie]"]);
        let refused = |line| expand(line, ("alice", standing()), &online(), 0).unwrap_err();
        assert!(refused("give @e diamond").starts_with("Only players may be affected"));
        assert_eq!(
            refused("give @a[name=carol] diamond"),
            "No player was found"
        );
        assert_eq!(refused("give @q diamond"), "Unknown selector type '@q'");
    }

    #[test]
    fn local_coordinates_follow_the_look_left_up_and_forwards() {
        let at = |stance: Stance, line: &str| {
            let lines = expand(line, ("alice", stance), &online(), 0).unwrap();
            let words: Vec<f64> = lines[0]
                .split_whitespace()
                .skip(2)
                .map(|w| w.parse().unwrap())
                .collect();
            DVec3::new(words[0], words[1], words[2])
        };
        let near = |a: DVec3, b: DVec3| a.distance(b) < 1e-6;
        // Looking south (+z): forwards is +z, left is +x (east), up is +y.
        let south = standing();
        assert!(near(
            at(south, "summon zombie ^ ^ ^5"),
            DVec3::new(10.5, 64.0, 1.5)
        ));
        assert!(near(
            at(south, "summon zombie ^2 ^1 ^"),
            DVec3::new(12.5, 65.0, -3.5)
        ));
        // Looking east (yaw -90): forwards is +x, left is north (-z).
        let east = Stance {
            yaw: -90.0,
            ..south
        };
        assert!(near(
            at(east, "summon zombie ^1 ^ ^3"),
            DVec3::new(13.5, 64.0, -4.5)
        ));
        // Looking straight down: forwards is down.
        let down = Stance {
            pitch: 90.0,
            ..south
        };
        assert!(near(
            at(down, "summon zombie ^ ^ ^2"),
            DVec3::new(10.5, 62.0, -3.5)
        ));
        assert!(expand("summon zombie ^ ~ ^", ("alice", south), &online(), 0).is_err());
    }
}
