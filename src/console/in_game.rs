//! Commands players type in the game's chat: the console's commands, run at the player's
//! permission level (vanilla's: 0 for `help` and `list`, 2 for the game's commands, 3 for who
//! may join, 4 for running the server), with vanilla's target selectors `@s`, `@p`, `@r` and
//! `@a`, a target left out where vanilla allows it meaning the player, and `~` coordinates
//! relative to the player.

use super::command::Command;

/// The permission level a command takes (`Commands.LEVEL_*` as vanilla's commands ask them).
pub fn level(command: &Command) -> u8 {
    use Command::*;
    match command {
        Help | List => 0,
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
/// dropped from names. An error for selectors horde does not know.
pub fn expand(
    line: &str,
    me: &str,
    online: &[String],
    random: usize,
) -> Result<Vec<String>, String> {
    let line = line.trim().trim_start_matches('/');
    let mut words: Vec<&str> = line
        .split_whitespace()
        .map(|w| w.strip_prefix("minecraft:").unwrap_or(w))
        .collect();
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

    #[test]
    fn selectors_and_left_out_targets_name_players_as_vanillas_do() {
        let lines = |line| expand(line, "alice", &online(), 1).unwrap();
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
        assert!(expand("kill @e[type=zombie]", "alice", &online(), 0).is_err());
    }

    #[test]
    fn commands_take_vanillas_permission_levels() {
        let level_of = |line| level(&parse(line).unwrap());
        assert_eq!(level_of("list"), 0);
        assert_eq!(level_of("help"), 0);
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
