//! Operator commands as typed values: parsing is pure, so a malformed line always becomes a
//! usage message and never reaches the world.

use valence::math::DVec3;
use valence::{BlockState, GameMode};

use crate::experience::commands::Unit;

/// One parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Help,
    Stop,
    SaveAll,
    SaveOn,
    SaveOff,
    List,
    Tps,
    Mspt,
    Chunks,
    Entities,
    TimeQuery,
    /// Vanilla-scale ticks.
    TimeSet(i64),
    Tp {
        player: String,
        to: [Coord; 3],
    },
    Damage {
        player: String,
        amount: f32,
    },
    Kill {
        player: String,
    },
    Summon {
        at: [Coord; 3],
        kind: Option<String>,
    },
    Zombies,
    /// A noise heard `radius` blocks away, as loud as `loudness` if told.
    Noise {
        at: [Coord; 3],
        radius: f32,
        loudness: Option<f32>,
    },
    Fill {
        from: [Coord; 3],
        to: [Coord; 3],
        block: BlockState,
    },
    /// `setblock`: only where there is air if `keep`.
    SetBlock {
        at: [Coord; 3],
        block: BlockState,
        keep: bool,
    },
    Give {
        player: String,
        item: String,
        count: u32,
    },
    GameMode {
        mode: GameMode,
        player: String,
    },
    /// `effect give`: `seconds` of `effect` at `amplifier`.
    EffectGive {
        player: String,
        effect: String,
        seconds: u32,
        amplifier: u8,
    },
    EffectClear(String),
    /// `say`: a line to everyone, under the sender's name.
    Say(String),
    /// `me`: an action, told to everyone.
    Me(String),
    /// `msg`, `tell`, `w`: a line to one player.
    Msg {
        player: String,
        message: String,
    },
    Seed,
    /// `difficulty [easy|normal|hard]`.
    Difficulty(Option<String>),
    /// `playsound`: `sound` to `player`, from `at` (where the command is run unless told).
    PlaySound {
        player: String,
        at: Option<[Coord; 3]>,
        sound: crate::show::PlayedSound,
    },
    /// `particle`: at `at` (where the command is run unless told), to `viewer` or everyone
    /// near.
    Particle {
        at: Option<[Coord; 3]>,
        shown: crate::show::ShownParticles,
        viewer: Option<String>,
    },
    /// `bossbar ...`.
    BossBar(BarCommand),
    /// `setworldspawn <pos> [<angle>]`: the world's spawn, facing `angle` (vanilla's 0 unless
    /// told).
    SetWorldSpawn {
        at: [Coord; 3],
        angle: f32,
    },
    /// `spawnpoint`: where the player stands unless `at` is told.
    SpawnPoint {
        player: String,
        at: Option<[Coord; 3]>,
    },
    /// `gamerule <rule> [value]`.
    GameRule {
        rule: String,
        value: Option<String>,
    },
    /// `tellraw`: a JSON text to one player's chat.
    Tellraw {
        player: String,
        text: valence::text::Text,
    },
    Title {
        player: String,
        shown: crate::chat::Title,
    },
    /// `clear`: every item, or `item`, at most `max` of them.
    Clear {
        player: String,
        item: Option<String>,
        max: Option<u32>,
    },
    Xp {
        player: String,
        change: XpChange,
    },
    Packs,
    Reload,
    /// `config [key or table]`.
    ShowConfig(Option<String>),
    PhaseQuery,
    PhaseSet(u32),
    WeatherQuery,
    WhitelistSwitch(bool),
    WhitelistAdd(String),
    WhitelistRemove(String),
    WhitelistList,
    WhitelistReload,
    Ban {
        player: String,
        reason: Option<String>,
    },
    BanIp {
        target: String,
        reason: Option<String>,
    },
    Pardon(String),
    PardonIp(String),
    /// `players`, `ips` or both.
    Banlist(Option<String>),
    Kick {
        player: String,
        reason: Option<String>,
    },
    Op(String),
    Deop(String),
    /// A duration in ticks.
    WeatherSet(crate::weather::Kind, Option<u32>),
    HuntStart(String),
    HuntStop,
    HuntStatus,
    PerfStart,
    PerfStop,
}

/// What `xp` does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum XpChange {
    Add(i32, Unit),
    Set(i32, Unit),
    Query(Unit),
}

/// `bossbar`'s forms.
#[derive(Debug, Clone, PartialEq)]
pub enum BarCommand {
    Add {
        id: String,
        name: valence::text::Text,
    },
    Remove(String),
    List,
    Set {
        id: String,
        change: crate::show::bossbar::Change,
    },
    /// Who sees the bar: players' names or selectors (none: nobody).
    SetPlayers {
        id: String,
        targets: Vec<String>,
    },
    Get {
        id: String,
        what: String,
    },
}

/// A coordinate as vanilla writes them: `12.5`, or `~` / `~-3` relative to the player.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coord {
    Absolute(f64),
    Relative(f64),
}

