//! Body facts every module reads: where a player's eyes are, who is dead or dying, whom
//! zombies may hunt.

use valence::prelude::*;

/// A standing player's eyes above their feet: where they reach from and are seen at.
pub const EYE_HEIGHT: f64 = 1.62;

/// Players zombies may hunt: alive and in survival or adventure.
pub fn huntable(mode: &GameMode) -> bool {
    matches!(mode, GameMode::Survival | GameMode::Adventure)
}

/// The player is on the death screen.
#[derive(Component, Debug)]
#[component(storage = "SparseSet")] // comes and goes: kept apart, so the row stays put
pub struct Dead;

/// Playing the death animation; removed at `until`. Every system that acts for a zombie
/// leaves the dying alone. In the table, as `zombie::Pursuing` says why.
#[derive(Component, Debug, Clone, Copy)]
pub struct Dying {
    /// The tick its body is removed.
    pub until: u64,
    /// The player whose blow killed it: only then does it drop its rare loot, what it wore and
    /// its experience.
    pub killer: Option<Entity>,
}

/// The online player called `name`, its case ignored as vanilla ignores it: whom an
/// operator's command names.
pub fn player_named(world: &mut World, name: &str) -> Option<Entity> {
    world
        .query_filtered::<(Entity, &Username), With<Client>>()
        .iter(world)
        .find(|(_, n)| n.0.eq_ignore_ascii_case(name))
        .map(|(entity, _)| entity)
}

/// Where a player comes back after dying: the head of the bed they last used, or a point an
/// operator set (`spawnpoint`), which needs no bed (vanilla's respawn position, `SpawnX/Y/Z`
/// and `SpawnForced` in their playerdata).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RespawnPoint {
    pub at: BlockPos,
    /// Set by `spawnpoint`: kept without a bed.
    pub forced: bool,
}

impl RespawnPoint {
    /// The head of the bed a player slept in.
    pub fn bed(head: BlockPos) -> Self {
        Self {
            at: head,
            forced: false,
        }
    }
}
