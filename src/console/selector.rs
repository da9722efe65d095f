//! Vanilla's target selectors: `@p` (the nearest player), `@r` (a random one), `@a` (every
//! player), `@s` (the one typing), `@e` (every entity: players and zombies here), with the
//! arguments operators use most (`EntitySelectorOptions`): `type`, `distance`, `limit`,
//! `sort`, `name`, `gamemode`, and `x`, `y`, `z` to measure from elsewhere.

use rand::seq::SliceRandom;
use valence::math::DVec3;
use valence::GameMode;

/// Who a selector starts from, before its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    Nearest,
    Random,
    AllPlayers,
    Myself,
    Entities,
}

/// The order a selector takes its entities in before its `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Nearest,
    Furthest,
    Random,
    Arbitrary,
}

/// The kinds of entity a selector may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Player,
    Zombie,
}

/// A parsed selector.
#[derive(Debug, Clone, PartialEq)]
pub struct Selector {
    pub base: Base,
    /// `type=zombie` (or `type=!zombie`: the bool says whether it is negated).
    kind: Option<(bool, Kind)>,
    /// `distance=2..10`: from and to, both included.
    distance: Option<(f64, f64)>,
    limit: Option<usize>,
    sort: Option<Sort>,
    name: Option<(bool, String)>,
    gamemode: Option<(bool, GameMode)>,
    /// `x=`, `y=`, `z=`: where distances are measured from, instead of the typer's place.
    from: [Option<f64>; 3],
}

/// One entity a selector may pick, and `what` the caller knows it by (its `Entity`).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate<T = ()> {
    /// A player's name (a zombie's is its type's).
    pub name: String,
    pub pos: DVec3,
    pub kind: Kind,
    /// A player's game mode.
    pub mode: Option<GameMode>,
    pub what: T,
}

/// `..5`, `2..`, `2..5` or `3`, as vanilla's ranges.
fn range(text: &str) -> Option<(f64, f64)> {
    let number = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
    match text.split_once("..") {
        Some((low, high)) => {
            let low = if low.is_empty() { 0.0 } else { number(low)? };
            let high = if high.is_empty() {
                f64::INFINITY
            } else {
                number(high)?
            };
            (low <= high).then_some((low, high))
        }
        None => number(text).map(|v| (v, v)),
    }
}

impl Selector {
    /// `text` as a selector, `None` when it is not one (a player's name), or vanilla's
    /// complaint for a malformed one.
    pub fn parse(text: &str) -> Option<Result<Selector, String>> {
        let rest = text.strip_prefix('@')?;
        Some(Self::parse_selector(rest))
    }

