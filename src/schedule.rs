//! The named stages of horde's tick, on the floor every plugin stands on: a plugin puts its
//! systems in a stage, or orders them against one, without naming another plugin's systems.
//! [`SchedulePlugin`] chains the stages; the plugins fill them.

use valence::prelude::*;

/// The phases of horde's tick in `Update`, in this order. Every system of ours runs in one,
/// so that where it stands in the tick is written down, as Valence's crates order theirs.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TickSet {
    /// Console and RCON commands, with the whole world at hand.
    Commands,
    /// Plugins rebuild what they derived from a configuration a `reload` changed.
    Config,
    /// The world: the clock, chunks arriving and leaving (and which are entity-ticking), the
    /// spawn point.
    World,
    /// Players join, take the damage of the last tick, die and respawn.
    Players,
    /// Zombies: this tick's edits into the walkability facts, zombies restored from the save
    /// and spawned, the sun's effects, then the stages of [`ZombieSet`].
    Zombies,
    /// Hunts count the tick's kills and send their waves.
    Hunts,
}

/// The stages of the zombies' turn within [`TickSet::Zombies`], in this order. What comes
/// before the first (restoring, spawning, the sun, the walkability facts) orders itself
/// `before(ZombieSet::Classify)`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZombieSet {
    /// Tiers by distance to players: who acts this tick; new zombies dressed; lured zombies
    /// that lost interest.
    Classify,
    /// Packs move their centroids and give their members the waypoint they head for.
    Lead,
    /// Acting zombies pick the player they chase.
    Target,
    /// Zombies without a target hear the tick's noises and see lights, and go to look.
    Sense,
    /// Chasers are marked busy and every other zombie's destination is decided.
    Decide,
    /// Plan, walk and sync, zombie by zombie, then what clients see and hear of it.
    Move,
    /// Blows both ways, doors, and what a blow sets off.
    Attack,
}

/// horde's work in `PostUpdate` that Valence's layers read (the chunks players need, zombies
/// filed into their layers): before Valence writes the layers, and apart from the passes
/// `metrics` times as Valence's own.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BeforeLayersSet;

/// Chains the stages, so that every plugin finds them in place whatever order it is added in.
pub struct SchedulePlugin;

impl Plugin for SchedulePlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(
            Update,
            (
                TickSet::Commands,
                TickSet::Config,
                TickSet::World,
                TickSet::Players,
                TickSet::Zombies,
                TickSet::Hunts,
            )
                .chain(),
        )
        .configure_sets(
            Update,
            (
                ZombieSet::Classify,
                ZombieSet::Lead,
                ZombieSet::Target,
                ZombieSet::Sense,
                ZombieSet::Decide,
                ZombieSet::Move,
                ZombieSet::Attack,
            )
                .chain()
                .in_set(TickSet::Zombies),
        )
        .configure_set(
            PostUpdate,
            BeforeLayersSet.before(valence::layer::UpdateLayersPreClientSet),
        );
    }
}
