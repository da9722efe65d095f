//! The command tree a vanilla client is sent (`ClientboundCommandsPacket`): the commands a
//! player may run, with each argument's type, so the client suggests and colours a command as
//! it is typed; and the server's answer to the client's tab completion, as Brigadier gives it.
//! Both come from the forms `help` lists (`COMMANDS`), so the tree cannot drift from them.

use std::borrow::Cow;

use valence::ident::Ident;
use valence::protocol::packets::play::command_tree_s2c::{
    Node, NodeData, Parser, StringArg, Suggestion,
};
use valence::protocol::packets::play::CommandTreeS2c;
use valence::protocol::VarInt;

use super::command::COMMANDS;

/// Other names of a command, as vanilla's redirects give them.
const ALIASES: &[(&str, &str)] = &[
    ("tell", "msg"),
    ("w", "msg"),
    ("teleport", "tp"),
    ("experience", "xp"),
];

/// The permission level a command takes (`Commands.LEVEL_*` as vanilla's commands ask them):
/// 0 for what every player may do, 2 for the game's commands, 3 for who may join, 4 for
/// running the server.
pub fn level(name: &str) -> u8 {
    match name {
        "help" | "?" | "list" | "me" | "msg" | "tell" | "w" => 0,
        "whitelist" | "ban" | "ban-ip" | "pardon" | "pardon-ip" | "banlist" | "kick" | "op"
        | "deop" => 3,
        // The settings hold the RCON password; the profiler writes files on the server.
        "stop" | "save-all" | "save-on" | "save-off" | "config" | "perf" => 4,
        _ => 2,
    }
}

/// What an argument is, by the name the forms give it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg {
    /// Players: a name or a selector.
    Targets,
    /// Players and zombies: a name or a selector.
    Entities,
    /// One player: a name or a selector naming one.
    Target,
    /// A player by name, online or not.
    Profile,
    /// A point: three coordinates, `~` and `^` allowed.
    Location,
    /// A block: three whole coordinates.
    Block3,
    BlockState,
    Item,
    EntityType,
    Effect,
    GameMode,
    /// A whole number from `min`.
    Whole {
        min: i32,
        max: Option<i32>,
    },
    /// A number from 0 to `max`.
    Number {
        max: Option<f32>,
    },
    /// A yaw in degrees.
    Angle,
    /// A sound event's name; the client knows them.
    Sound,
    /// A namespaced id (a boss bar's).
    Id,
    /// A particle and its options; the client reads them.
    Particle,
    /// The rest of the line.
    Message,
    /// A JSON text component, the rest of the line.
    Json,
    /// One word that the server suggests (`ask_server`).
    Asked(Asked),
    /// One word.
    Word,
}

/// The words the server itself knows for an `ask_server` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    ZombieKind,
    HuntPreset,
    ConfigKey,
}

impl Arg {
    /// The argument a form's `<name>` stands for; `None` for a name no command uses.
    pub fn named(name: &str) -> Option<Arg> {
        Some(match name {
            "targets" => Arg::Targets,
            "entities" => Arg::Entities,
            "target" => Arg::Target,
            "player" => Arg::Profile,
            "location" => Arg::Location,
            "pos" | "from" | "to" => Arg::Block3,
            "block" => Arg::BlockState,
            "item" => Arg::Item,
            "entity" => Arg::EntityType,
            "effect" => Arg::Effect,
            "mode" => Arg::GameMode,
            // Vanilla's bounds: `give` up to 6400 (100 stacks), effects a million seconds and
            // amplifier 255.
            "count" => Arg::Whole {
                min: 1,
                max: Some(6400),
            },
            "seconds" => Arg::Whole {
                min: 1,
                max: Some(1_000_000),
            },
            "amplifier" => Arg::Whole {
                min: 0,
                max: Some(255),
            },
            "time" | "phase" => Arg::Whole { min: 0, max: None },
            "amount" => Arg::Number { max: None },
            "angle" => Arg::Angle,
            "sound" => Arg::Sound,
            "id" => Arg::Id,
            "number" => Arg::Whole { min: 0, max: None },
            "particle" => Arg::Particle,
            "delta" => Arg::Location,
            "volume" | "speed" => Arg::Number { max: None },
            "pitch" => Arg::Number { max: Some(2.0) },
            "min_volume" => Arg::Number { max: Some(1.0) },
            "viewers" => Arg::Targets,
            "radius" => Arg::Number { max: Some(128.0) },
            "loudness" => Arg::Number { max: Some(1000.0) },
            "message" | "action" | "reason" => Arg::Message,
            "json" => Arg::Json,
            "fade_in" | "stay" | "fade_out" | "max" => Arg::Whole { min: 0, max: None },
            "kind" => Arg::Asked(Asked::ZombieKind),
            "preset" => Arg::Asked(Asked::HuntPreset),
            "key" => Arg::Asked(Asked::ConfigKey),
            "duration" | "address" | "value" => Arg::Word,
            _ => return None,
        })
    }