    fn parse_selector(rest: &str) -> Result<Selector, String> {
        let (base, arguments) = rest.split_at(rest.len().min(1));
        let base = match base {
            "p" => Base::Nearest,
            "r" => Base::Random,
            "a" => Base::AllPlayers,
            "s" => Base::Myself,
            "e" => Base::Entities,
            _ => return Err(format!("Unknown selector type '@{rest}'")),
        };
        let mut selector = Selector {
            base,
            kind: None,
            distance: None,
            limit: None,
            sort: None,
            name: None,
            gamemode: None,
            from: [None; 3],
        };
        if arguments.is_empty() {
            return Ok(selector);
        }
        let Some(inside) = arguments
            .strip_prefix('[')
            .and_then(|a| a.strip_suffix(']'))
        else {
            return Err("Expected end of options".into());
        };
        for option in inside.split(',').filter(|o| !o.trim().is_empty()) {
            let Some((key, value)) = option.split_once('=') else {
                return Err(format!("Expected value for option '{}'", option.trim()));
            };
            let (key, value) = (key.trim(), value.trim());
            let (negated, bare) = match value.strip_prefix('!') {
                Some(v) => (true, v),
                None => (false, value),
            };
            let invalid = || format!("Invalid value '{value}' for option '{key}'");
            match key {
                "type" => {
                    let kind = match bare.strip_prefix("minecraft:").unwrap_or(bare) {
                        "player" => Kind::Player,
                        "zombie" => Kind::Zombie,
                        other => return Err(format!("Unknown entity type '{other}'")),
                    };
                    selector.kind = Some((negated, kind));
                }
                "distance" => selector.distance = Some(range(value).ok_or_else(invalid)?),
                "limit" => {
                    let limit = value.parse::<usize>().ok().filter(|l| *l >= 1);
                    selector.limit = Some(limit.ok_or("Limit must be at least 1")?);
                }
                "sort" => {
                    selector.sort = Some(match value {
                        "nearest" => Sort::Nearest,
                        "furthest" => Sort::Furthest,
                        "random" => Sort::Random,
                        "arbitrary" => Sort::Arbitrary,
                        _ => return Err(format!("Invalid or unknown sort type '{value}'")),
                    })
                }
                "name" => selector.name = Some((negated, bare.to_owned())),
                "gamemode" => {
                    let mode = match bare {
                        "survival" => GameMode::Survival,
                        "creative" => GameMode::Creative,
                        "adventure" => GameMode::Adventure,
                        "spectator" => GameMode::Spectator,
                        _ => return Err(format!("Invalid or unknown game mode '{bare}'")),
                    };
                    selector.gamemode = Some((negated, mode));
                }
                "x" | "y" | "z" => {
                    let v = value.parse::<f64>().ok().filter(|v| v.is_finite());
                    let axis = usize::from(key == "y") + 2 * usize::from(key == "z");
                    selector.from[axis] = Some(v.ok_or_else(invalid)?);
                }
                _ => return Err(format!("Unknown option '{key}'")),
            }
        }
        Ok(selector)
    }

    /// Whether the selector can name only players (`@p`, `@a`, `@r`, `@s`, `@e[type=player]`).
    pub fn players_only(&self) -> bool {
        self.base != Base::Entities || self.kind == Some((false, Kind::Player))
    }