impl Coord {
    fn parse(s: &str) -> Option<Self> {
        let finite = |v: f64| v.is_finite().then_some(v);
        match s.strip_prefix('~') {
            Some("") => Some(Coord::Relative(0.0)),
            Some(rest) => rest.parse().ok().and_then(finite).map(Coord::Relative),
            None => s.parse().ok().and_then(finite).map(Coord::Absolute),
        }
    }

    pub fn resolve(self, from: f64) -> f64 {
        match self {
            Coord::Absolute(v) => v,
            Coord::Relative(d) => from + d,
        }
    }
}

/// Every form of every command, in vanilla's syntax (`<argument>`, `[optional]`, `(one|other)`),
/// with what it does: `help` lists them, a misused command gets its forms, and the command
/// tree clients are sent is made from them (an argument's name gives its type: `tree::Arg`).
pub const COMMANDS: &[(&str, &str)] = &[
    ("help", "list the commands"),
    ("stop", "save the world and shut down"),
    ("save-all [flush]", "write the world save now"),
    ("save-off", "stop autosaving (after the one being written)"),
    ("save-on", "autosave again"),
    ("list", "players online"),
    ("tps", "ticks per second over the last 1, 5 and 15 minutes"),
    (
        "mspt",
        "tick times (avg/min/max) over the last 5 s, 10 s and minute",
    ),
    ("chunks", "loaded chunks and load/unload latency in ticks"),
    ("entities", "entities in the world by kind"),
    ("perf start", "record every tick's time"),
    (
        "perf stop",
        "stop recording: summary, and the ticks as CSV under the world's debug/",
    ),
    ("time query", "the world clock"),
    ("time set (day|noon|night|midnight)", "set the time of day"),
    ("time set <time>", "set the time of day in ticks"),
    ("tp <location>", "teleport yourself (in the game)"),
    (
        "tp <targets> <location>",
        "teleport players (~ relative to each)",
    ),
    ("damage <target> <amount>", "hurt a player"),
    (
        "kill [<entities>]",
        "kill players and zombies: @e[type=zombie,distance=..20] (yourself, in the game)",
    ),
    (
        "summon <entity> [<location>] [<kind>]",
        "spawn a zombie (~ is relative to you, or to spawn)",
    ),
    ("zombies", "zombie counts by state and level of detail"),
    (
        "noise <location> <radius> [<loudness>]",
        "a noise zombies hear within radius (~ is relative to you, or to spawn)",
    ),
    (
        "setblock <pos> <block> [replace|keep]",
        "set a block, states as oak_stairs[facing=east,half=top]",
    ),
    (
        "fill <from> <to> <block>",
        "set a box of blocks (loaded chunks)",
    ),
    (
        "give <targets> <item> [<count>]",
        "put items in players' inventories",
    ),
    (
        "gamemode <mode> [<targets>]",
        "set players' game mode (yours, in the game)",
    ),
    (
        "effect give <targets> <effect> [<seconds>] [<amplifier>]",
        "give a status effect (slow_falling), 30 seconds unless told",
    ),
    ("effect clear [<targets>]", "take players' effects off"),
    (
        "say <message>",
        "tell everyone, as [Server] (or [name] in the game)",
    ),
    ("me <action>", "tell everyone what you do: * name action"),
    (
        "msg <targets> <message>",
        "whisper to players (also tell and w)",
    ),
    ("seed", "the world's seed"),
    (
        "difficulty [easy|normal|hard]",
        "the difficulty, or set it (kept in config.toml)",
    ),
    (
        "playsound <sound> (master|music|record|weather|block|hostile|neutral|player|ambient|voice) <targets> [<location>] [<volume>] [<pitch>] [<min_volume>]",
        "play a sound to players (from where you stand, in the game)",
    ),
    (
        "particle <particle> [<location>] [<delta>] [<speed>] [<count>] [(force|normal)] [<viewers>]",
        "show particles to the players near (from where you stand, in the game)",
    ),
    ("bossbar add <id> <json>", "a boss bar, white, 0 of 100, shown to nobody yet"),
    ("bossbar remove <id>", "take a boss bar off every screen"),
    ("bossbar list", "the boss bars"),
    ("bossbar set <id> name <json>", "a boss bar's title"),
    (
        "bossbar set <id> color (pink|blue|red|green|yellow|purple|white)",
        "a boss bar's colour",
    ),
    (
        "bossbar set <id> style (progress|notched_6|notched_10|notched_12|notched_20)",
        "a boss bar's notches",
    ),
    (
        "bossbar set <id> (value|max) <number>",
        "how full a boss bar is: value of max",
    ),
    ("bossbar set <id> visible (true|false)", "show or hide a boss bar"),
    (
        "bossbar set <id> players [<targets>]",
        "who sees a boss bar (kept by UUID while they are away)",
    ),
    (
        "bossbar get <id> (value|max|visible|players)",
        "a boss bar's value, maximum, visibility or viewers",
    ),
    (
        "setworldspawn <pos> [<angle>]",
        "where players join and come back without a bed (where you stand, in the game)",
    ),
    (
        "spawnpoint [<targets>] [<pos>]",
        "where players come back after dying, bed or not (where they stand unless told)",
    ),
    (
        "gamerule (doDaylightCycle|doMobSpawning|doWeatherCycle|drowningDamage|fallDamage|fireDamage|keepInventory|naturalRegeneration|playersSleepingPercentage) [<value>]",
        "a game rule, or set it (kept in config.toml)",
    ),
    ("tellraw <targets> <json>", "a JSON text in players' chat"),
    (
        "title <targets> (title|subtitle|actionbar) <json>",
        "a JSON text on players' screens",
    ),
    (
        "title <targets> (clear|reset)",
        "take titles off players' screens",
    ),
    (
        "title <targets> times <fade_in> <stay> <fade_out>",
        "ticks a title fades in, stays and fades out",
    ),
    (
        "clear [<targets>] [<item>] [<max>]",
        "take items from players' inventories (yours, in the game)",
    ),
    (
        "xp (add|set) <targets> <amount> [points|levels]",
        "give or set experience points or levels (also experience)",
    ),
    ("xp query <target> (points|levels)", "a player's experience"),
    ("packs", "every pack, pack counters and chunk latencies"),
    ("hunt", "the running hunt round"),
    ("hunt start <preset>", "start a hunt round"),
    ("hunt stop", "end the running round"),
    ("weather", "the weather and its timers"),
    (
        "weather (clear|rain|thunder) [<duration>]",
        "set the weather: seconds, or 30s, 600t, 1d; a drawn span without",
    ),
    (
        "whitelist (on|off)",
        "only players on whitelist.json (and operators) may join",
    ),
    ("whitelist (add|remove) <player>", "add or remove a player"),
    ("whitelist list", "who is on the whitelist"),
    ("whitelist reload", "read whitelist.json again"),
    ("ban <player> [<reason>]", "ban a player (kicked if online)"),
    (
        "ban-ip <address> [<reason>]",
        "ban an address, or a player's (its players kicked)",
    ),
    ("pardon <player>", "lift a ban"),
    ("pardon-ip <address>", "lift an address ban"),
    ("banlist [players|ips]", "the bans"),
    ("kick <targets> [<reason>]", "disconnect players"),
    (
        "op <player>",
        "make a player an operator (passes spawn protection)",
    ),
    ("deop <player>", "take operator away"),
    ("phase", "the world's escalation phase"),
    ("phase set <phase>", "set the phase"),
    (
        "reload",
        "read config.toml again and apply what can change now",
    ),
    ("config [<key>]", "the effective configuration"),
];

