//! The events several modules send or read: a player hurt, a kill, a noise, an item dropped.

use valence::prelude::*;

use super::stacks::ItemRecord;

/// Hurts a player; death follows at zero health.
#[derive(Event, Debug, Clone, Copy)]
pub struct DamagePlayer {
    pub player: Entity,
    pub amount: f32,
    pub cause: DamageCause,
}

/// Why a player is hurt: vanilla's damage types that horde deals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DamageCause {
    /// Fell below the world.
    Void,
    /// An operator's `damage` command (vanilla's `generic`).
    Command,
    /// An operator's `kill` (vanilla's `generic_kill`).
    Kill,
    /// Struck by a zombie (its raw entity id).
    Mob(i32),
    /// Hit the ground; the distance fallen, in blocks.
    Fall(f32),
    Drown,
    Lava,
    /// Stood in a fire block.
    InFire,
    /// Burning.
    OnFire,
    /// The head in a solid block.
    InWall,
    Starve,
}

impl DamageCause {
    /// Index in the 1.20.1 `damage_type` registry, which picks the client's effect and sound.
    pub fn type_id(self) -> i32 {
        match self {
            DamageCause::Void => 29,
            DamageCause::Command => 16,
            DamageCause::Kill => 17,
            DamageCause::Mob(_) => 25,
            DamageCause::Fall(_) => 8,
            DamageCause::Drown => 5,
            DamageCause::Lava => 22,
            DamageCause::InFire => 19,
            DamageCause::OnFire => 28,
            DamageCause::InWall => 20,
            DamageCause::Starve => 35,
        }
    }

    /// Whether armour leaves it whole (vanilla's `#minecraft:bypasses_armor` tag).
    pub fn bypasses_armour(self) -> bool {
        !matches!(
            self,
            DamageCause::Mob(_) | DamageCause::Lava | DamageCause::InFire
        )
    }

    /// The exhaustion a blow of this type costs (each damage type's `exhaustion`).
    pub fn exhaustion(self) -> f32 {
        match self {
            DamageCause::Mob(_) | DamageCause::Lava | DamageCause::InFire => 0.1,
            _ => 0.0,
        }
    }

    /// Whether the invulnerability frames of the last blow do not hold it off (operators'
    /// commands, so that `damage` deals what it says).
    pub fn ignores_frames(self) -> bool {
        matches!(self, DamageCause::Command | DamageCause::Kill)
    }

    /// Vanilla's death message (`death.attack.*`, `death.fell.*`), with `.player` when a
    /// zombie hurt the player lately (`escaping`).
    pub fn death_message(self, name: &str, escaping: bool) -> String {
        let fleeing = |plain: &str, whilst: &str| {
            if escaping {
                format!("{name} {whilst} Zombie")
            } else {
                format!("{name} {plain}")
            }
        };
        match self {
            DamageCause::Void => fleeing(
                "fell out of the world",
                "didn't want to live in the same world as",
            ),
            DamageCause::Command => format!("{name} died"),
            DamageCause::Kill => format!("{name} was killed"),
            DamageCause::Mob(_) => format!("{name} was slain by Zombie"),
            // A fall of more than 5 blocks is "significant" (`CombatTracker`).
            DamageCause::Fall(d) if d > 5.0 => match escaping {
                true => format!("{name} was doomed to fall by Zombie"),
                false => format!("{name} fell from a high place"),
            },
            DamageCause::Fall(_) => fleeing(
                "hit the ground too hard",
                "hit the ground too hard whilst trying to escape",
            ),
            DamageCause::Drown => fleeing("drowned", "drowned whilst trying to escape"),
            DamageCause::Lava => {
                fleeing("tried to swim in lava", "tried to swim in lava to escape")
            }
            DamageCause::InFire => fleeing("went up in flames", "walked into fire whilst fighting"),
            DamageCause::OnFire => {
                fleeing("burned to death", "was burnt to a crisp whilst fighting")
            }
            DamageCause::InWall => fleeing(
                "suffocated in a wall",
                "suffocated in a wall whilst fighting",
            ),
            DamageCause::Starve => fleeing("starved to death", "starved to death whilst fighting"),
        }
    }
}

/// A player's blow killed `victim`. Announced by whoever resolves the blow (the zombie
/// attack); players count their kills from it, hunts their round's.
#[derive(Event, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerKill {
    pub player: Entity,
    pub victim: Entity,
}

/// Something loud happened at `at`. Sent by whoever made it (building, the doors zombies
/// break, the console) or seen here (blows, deaths, players moving and hurt).
#[derive(Event, Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    pub at: DVec3,
    pub kind: NoiseKind,
}

/// What made a noise. Each kind has its loudness and range in `[noise]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoiseKind {
    Dig,
    Place,
    Fight,
    Death,
    Door,
    DoorBreak,
    Sprint,
    Jump,
    Hurt,
    /// An operator's `noise` command: its own range and loudness.
    Made {
        range: f32,
        loudness: f32,
    },
}

/// A stack a player threw out of their inventory (a window click outside, the drop key, a
/// craft with no room): it lands in front of them.
#[derive(Event, Debug, Clone)]
pub struct Thrown {
    pub client: Entity,
    pub stack: ItemStack,
}

/// Puts `amount` points into the world at `at`, as vanilla's orbs for it.
#[derive(Event, Debug, Clone, Copy)]
pub struct DropExperience {
    pub at: DVec3,
    pub amount: u32,
}

/// Puts an item on the ground.
#[derive(Event, Debug, Clone)]
pub struct DropItem(pub ItemRecord);

/// Enough players slept through the night: the clock goes to the next sunrise and the rain
/// stops, as vanilla's `ServerLevel.tick` does when they all sleep.
#[derive(Event, Debug, Clone, Copy)]
pub struct SkipNight;