    /// The parser the client reads the argument with (1.20.1's `ArgumentTypeInfos`).
    fn parser(self) -> Parser<'static> {
        let registry = |name: &'static str| Parser::Resource {
            registry: Ident::new_unchecked(Cow::Borrowed(name)),
        };
        match self {
            Arg::Targets => Parser::Entity {
                single: false,
                only_players: true,
            },
            Arg::Entities => Parser::Entity {
                single: false,
                only_players: false,
            },
            Arg::Target => Parser::Entity {
                single: true,
                only_players: true,
            },
            Arg::Profile => Parser::GameProfile,
            Arg::Location => Parser::Vec3,
            Arg::Block3 => Parser::BlockPos,
            Arg::BlockState => Parser::BlockState,
            Arg::Item => Parser::ItemStack,
            Arg::EntityType => registry("minecraft:entity_type"),
            Arg::Effect => registry("minecraft:mob_effect"),
            Arg::GameMode => Parser::GameMode,
            Arg::Whole { min, max } => Parser::Integer {
                min: Some(min),
                max,
            },
            Arg::Number { max } => Parser::Float {
                min: Some(0.0),
                max,
            },
            Arg::Angle => Parser::Angle,
            Arg::Sound | Arg::Id => Parser::ResourceLocation,
            Arg::Particle => Parser::Particle,
            Arg::Message => Parser::Message,
            Arg::Json => Parser::Component,
            Arg::Asked(_) | Arg::Word => Parser::String(StringArg::SingleWord),
        }
    }

    fn suggestion(self) -> Option<Suggestion> {
        // The client knows every vanilla entity; the server says which it can summon.
        match self {
            Arg::Asked(_) | Arg::EntityType => Some(Suggestion::AskServer),
            Arg::Sound => Some(Suggestion::AvailableSounds),
            _ => None,
        }
    }

    /// How many words the argument takes: `None` for the rest of the line.
    fn words(self) -> Option<usize> {
        match self {
            Arg::Location | Arg::Block3 => Some(3),
            Arg::Message | Arg::Json => None,
            _ => Some(1),
        }
    }

    /// Whether `word` can be this argument, to tell apart two arguments that could follow
    /// (`tp <location>` and `tp <targets> <location>`).
    fn could_be(self, word: &str) -> bool {
        match self {
            Arg::Location | Arg::Block3 => coordinate(word),
            Arg::Whole { .. } => word.parse::<i64>().is_ok(),
            Arg::Number { .. } | Arg::Angle => word.parse::<f64>().is_ok(),
            Arg::Targets | Arg::Entities | Arg::Target | Arg::Profile => !coordinate(word),
            _ => true,
        }
    }

    /// The words the server suggests for this argument, before matching what is typed.
    fn candidates(self, known: &Known) -> Vec<String> {
        let namespaced = |name: &str| format!("minecraft:{name}");
        match self {
            Arg::Targets | Arg::Entities | Arg::Target => ["@a", "@e", "@p", "@r", "@s"]
                .map(String::from)
                .into_iter()
                .chain(known.players.iter().cloned())
                .collect(),
            Arg::Profile => known.players.to_vec(),
            Arg::Location | Arg::Block3 => vec!["~".into(), "~ ~".into(), "~ ~ ~".into()],
            Arg::BlockState => valence::block::BlockKind::ALL
                .iter()
                .map(|b| namespaced(b.to_str()))
                .collect(),
            Arg::Item => valence::ItemKind::ALL
                .iter()
                .filter(|i| **i != valence::ItemKind::Air)
                .map(|i| namespaced(i.to_str()))
                .collect(),
            Arg::EntityType => known.entities.iter().map(|e| namespaced(e)).collect(),
            Arg::Particle => crate::show::PARTICLES
                .iter()
                .map(|p| namespaced(p))
                .collect(),
            Arg::Effect => known.effects.iter().map(|e| namespaced(e)).collect(),
            Arg::GameMode => ["adventure", "creative", "spectator", "survival"]
                .map(String::from)
                .to_vec(),
            Arg::Asked(Asked::ZombieKind) => known.kinds.clone(),
            Arg::Asked(Asked::HuntPreset) => known.presets.clone(),
            Arg::Asked(Asked::ConfigKey) => known.keys.clone(),
            Arg::Whole { .. }
            | Arg::Number { .. }
            | Arg::Angle
            | Arg::Sound
            | Arg::Id
            | Arg::Message
            | Arg::Json
            | Arg::Word => Vec::new(),
        }
    }
}