/// The usage line of every form of command `name`.
fn usage(name: &str) -> String {
    let forms: Vec<&str> = COMMANDS
        .iter()
        .map(|(usage, _)| *usage)
        .filter(|usage| usage.split(' ').next() == Some(name))
        .collect();
    format!("usage: {}", forms.join(" | "))
}

/// `bossbar`'s arguments.
fn parse_bossbar(words: &[&str]) -> Option<BarCommand> {
    use crate::show::bossbar::{Change, COLORS, STYLES};
    let position = |names: &[&str], word: &str| names.iter().position(|n| *n == word);
    Some(match words {
        ["add", id, json @ ..] if !json.is_empty() => BarCommand::Add {
            id: id.to_string(),
            name: json_text(&json.join(" ")).ok()?,
        },
        ["remove", id] => BarCommand::Remove(id.to_string()),
        ["list"] => BarCommand::List,
        ["set", id, "players", targets @ ..] => BarCommand::SetPlayers {
            id: id.to_string(),
            targets: targets.iter().map(|t| t.to_string()).collect(),
        },
        ["set", id, what, rest @ ..] if !rest.is_empty() => {
            let one = || (rest.len() == 1).then(|| rest[0]);
            let change = match *what {
                "name" => Change::Name(json_text(&rest.join(" ")).ok()?),
                "color" => Change::Color(position(&COLORS.map(|c| c.0), one()?)?),
                "style" => Change::Style(position(&STYLES.map(|s| s.0), one()?)?),
                "value" => Change::Value(one()?.parse().ok()?),
                "max" => Change::Max(one()?.parse().ok().filter(|m| *m > 0)?),
                "visible" => Change::Visible(one()?.parse().ok()?),
                _ => return None,
            };
            BarCommand::Set {
                id: id.to_string(),
                change,
            }
        }
        ["get", id, what @ ("value" | "max" | "visible" | "players")] => BarCommand::Get {
            id: id.to_string(),
            what: what.to_string(),
        },
        _ => return None,
    })
}

/// A reason typed after a command's arguments, if any.
fn joined(words: &[&str]) -> Option<String> {
    (!words.is_empty()).then(|| words.join(" "))
}

