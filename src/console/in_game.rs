//! Commands players type in the game's chat: the console's commands, run at the player's
//! permission level (vanilla's: 0 for `help` and `list`, 2 for the game's commands, 3 for who
//! may join, 4 for running the server), with vanilla's target selectors `@s`, `@p`, `@r` and
//! `@a`, a target left out where vanilla allows it meaning the player, `~` coordinates relative
//! to the player and `^` ones along their look.

use valence::math::DVec3;

use super::command::Command;

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

/// The permission level a command takes (`Commands.LEVEL_*` as vanilla's commands ask them).
pub fn level(command: &Command) -> u8 {
    use Command::*;
    match command {
        Help | List | Me(_) | Msg { .. } => 0,
        WhitelistSwitch(_)
        | WhitelistAdd(_)
        | WhitelistRemove(_)
        | WhitelistList
        | WhitelistReload
        | Ban { .. }
        | BanIp { .. }
        | Pardon(_)
        | PardonIp(_)
        | Banlist(_)
        | Kick { .. }
        | Op(_)
        | Deop(_) => 3,
        // The settings hold the RCON password; the profiler writes files on the server.
        Stop | SaveAll | SaveOn | SaveOff | ShowConfig(_) | PerfStart | PerfStop => 4,
        _ => 2,
    }
}

/// A player's line made into the console's lines, as many as its `@a` asks: the player
/// `me` for `@s`, `@p` and a target left out (`tp X Y Z`, `kill`, `gamemode MODE`, `effect
/// clear`), `online[random]` for `@r`, each of `online` in turn for `@a`; `minecraft:`
/// dropped from names; `^` coordinates made absolute from where `me` stands and looks. An
/// error for selectors horde does not know.
pub fn expand(
    line: &str,
    (me, stance): (&str, Stance),
    online: &[String],
    random: usize,
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
        ["kill"] | ["gamemode", _] | ["effect", "clear"] => words.push("@s"),
        _ => {}
    }
    if let Some(unknown) = words
        .iter()
        .find(|w| w.starts_with('@') && !matches!(**w, "@s" | "@p" | "@r" | "@a"))
    {
        return Err(format!(
            "the selector {unknown} is not known here: @s, @p, @r and @a are"
        ));
    }
    let picked = online
        .get(random % online.len().max(1))
        .map_or(me, String::as_str);
    let everyone = words.contains(&"@a");
    let names: Vec<&str> = if everyone {
        online.iter().map(String::as_str).collect()
    } else {
        vec![me]
    };
    Ok(names
        .into_iter()
        .map(|name| {
            words
                .iter()
                .map(|w| match *w {
                    "@s" | "@p" => me,
                    "@r" => picked,
                    "@a" => name,
                    other => other,
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::command::parse;

    fn online() -> Vec<String> {
        vec!["alice".into(), "bob".into()]
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
        assert_eq!(lines("give @r bread"), ["give bob bread"]);
        assert_eq!(
            lines("give @a bread"),
            ["give alice bread", "give bob bread"]
        );
        assert_eq!(lines("tp ~ ~10 ~"), ["tp alice ~ ~10 ~"]);
        assert_eq!(lines("tp bob 0 64 0"), ["tp bob 0 64 0"]);
        assert_eq!(lines("gamemode creative"), ["gamemode creative alice"]);
        assert_eq!(lines("kill"), ["kill alice"]);
        assert_eq!(
            lines("summon minecraft:zombie ~5 ~ ~"),
            ["summon zombie ~5 ~ ~"]
        );
        assert!(expand("kill @e[type=zombie]", ("alice", standing()), &online(), 0).is_err());
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

    #[test]
    fn commands_take_vanillas_permission_levels() {
        let level_of = |line| level(&parse(line).unwrap());
        assert_eq!(level_of("list"), 0);
        assert_eq!(level_of("help"), 0);
        assert_eq!(level_of("msg bob hello there"), 0);
        assert_eq!(level_of("me waves"), 0);
        assert_eq!(level_of("say hello"), 2);
        assert_eq!(level_of("give alice diamond"), 2);
        assert_eq!(level_of("time set night"), 2);
        assert_eq!(level_of("kick bob"), 3);
        assert_eq!(level_of("op bob"), 3);
        assert_eq!(level_of("whitelist on"), 3);
        assert_eq!(level_of("stop"), 4);
        assert_eq!(level_of("save-all"), 4);
        assert_eq!(level_of("config"), 4);
    }
}