/// A coordinate as typed: a number, or one relative to the player (`~`, `^`).
fn coordinate(word: &str) -> bool {
    let number = word.trim_start_matches(['~', '^']);
    (number.len() < word.len() && number.is_empty()) || number.parse::<f64>().is_ok()
}

/// Whether `candidate` is suggested for `typed` (vanilla's `matchesSubStr`: from its start, or
/// from after any `_`, `:`, `.` or `/` in it, ignoring case).
fn offered(candidate: &str, typed: &str) -> bool {
    let (candidate, typed) = (candidate.to_lowercase(), typed.to_lowercase());
    candidate.starts_with(&typed)
        || candidate
            .match_indices(['_', ':', '.', '/'])
            .any(|(i, _)| candidate[i + 1..].starts_with(&typed))
}

/// What the server knows to suggest beside the game's blocks and items.
#[derive(Debug, Default, Clone)]
pub struct Known {
    pub players: Vec<String>,
    pub entities: Vec<&'static str>,
    pub effects: Vec<&'static str>,
    pub kinds: Vec<String>,
    pub presets: Vec<String>,
    pub keys: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Part {
    Root,
    Literal(&'static str),
    Argument(&'static str, Arg),
}

#[derive(Debug, Clone)]
struct Branch {
    part: Part,
    children: Vec<usize>,
    executable: bool,
}

/// One word of a form: the literals it may be (alternatives), or an argument; and whether it
/// may be left out.
struct Word {
    parts: Vec<Part>,
    optional: bool,
}

fn words(form: &'static str) -> Vec<Word> {
    form.split(' ')
        .map(|token| {
            let (inner, optional) = match token.strip_prefix('[') {
                Some(rest) => (rest.trim_end_matches(']'), true),
                None => (token, false),
            };
            let parts = match inner.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
                Some(name) => {
                    let arg = Arg::named(name).unwrap_or(Arg::Word);
                    vec![Part::Argument(name, arg)]
                }
                None => inner
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .split('|')
                    .map(Part::Literal)
                    .collect(),
            };
            Word { parts, optional }
        })
        .collect()
}

/// Every command as a tree of words, root first.
#[derive(bevy_ecs::system::Resource, Debug, Clone)]
pub struct CommandTree {
    branches: Vec<Branch>,
}

impl Default for CommandTree {
    fn default() -> Self {
        Self::new()
    }
}

impl CommandTree {
    /// The tree of every form in `COMMANDS`, and of each alias.
    pub fn new() -> Self {
        let mut tree = CommandTree {
            branches: vec![Branch {
                part: Part::Root,
                children: Vec::new(),
                executable: false,
            }],
        };
        for (form, _) in COMMANDS {
            let mut form_words = words(form);
            tree.insert(0, &form_words);
            for (alias, of) in ALIASES {
                if form.split(' ').next() == Some(of) {
                    form_words[0].parts = vec![Part::Literal(alias)];
                    tree.insert(0, &form_words);
                }
            }
        }
        tree
    }

    /// Adds a form's words under branch `at`, sharing the branches already there.
    fn insert(&mut self, at: usize, form: &[Word]) {
        let Some((first, rest)) = form.split_first() else {
            return;
        };
        // A word ends a form when nothing after it must be typed.
        let ends = rest.iter().all(|w| w.optional);
        for part in &first.parts {
            let child = match self.branches[at]
                .children
                .iter()
                .find(|&&c| self.branches[c].part == *part)
            {
                Some(&c) => c,
                None => {
                    self.branches.push(Branch {
                        part: *part,
                        children: Vec::new(),
                        executable: false,
                    });
                    let c = self.branches.len() - 1;
                    self.branches[at].children.push(c);
                    c
                }
            };
            self.branches[child].executable |= ends;
            self.insert(child, rest);
        }
    }

    /// The commands a player of permission `level` sees, as `children` of the root.
    fn allowed(&self, child: usize, level: u8) -> bool {
        match self.branches[child].part {
            Part::Literal(name) => self::level(name) <= level,
            _ => true,
        }
    }

    /// The packet telling a client of permission `level` the commands it may run.
    pub fn packet(&self, level: u8) -> CommandTreeS2c<'_> {
        // Branches in the order they are first reached from the root, numbered anew.
        let mut order = vec![0];
        let mut index = vec![None; self.branches.len()];
        index[0] = Some(0);
        let mut next = 0;
        while next < order.len() {
            let at = order[next];
            next += 1;
            for &c in &self.branches[at].children {
                if (at != 0 || self.allowed(c, level)) && index[c].is_none() {
                    index[c] = Some(order.len());
                    order.push(c);
                }
            }
        }
        let commands = order
            .iter()
            .map(|&b| {
                let branch = &self.branches[b];
                Node {
                    children: branch
                        .children
                        .iter()
                        .filter_map(|c| index[*c].map(|i| VarInt(i as i32)))
                        .collect(),
                    data: match branch.part {
                        Part::Root => NodeData::Root,
                        Part::Literal(name) => NodeData::Literal { name },
                        Part::Argument(name, arg) => NodeData::Argument {
                            name,
                            parser: arg.parser(),
                            suggestion: arg.suggestion(),
                        },
                    },
                    executable: branch.executable,
                    redirect_node: None,
                }
            })
            .collect();
        CommandTreeS2c {
            commands,
            root_index: VarInt(0),
        }
    }

    /// The server's answer to a client's tab completion of `text` (its `/` included): where
    /// the word being typed starts, and what it may become. Vanilla's Brigadier suggests the
    /// literals and argument values that could come next and that match what is typed.
    pub fn complete(&self, text: &str, level: u8, known: &Known) -> (usize, Vec<String>) {
        let body = usize::from(text.starts_with('/'));
        let typed: Vec<&str> = text[body..].split(' ').collect();
        let (last, done) = typed.split_last().expect("split yields a word");
        let start = text.len() - last.len();
        // Each way the words so far can be read: the branch reached, and the words its
        // argument still takes (`None`: all the rest).
        let mut reads: Vec<(usize, Option<usize>)> = vec![(0, Some(0))];
        for word in done {
            let mut next = Vec::new();
            for &(at, left) in &reads {
                match left {
                    None => next.push((at, None)),
                    Some(n) if n > 0 => {
                        if coordinate(word) {
                            next.push((at, Some(n - 1)));
                        }
                    }
                    Some(_) => {
                        for &c in &self.branches[at].children {
                            if at == 0 && !self.allowed(c, level) {
                                continue;
                            }
                            match self.branches[c].part {
                                Part::Literal(name) if name == *word => next.push((c, Some(0))),
                                Part::Argument(_, arg) if arg.could_be(word) => {
                                    next.push((c, arg.words().map(|n| n - 1)));
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            reads = next;
        }
        let mut matches: Vec<String> = Vec::new();
        for (at, left) in reads {
            match left {
                None => {}
                Some(n) if n > 0 => {
                    let rest = ["~", "~ ~", "~ ~ ~"];
                    matches.extend(rest[..n].iter().map(|s| s.to_string()));
                }
                Some(_) => {
                    for &c in &self.branches[at].children {
                        if at == 0 && !self.allowed(c, level) {
                            continue;
                        }
                        match self.branches[c].part {
                            Part::Literal(name) => matches.push(name.to_owned()),
                            Part::Argument(_, arg) => matches.extend(arg.candidates(known)),
                            Part::Root => {}
                        }
                    }
                }
            }
        }
        matches.retain(|m| offered(m, last));
        matches.sort_by_key(|m| m.to_lowercase());
        matches.dedup();
        (start, matches)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Known {
        Known {
            players: vec!["Alice".into(), "bob".into()],
            entities: vec!["zombie"],
            effects: vec!["slow_falling"],
            kinds: vec!["walker".into(), "runner".into()],
            presets: vec!["classic".into()],
            keys: vec!["zombie.speed".into()],
        }
    }

    /// The names of the root's children in a packet.
    fn roots(packet: &CommandTreeS2c) -> Vec<String> {
        packet.commands[0]
            .children
            .iter()
            .map(|c| match &packet.commands[c.0 as usize].data {
                NodeData::Literal { name } => name.to_string(),
                other => panic!("a command that is not a literal: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn every_argument_of_every_form_has_a_type() {
        for (form, _) in COMMANDS {
            for word in form.split(' ') {
                let name = word.trim_matches(['[', ']']);
                if let Some(name) = name.strip_prefix('<').and_then(|n| n.strip_suffix('>')) {
                    assert!(Arg::named(name).is_some(), "{form}: <{name}> has no type");
                }
            }
        }
    }

    #[test]
    fn a_player_is_sent_only_the_commands_of_their_level() {
        let tree = CommandTree::new();
        let player = roots(&tree.packet(0));
        for command in ["help", "list", "me", "msg", "tell", "w"] {
            assert!(player.contains(&command.to_string()), "{command}");
        }
        assert!(!player.contains(&"give".to_string()));
        let operator = roots(&tree.packet(2));
        for command in [
            "give", "tp", "teleport", "summon", "setblock", "time", "gamemode",
        ] {
            assert!(operator.contains(&command.to_string()), "{command}");
        }
        assert!(!operator.contains(&"kick".to_string()));
        assert!(!operator.contains(&"stop".to_string()));
        let owner = roots(&tree.packet(4));
        assert!(owner.contains(&"stop".to_string()));
        assert!(owner.contains(&"kick".to_string()));
        // Each name once, and every child index inside the packet.
        let mut sorted = owner.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), owner.len());
        let packet = tree.packet(4);
        for node in &packet.commands {
            assert!(node
                .children
                .iter()
                .all(|c| (c.0 as usize) < packet.commands.len()));
        }
    }

    #[test]
    fn forms_share_branches_and_end_where_the_rest_is_optional() {
        let tree = CommandTree::new();
        let packet = tree.packet(4);
        let find = |from: usize, name: &str| {
            packet.commands[from]
                .children
                .iter()
                .map(|c| c.0 as usize)
                .find(|&c| match &packet.commands[c].data {
                    NodeData::Literal { name: n } | NodeData::Argument { name: n, .. } => {
                        *n == name
                    }
                    NodeData::Root => false,
                })
                .unwrap_or_else(|| panic!("no {name} under {from}"))
        };
        let give = find(0, "give");
        assert!(!packet.commands[give].executable);
        let targets = find(give, "targets");
        let item = find(targets, "item");
        assert!(packet.commands[item].executable, "give <targets> <item>");
        let count = find(item, "count");
        assert!(matches!(
            packet.commands[count].data,
            NodeData::Argument {
                parser: Parser::Integer { min: Some(1), .. },
                ..
            }
        ));
        // `tp <location>` and `tp <targets> <location>` under one `tp`.
        let tp = find(0, "tp");
        find(tp, "location");
        find(find(tp, "targets"), "location");
        let weather = find(0, "weather");
        assert!(packet.commands[weather].executable, "weather alone queries");
        let rain = find(weather, "rain");
        assert!(packet.commands[rain].executable);
        find(rain, "duration");
    }

    #[test]
    fn completion_suggests_what_may_come_next_matching_what_is_typed() {
        let tree = CommandTree::new();
        let complete = |text: &str, level| tree.complete(text, level, &known());
        let (start, matches) = complete("/gi", 2);
        assert_eq!((start, matches), (1, vec!["give".to_string()]));
        assert_eq!(
            complete("/gi", 0).1,
            Vec::<String>::new(),
            "above the level"
        );
        let (start, matches) = complete("/give ", 2);
        assert_eq!(start, 6);
        assert_eq!(matches, ["@a", "@e", "@p", "@r", "@s", "Alice", "bob"]);
        assert_eq!(complete("/give al", 2).1, ["Alice"]);
        let (start, matches) = complete("/give Alice diamond_sw", 2);
        assert_eq!(start, 12);
        assert_eq!(matches, ["minecraft:diamond_sword"]);
        // Vanilla matches from after an underscore too.
        assert!(complete("/give Alice sword", 2)
            .1
            .contains(&"minecraft:iron_sword".to_string()));
        assert_eq!(
            complete("/setblock ", 2).1,
            ["~", "~ ~", "~ ~ ~"],
            "coordinates"
        );
        assert_eq!(complete("/setblock ~ ~1 ", 2).1, ["~"]);
        assert!(complete("/setblock ~ ~ ~ gold_b", 2)
            .1
            .contains(&"minecraft:gold_block".to_string()));
        assert_eq!(complete("/summon ", 2).1, ["minecraft:zombie"]);
        assert_eq!(complete("/summon zombie ~ ~ ~ r", 2).1, ["runner"]);
        assert_eq!(complete("/time set n", 2).1, ["night", "noon"]);
        assert_eq!(complete("/gamemode c", 2).1, ["creative"]);
        assert_eq!(complete("/tp ~ ~", 2).1, ["~", "~ ~"]);
        assert_eq!(complete("/tell b", 0).1, ["bob"]);
        assert_eq!(complete("/say hello th", 2).1, Vec::<String>::new());
        assert_eq!(complete("/config zom", 4).1, ["zombie.speed"]);
    }

    #[test]
    fn commands_take_vanillas_permission_levels() {
        assert_eq!(level("list"), 0);
        assert_eq!(level("help"), 0);
        assert_eq!(level("msg"), 0);
        assert_eq!(level("w"), 0);
        assert_eq!(level("me"), 0);
        assert_eq!(level("say"), 2);
        assert_eq!(level("give"), 2);
        assert_eq!(level("setblock"), 2);
        assert_eq!(level("kick"), 3);
        assert_eq!(level("op"), 3);
        assert_eq!(level("whitelist"), 3);
        assert_eq!(level("stop"), 4);
        assert_eq!(level("save-all"), 4);
        assert_eq!(level("config"), 4);
    }

    #[test]
    fn gamerule_lists_every_rule_horde_keeps() {
        let form = COMMANDS
            .iter()
            .find(|(form, _)| form.starts_with("gamerule"))
            .unwrap()
            .0;
        let listed: Vec<&str> = form
            .split(' ')
            .nth(1)
            .unwrap()
            .trim_matches(['(', ')'])
            .split('|')
            .collect();
        let kept: Vec<&str> = crate::config::rules::GAME_RULES
            .iter()
            .map(|(rule, _)| *rule)
            .collect();
        assert_eq!(listed, kept);
    }

    #[test]
    fn coordinates_are_numbers_or_relative() {
        for word in ["~", "~3", "~-1.5", "^", "^2", "12", "-3.25"] {
            assert!(coordinate(word), "{word}");
        }
        for word in ["bob", "@p", "~x", ""] {
            assert!(!coordinate(word), "{word}");
        }
    }
}