/// A `weather` duration in ticks: `N` or `Ns` seconds, `Nt` ticks, `Nd` days (vanilla's
/// units, 20 ticks a second), from 1 tick to a million seconds.
fn weather_duration(text: &str) -> Option<u32> {
    let (number, per) = match text.char_indices().last()? {
        (i, 't') => (&text[..i], 1),
        (i, 's') => (&text[..i], 20),
        (i, 'd') => (&text[..i], 24_000),
        _ => (text, 20),
    };
    let ticks = number.parse::<u64>().ok()?.checked_mul(per)?;
    (1..=20_000_000).contains(&ticks).then_some(ticks as u32)
}

/// A block state (`oak_stairs[facing=east]`), or vanilla's message as an error.
fn block_state(text: &str) -> Result<BlockState, String> {
    crate::blocks::parse_state(text).map_err(|e| format!("error={e:?}"))
}

/// A JSON text component (`{"text":"Run!","color":"red"}`), or the parser's complaint.
fn json_text(json: &str) -> Result<valence::text::Text, String> {
    json.parse()
        .map_err(|e| format!("error={:?}", format!("Invalid chat component: {e}")))
}

fn xp_unit(word: &str) -> Result<Unit, String> {
    match word {
        "points" => Ok(Unit::Points),
        "levels" => Ok(Unit::Levels),
        _ => Err(usage("xp")),
    }
}

/// Parses one console or RCON line (a leading `/` is accepted, as in game chat).
pub fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    let line = line.strip_prefix('/').unwrap_or(line);
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&name, args)) = words.split_first() else {
        return Err("type help for the list of commands".into());
    };
    // Each family knows its own commands (every form of one command is in one family): the
    // first to know the line parses it.
    for family in [
        server_command,
        access_command,
        world_command,
        player_command,
        zombie_command,
    ] {
        if let Some(command) = family(name, args)? {
            return Ok(command);
        }
    }
    // A known command in a form no family knows: its usage.
    if COMMANDS
        .iter()
        .any(|(u, _)| u.split(' ').next() == Some(name))
    {
        return Err(usage(name));
    }
    Err(format!("unknown command {name:?}; type help"))
}

/// What a command family makes of a line: its command, a usage error, or `None` when the line
/// is none of its commands.
type Parsed = Result<Option<Command>, String>;

/// The server's own commands: help, stopping, saving, its figures and its configuration.
fn server_command(name: &str, args: &[&str]) -> Parsed {
    Ok(Some(match (name, args) {
        ("help" | "?", []) => Command::Help,
        ("stop", []) => Command::Stop,
        ("save-all", [] | ["flush"]) => Command::SaveAll,
        ("save-on", []) => Command::SaveOn,
        ("save-off", []) => Command::SaveOff,
        ("list", []) => Command::List,
        ("tps", []) => Command::Tps,
        ("mspt", []) => Command::Mspt,
        ("chunks", []) => Command::Chunks,
        ("entities", []) => Command::Entities,
        ("perf", ["start"]) => Command::PerfStart,
        ("perf", ["stop"]) => Command::PerfStop,
        ("reload", []) => Command::Reload,
        ("config", []) => Command::ShowConfig(None),
        ("config", [key]) => Command::ShowConfig(Some(key.to_string())),
        _ => return Ok(None),
    }))
}

/// Who may join: the whitelist, bans, kicks and operators.
fn access_command(name: &str, args: &[&str]) -> Parsed {
    Ok(Some(match (name, args) {
        ("whitelist", ["on"]) => Command::WhitelistSwitch(true),
        ("whitelist", ["off"]) => Command::WhitelistSwitch(false),
        ("whitelist", ["add", player]) => Command::WhitelistAdd(player.to_string()),
        ("whitelist", ["remove", player]) => Command::WhitelistRemove(player.to_string()),
        ("whitelist", ["list"]) => Command::WhitelistList,
        ("whitelist", ["reload"]) => Command::WhitelistReload,
        ("ban", [player, reason @ ..]) => Command::Ban {
            player: player.to_string(),
            reason: joined(reason),
        },
        ("ban-ip", [target, reason @ ..]) => Command::BanIp {
            target: target.to_string(),
            reason: joined(reason),
        },
        ("pardon", [player]) => Command::Pardon(player.to_string()),
        ("pardon-ip", [address]) => Command::PardonIp(address.to_string()),
        ("banlist", []) => Command::Banlist(None),
        ("banlist", [which @ ("players" | "ips")]) => Command::Banlist(Some(which.to_string())),
        ("kick", [player, reason @ ..]) => Command::Kick {
            player: player.to_string(),
            reason: joined(reason),
        },
        ("op", [player]) => Command::Op(player.to_string()),
        ("deop", [player]) => Command::Deop(player.to_string()),
        _ => return Ok(None),
    }))
}