    /// The entities the selector names among `candidates`, measured from `origin`, as
    /// vanilla picks them: filtered by its arguments, sorted (nearest first for `@p`, at
    /// random for `@r`), and cut to its limit (one for `@p`, `@r`, `@s`). `me` is the typer's
    /// name, if a player typed it; `random` seeds the draw of `@r` and `sort=random`.
    pub fn pick<'a, T>(
        &self,
        candidates: &'a [Candidate<T>],
        origin: DVec3,
        me: Option<&str>,
        random: u64,
    ) -> Vec<&'a Candidate<T>> {
        let from = DVec3::new(
            self.from[0].unwrap_or(origin.x),
            self.from[1].unwrap_or(origin.y),
            self.from[2].unwrap_or(origin.z),
        );
        let mut picked: Vec<&Candidate<T>> = candidates
            .iter()
            .filter(|c| match self.base {
                Base::Myself => Some(c.name.as_str()) == me,
                Base::Entities => true,
                _ => c.kind == Kind::Player,
            })
            .filter(|c| self.kind.is_none_or(|(not, kind)| (c.kind == kind) != not))
            .filter(|c| {
                self.distance
                    .is_none_or(|(low, high)| (low..=high).contains(&c.pos.distance(from)))
            })
            .filter(|c| {
                self.name
                    .as_ref()
                    .is_none_or(|(not, n)| (c.name == *n) != *not)
            })
            .filter(|c| {
                self.gamemode
                    .is_none_or(|(not, mode)| c.mode.is_some_and(|m| (m == mode) != not))
            })
            .collect();
        let sort = self.sort.unwrap_or(match self.base {
            Base::Nearest => Sort::Nearest,
            Base::Random => Sort::Random,
            _ => Sort::Arbitrary,
        });
        let distance = |c: &&Candidate<T>| c.pos.distance_squared(from);
        match sort {
            Sort::Nearest => picked.sort_by(|a, b| distance(a).total_cmp(&distance(b))),
            Sort::Furthest => picked.sort_by(|a, b| distance(b).total_cmp(&distance(a))),
            Sort::Random => picked.shuffle(&mut crate::random::generator(random)),
            Sort::Arbitrary => {}
        }
        let limit = self.limit.unwrap_or(match self.base {
            Base::Nearest | Base::Random | Base::Myself => 1,
            _ => usize::MAX,
        });
        picked.truncate(limit);
        picked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> Vec<Candidate> {
        let player = |name: &str, x: f64, mode| Candidate {
            name: name.into(),
            pos: DVec3::new(x, 64.0, 0.0),
            kind: Kind::Player,
            mode: Some(mode),
            what: (),
        };
        let zombie = |id: &str, x: f64| Candidate {
            name: id.into(),
            pos: DVec3::new(x, 64.0, 0.0),
            kind: Kind::Zombie,
            mode: None,
            what: (),
        };
        vec![
            player("alice", 0.0, GameMode::Survival),
            player("bob", 30.0, GameMode::Creative),
            player("carol", 8.0, GameMode::Survival),
            zombie("z-near", 3.0),
            zombie("z-far", 50.0),
        ]
    }

    fn names(selector: &str, random: u64) -> Vec<String> {
        let all = world();
        Selector::parse(selector)
            .expect("a selector")
            .expect("well formed")
            .pick(&all, DVec3::new(0.0, 64.0, 0.0), Some("alice"), random)
            .into_iter()
            .map(|c| c.name.clone())
            .collect()
    }

    #[test]
    fn the_five_selectors_pick_as_vanillas_do() {
        assert_eq!(names("@s", 0), ["alice"]);
        assert_eq!(names("@p", 0), ["alice"]);
        assert_eq!(names("@a", 0), ["alice", "bob", "carol"]);
        assert_eq!(names("@e", 0).len(), 5);
        let random: Vec<Vec<String>> = (0..16).map(|r| names("@r", r)).collect();
        assert!(random.iter().all(|r| r.len() == 1));
        assert!(
            random.iter().any(|r| r[0] != random[0][0]),
            "not always one"
        );
        assert!(Selector::parse("alice").is_none());
    }

    #[test]
    fn arguments_filter_sort_and_limit() {
        assert_eq!(names("@e[type=zombie]", 0), ["z-near", "z-far"]);
        assert_eq!(
            names("@e[type=minecraft:zombie,distance=..10]", 0),
            ["z-near"]
        );
        assert_eq!(
            names("@e[type=!player,sort=furthest,limit=1]", 0),
            ["z-far"]
        );
        assert_eq!(names("@a[distance=5..]", 0), ["bob", "carol"]);
        assert_eq!(names("@a[sort=nearest,limit=2]", 0), ["alice", "carol"]);
        assert_eq!(names("@p[name=!alice]", 0), ["carol"]);
        assert_eq!(names("@a[gamemode=creative]", 0), ["bob"]);
        assert_eq!(names("@a[gamemode=!creative]", 0), ["alice", "carol"]);
        assert_eq!(names("@p[x=29,y=64,z=0]", 0), ["bob"]);
        assert_eq!(names("@e[x=49,y=64,z=0,distance=..2]", 0), ["z-far"]);
    }

    #[test]
    fn malformed_selectors_get_vanillas_complaint() {
        let error = |s: &str| Selector::parse(s).unwrap().unwrap_err();
        assert_eq!(error("@x"), "Unknown selector type '@x'");
        assert_eq!(error("@e[type=cow]"), "Unknown entity type 'cow'");
        assert_eq!(error("@e[limit=0]"), "Limit must be at least 1");
        assert_eq!(error("@e[colour=red]"), "Unknown option 'colour'");
        assert_eq!(
            error("@e[distance=5..2]"),
            "Invalid value '5..2' for option 'distance'"
        );
        assert_eq!(error("@e[type=zombie"), "Expected end of options");
        assert!(Selector::parse("@a[sort=sideways]").unwrap().is_err());
    }

    #[test]
    fn only_player_selectors_say_so() {
        let only = |s: &str| Selector::parse(s).unwrap().unwrap().players_only();
        assert!(only("@a") && only("@p") && only("@s") && only("@r"));
        assert!(only("@e[type=player]"));
        assert!(!only("@e") && !only("@e[type=zombie]") && !only("@e[type=!player]"));
    }
}