/// The world's state: weather, time, phase, and blocks.
fn world_command(name: &str, args: &[&str]) -> Parsed {
    Ok(Some(match (name, args) {
        ("weather", []) => Command::WeatherQuery,
        ("weather", [kind, rest @ ..]) if rest.len() <= 1 => {
            let kind = crate::weather::Kind::from_name(kind).ok_or_else(|| usage("weather"))?;
            let ticks = match rest.first() {
                Some(d) => Some(weather_duration(d).ok_or_else(|| usage("weather"))?),
                None => None,
            };
            Command::WeatherSet(kind, ticks)
        }
        ("time", ["query", ..]) => Command::TimeQuery,
        ("time", ["set", when]) => {
            Command::TimeSet(crate::time::parse_time(when).ok_or_else(|| usage("time"))?)
        }
        ("phase", []) => Command::PhaseQuery,
        ("phase", ["set", n]) => Command::PhaseSet(n.parse().map_err(|_| usage("phase"))?),
        ("fill", [x1, y1, z1, x2, y2, z2, block]) => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("fill"));
            Command::Fill {
                from: [coord(x1)?, coord(y1)?, coord(z1)?],
                to: [coord(x2)?, coord(y2)?, coord(z2)?],
                block: block_state(block)?,
            }
        }
        ("setblock", [x, y, z, block, mode @ ..]) if mode.len() <= 1 => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("setblock"));
            Command::SetBlock {
                at: [coord(x)?, coord(y)?, coord(z)?],
                block: block_state(block)?,
                keep: match mode {
                    [] | ["replace"] => false,
                    ["keep"] => true,
                    _ => return Err(usage("setblock")),
                },
            }
        }
        _ => return Ok(None),
    }))
}

/// What is done to a player: moved, hurt, killed, its game mode, effects and items.
fn player_command(name: &str, args: &[&str]) -> Parsed {
    Ok(Some(match (name, args) {
        ("tp" | "teleport", [player, x, y, z]) => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("tp"));
            Command::Tp {
                player: player.to_string(),
                to: [coord(x)?, coord(y)?, coord(z)?],
            }
        }
        ("damage", [player, amount]) => Command::Damage {
            player: player.to_string(),
            amount: match amount.parse::<f32>() {
                Ok(a) if a.is_finite() && a >= 0.0 => a,
                Ok(a) if a.is_finite() => {
                    return Err(format!(
                        "error=\"Amount must not be less than 0.0, found {a}\""
                    ))
                }
                _ => return Err(usage("damage")),
            },
        },
        ("kill", [player]) => Command::Kill {
            player: player.to_string(),
        },
        ("gamemode", [mode, player]) => Command::GameMode {
            mode: match *mode {
                "survival" => GameMode::Survival,
                "adventure" => GameMode::Adventure,
                "creative" => GameMode::Creative,
                "spectator" => GameMode::Spectator,
                _ => return Err(usage("gamemode")),
            },
            player: player.to_string(),
        },
        ("effect", ["give", player, effect, rest @ ..]) if rest.len() <= 2 => {
            let number = |i: usize, default: u32, max: u32| match rest.get(i) {
                Some(n) => n
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n <= max)
                    .ok_or_else(|| usage("effect")),
                None => Ok(default),
            };
            Command::EffectGive {
                player: player.to_string(),
                effect: effect.to_string(),
                // Vanilla's bounds: up to 1,000,000 seconds, amplifier 0 to 255.
                seconds: number(0, 30, 1_000_000)?.max(1),
                amplifier: number(1, 0, 255)? as u8,
            }
        }
        ("effect", ["clear", player]) => Command::EffectClear(player.to_string()),
        ("say", words) if !words.is_empty() => Command::Say(words.join(" ")),
        ("me", words) if !words.is_empty() => Command::Me(words.join(" ")),
        ("msg" | "tell" | "w", [player, words @ ..]) if !words.is_empty() => Command::Msg {
            player: player.to_string(),
            message: words.join(" "),
        },
        ("seed", []) => Command::Seed,
        ("difficulty", []) => Command::Difficulty(None),
        ("difficulty", [to]) => Command::Difficulty(Some(to.to_string())),
        ("playsound", [sound, source, player, rest @ ..]) if matches!(rest.len(), 0 | 3..=6) => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("playsound"));
            let source = crate::show::SOURCES
                .iter()
                .find(|(name, _)| name == source)
                .map(|(_, category)| *category)
                .ok_or_else(|| usage("playsound"))?;
            let number = |i: usize, default: f32, max: f32| -> Result<f32, String> {
                match rest.get(i) {
                    None => Ok(default),
                    Some(word) => word
                        .parse::<f32>()
                        .ok()
                        .filter(|v| (0.0..=max).contains(v))
                        .ok_or_else(|| usage("playsound")),
                }
            };
            let sound = sound.strip_prefix("minecraft:").unwrap_or(sound);
            let sound = if sound.contains(':') {
                sound.to_owned()
            } else {
                format!("minecraft:{sound}")
            };
            Command::PlaySound {
                player: player.to_string(),
                at: match rest {
                    [x, y, z, ..] => Some([coord(x)?, coord(y)?, coord(z)?]),
                    _ => None,
                },
                sound: crate::show::PlayedSound {
                    sound,
                    source,
                    at: DVec3::ZERO,
                    volume: number(3, 1.0, f32::MAX)?,
                    pitch: number(4, 1.0, 2.0)?,
                    min_volume: number(5, 0.0, 1.0)?,
                },
            }
        }
        ("particle", words @ [_, ..]) => {
            let (particle, used) = crate::show::parse_particle(words)?;
            let rest = &words[used..];
            if !matches!(rest.len(), 0 | 3 | 6..=10) {
                return Err(usage("particle"));
            }
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("particle"));
            let number = |i: usize| -> Result<f32, String> {
                rest[i]
                    .parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| usage("particle"))
            };
            let delta = match rest {
                [_, _, _, dx, dy, dz, ..] => valence::math::Vec3::new(
                    dx.parse().map_err(|_| usage("particle"))?,
                    dy.parse().map_err(|_| usage("particle"))?,
                    dz.parse().map_err(|_| usage("particle"))?,
                ),
                _ => valence::math::Vec3::ZERO,
            };
            let force = match rest.get(8) {
                None | Some(&"normal") => false,
                Some(&"force") => true,
                Some(_) => return Err(usage("particle")),
            };
            Command::Particle {
                at: match rest {
                    [x, y, z, ..] => Some([coord(x)?, coord(y)?, coord(z)?]),
                    _ => None,
                },
                shown: crate::show::ShownParticles {
                    particle,
                    at: DVec3::ZERO,
                    delta,
                    speed: if rest.len() > 6 { number(6)? } else { 0.0 },
                    count: if rest.len() > 7 {
                        rest[7]
                            .parse::<i32>()
                            .ok()
                            .filter(|c| *c >= 0)
                            .ok_or_else(|| usage("particle"))?
                    } else {
                        0
                    },
                    force,
                },
                viewer: rest.get(9).map(|v| v.to_string()),
            }
        }
        ("bossbar", words) => {
            Command::BossBar(parse_bossbar(words).ok_or_else(|| usage("bossbar"))?)
        }
        ("setworldspawn", [x, y, z, rest @ ..]) if rest.len() <= 1 => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("setworldspawn"));
            let angle = match rest {
                [angle] => angle
                    .parse::<f32>()
                    .ok()
                    .filter(|a| a.is_finite())
                    .ok_or_else(|| usage("setworldspawn"))?,
                _ => 0.0,
            };
            Command::SetWorldSpawn {
                at: [coord(x)?, coord(y)?, coord(z)?],
                angle,
            }
        }
        ("spawnpoint", [player, at @ ..]) if matches!(at.len(), 0 | 3) => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("spawnpoint"));
            Command::SpawnPoint {
                player: player.to_string(),
                at: match at {
                    [x, y, z] => Some([coord(x)?, coord(y)?, coord(z)?]),
                    _ => None,
                },
            }
        }
        ("gamerule", [rule, value @ ..]) if value.len() <= 1 => Command::GameRule {
            rule: rule.to_string(),
            value: value.first().map(|v| v.to_string()),
        },
        ("tellraw", [player, json @ ..]) if !json.is_empty() => Command::Tellraw {
            player: player.to_string(),
            text: json_text(&json.join(" "))?,
        },
        ("title", [player, kind @ ("title" | "subtitle" | "actionbar"), json @ ..])
            if !json.is_empty() =>
        {
            let text = json_text(&json.join(" "))?;
            Command::Title {
                player: player.to_string(),
                shown: match *kind {
                    "title" => crate::chat::Title::Title(text),
                    "subtitle" => crate::chat::Title::Subtitle(text),
                    _ => crate::chat::Title::ActionBar(text),
                },
            }
        }
        ("title", [player, what @ ("clear" | "reset")]) => Command::Title {
            player: player.to_string(),
            shown: if *what == "clear" {
                crate::chat::Title::Clear
            } else {
                crate::chat::Title::Reset
            },
        },
        ("title", [player, "times", fade_in, stay, fade_out]) => {
            let ticks = |s: &str| {
                s.parse::<i32>()
                    .ok()
                    .filter(|t| *t >= 0)
                    .ok_or_else(|| usage("title"))
            };
            Command::Title {
                player: player.to_string(),
                shown: crate::chat::Title::Times(ticks(fade_in)?, ticks(stay)?, ticks(fade_out)?),
            }
        }
        ("clear", [player, rest @ ..]) if rest.len() <= 2 => Command::Clear {
            player: player.to_string(),
            item: rest.first().map(|i| i.to_string()),
            max: match rest.get(1) {
                Some(n) => Some(n.parse().map_err(|_| usage("clear"))?),
                None => None,
            },
        },
        ("xp" | "experience", [what @ ("add" | "set"), player, amount, unit @ ..])
            if unit.len() <= 1 =>
        {
            let amount = amount.parse::<i32>().map_err(|_| usage("xp"))?;
            let unit = xp_unit(unit.first().copied().unwrap_or("points"))?;
            Command::Xp {
                player: player.to_string(),
                change: if *what == "add" {
                    XpChange::Add(amount, unit)
                } else {
                    XpChange::Set(amount, unit)
                },
            }
        }
        ("xp" | "experience", ["query", player, unit]) => Command::Xp {
            player: player.to_string(),
            change: XpChange::Query(xp_unit(unit)?),
        },
        ("give", [player, item, count @ ..]) if count.len() <= 1 => Command::Give {
            player: player.to_string(),
            item: item.to_string(),
            count: match count.first() {
                Some(n) => n
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| usage("give"))?,
                None => 1,
            },
        },
        _ => return Ok(None),
    }))
}

/// Zombies: summoned, counted, lured by a noise, in packs and in hunts.
fn zombie_command(name: &str, args: &[&str]) -> Parsed {
    Ok(Some(match (name, args) {
        ("summon", ["zombie"]) => Command::Summon {
            at: [Coord::Relative(0.0); 3],
            kind: None,
        },
        ("summon", ["zombie", x, y, z, rest @ ..]) if rest.len() <= 1 => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("summon"));
            Command::Summon {
                at: [coord(x)?, coord(y)?, coord(z)?],
                kind: rest.first().map(|k| k.to_string()),
            }
        }
        ("zombies", []) => Command::Zombies,
        ("noise", [x, y, z, radius, rest @ ..]) if rest.len() <= 1 => {
            let coord = |s: &str| Coord::parse(s).ok_or_else(|| usage("noise"));
            let number = |s: &str, max: f32| {
                s.parse::<f32>()
                    .ok()
                    .filter(|v| (0.0..=max).contains(v))
                    .ok_or_else(|| format!("error=\"expected a number 0..={max}, found {s}\""))
            };
            Command::Noise {
                at: [coord(x)?, coord(y)?, coord(z)?],
                radius: number(radius, 128.0)?,
                loudness: rest.first().map(|l| number(l, 1000.0)).transpose()?,
            }
        }
        ("packs", []) => Command::Packs,
        ("hunt", []) => Command::HuntStatus,
        ("hunt", ["start", preset]) => Command::HuntStart(preset.to_string()),
        ("hunt", ["stop"]) => Command::HuntStop,
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_vanilla_forms() {
        assert_eq!(parse("stop"), Ok(Command::Stop));
        assert_eq!(parse("/save-all flush"), Ok(Command::SaveAll));
        assert_eq!(parse("  time set noon "), Ok(Command::TimeSet(6000)));
        use crate::weather::Kind;
        assert_eq!(parse("weather"), Ok(Command::WeatherQuery));
        assert_eq!(
            parse("weather thunder 30"),
            Ok(Command::WeatherSet(Kind::Thunder, Some(600)))
        );
        assert_eq!(
            parse("weather rain 600t"),
            Ok(Command::WeatherSet(Kind::Rain, Some(600)))
        );
        assert_eq!(
            parse("weather rain 1d"),
            Ok(Command::WeatherSet(Kind::Rain, Some(24_000)))
        );
        assert_eq!(
            parse("weather clear"),
            Ok(Command::WeatherSet(Kind::Clear, None))
        );
        assert!(parse("weather snow")
            .unwrap_err()
            .starts_with("usage: weather"));
        for bad in ["-1", "0", "0t", "1000001", "5x", "s"] {
            assert!(parse(&format!("weather rain {bad}")).is_err(), "{bad}");
        }
        assert_eq!(parse("time set 18000"), Ok(Command::TimeSet(18000)));
        assert_eq!(
            parse("setblock ~3 ~ ~ oak_stairs[facing=east,half=top] keep"),
            Ok(Command::SetBlock {
                at: [
                    Coord::Relative(3.0),
                    Coord::Relative(0.0),
                    Coord::Relative(0.0)
                ],
                block: crate::blocks::parse_state("oak_stairs[facing=east,half=top]").unwrap(),
                keep: true,
            })
        );
        assert_eq!(parse("seed"), Ok(Command::Seed));
        assert_eq!(
            parse("xp add alice -3 levels"),
            Ok(Command::Xp {
                player: "alice".into(),
                change: XpChange::Add(-3, Unit::Levels)
            })
        );
        assert_eq!(
            parse("experience query alice points"),
            Ok(Command::Xp {
                player: "alice".into(),
                change: XpChange::Query(Unit::Points)
            })
        );
        assert_eq!(
            parse("clear alice minecraft:dirt 5"),
            Ok(Command::Clear {
                player: "alice".into(),
                item: Some("minecraft:dirt".into()),
                max: Some(5)
            })
        );
        assert!(matches!(
            parse(r#"tellraw alice {"text":"run now","color":"red"}"#),
            Ok(Command::Tellraw { .. })
        ));
        assert_eq!(
            parse("title alice times 10 70 20"),
            Ok(Command::Title {
                player: "alice".into(),
                shown: crate::chat::Title::Times(10, 70, 20)
            })
        );
        assert!(parse("tellraw alice {not json")
            .unwrap_err()
            .contains("Invalid chat component"));
        assert_eq!(
            parse("summon zombie"),
            Ok(Command::Summon {
                at: [Coord::Relative(0.0); 3],
                kind: None
            })
        );
        assert_eq!(parse("time query daytime"), Ok(Command::TimeQuery));
        assert_eq!(
            parse("tp Steve 1 ~2 ~"),
            Ok(Command::Tp {
                player: "Steve".into(),
                to: [
                    Coord::Absolute(1.0),
                    Coord::Relative(2.0),
                    Coord::Relative(0.0)
                ]
            })
        );
        assert_eq!(
            parse("damage Alex 2.5"),
            Ok(Command::Damage {
                player: "Alex".into(),
                amount: 2.5
            })
        );
    }

    #[test]
    fn malformed_lines_get_usage() {
        let tp = "usage: tp <location> | tp <targets> <location>";
        assert_eq!(parse("tp Steve 1 2").unwrap_err(), tp);
        assert_eq!(parse("tp Steve 1 2 nan").unwrap_err(), tp);
        assert_eq!(
            parse("time set dusk").unwrap_err(),
            "usage: time query | time set (day|noon|night|midnight) | time set <time>"
        );
        assert_eq!(
            parse("setblock 1 2 3 stone sideways").unwrap_err(),
            "usage: setblock <pos> <block> [replace|keep]"
        );
        assert_eq!(
            parse("setblock 1 2 3 stone[facing=east]").unwrap_err(),
            "error=\"Block stone does not have property 'facing'\""
        );
        assert_eq!(
            parse("damage Alex -1").unwrap_err(),
            "error=\"Amount must not be less than 0.0, found -1\""
        );
        assert!(parse("damage Alex inf")
            .unwrap_err()
            .starts_with("usage: damage"));
        assert!(parse("stop now").unwrap_err().starts_with("usage: stop"));
        assert!(parse("frobnicate")
            .unwrap_err()
            .starts_with("unknown command"));
        assert!(parse("").is_err());
        assert!(parse("\u{0}\u{1}garbage\u{7f}").is_err());
    }

    #[test]
    fn summon_forms() {
        assert_eq!(
            parse("summon zombie 1 64 ~2 fast_zombie"),
            Ok(Command::Summon {
                at: [
                    Coord::Absolute(1.0),
                    Coord::Absolute(64.0),
                    Coord::Relative(2.0)
                ],
                kind: Some("fast_zombie".into())
            })
        );
        assert!(parse("summon zombie 1 2")
            .unwrap_err()
            .starts_with("usage: summon"));
        assert!(parse("summon creeper 1 2 3")
            .unwrap_err()
            .starts_with("usage: summon"));
        assert!(parse("summon zombie 1 2 3 a b").is_err());
    }

    #[test]
    fn noise_forms() {
        assert_eq!(
            parse("noise 1 64 ~2 24"),
            Ok(Command::Noise {
                at: [
                    Coord::Absolute(1.0),
                    Coord::Absolute(64.0),
                    Coord::Relative(2.0)
                ],
                radius: 24.0,
                loudness: None,
            })
        );
        assert!(matches!(
            parse("noise 1 64 2 24 50"),
            Ok(Command::Noise {
                loudness: Some(50.0),
                ..
            })
        ));
        assert!(parse("noise 1 64 2")
            .unwrap_err()
            .starts_with("usage: noise"));
        assert_eq!(
            parse("noise 1 64 2 500").unwrap_err(),
            "error=\"expected a number 0..=128, found 500\""
        );
        assert!(parse("noise 1 64 2 8 NaN").is_err());
    }

    #[test]
    fn coordinates_relative_to_a_player() {
        assert_eq!(Coord::parse("~-3").unwrap().resolve(10.0), 7.0);
        assert_eq!(Coord::parse("4.5").unwrap().resolve(10.0), 4.5);
        assert_eq!(Coord::parse("~inf"), None);
    }

    #[test]
    fn help_lists_every_command_and_each_misuse_gets_its_usage() {
        let verbs = [
            "help",
            "stop",
            "save-all",
            "save-on",
            "save-off",
            "list",
            "tps",
            "mspt",
            "chunks",
            "entities",
            "perf",
            "time",
            "tp",
            "damage",
            "kill",
            "summon",
            "zombies",
            "gamemode",
            "effect",
            "packs",
            "reload",
            "config",
            "phase",
            "hunt",
            "fill",
            "setblock",
            "give",
            "weather",
            "whitelist",
            "ban",
            "ban-ip",
            "pardon",
            "pardon-ip",
            "banlist",
            "kick",
            "op",
            "deop",
        ];
        for verb in verbs {
            assert!(
                COMMANDS
                    .iter()
                    .any(|(u, _)| u.split(' ').next() == Some(verb)),
                "help lacks {verb}"
            );
            assert_ne!(usage(verb), "usage: ");
        }
        assert_eq!(
            parse("phase set x").unwrap_err(),
            "usage: phase | phase set <phase>"
        );
        assert_eq!(
            parse("hunt begin").unwrap_err(),
            "usage: hunt | hunt start <preset> | hunt stop"
        );
        assert!(parse("packs now").unwrap_err().starts_with("usage: packs"));
    }
}
