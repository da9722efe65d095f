//! Zombies: bodies that walk the voxel world (`body`), find paths (`path`), pick and keep
//! their targets (`chase`), move in hops with a watchdog (`hop`, `movement`), hold their heads
//! (`look`), hit and get hit (`attack`), break wooden doors (`doors`), act less often far
//! from players (`lod`), and are sent only to players within range (`tracking`).

pub mod attack;
pub mod body;
pub mod chase;
pub mod commands;
mod doors;
pub mod hop;
pub mod kinds;
pub mod lod;
mod look;
mod movement;
pub mod path;
mod tracking;

use valence::entity::zombie::ZombieEntityBundle;
use valence::prelude::*;

use crate::config::Config;
pub use attack::{Attack, Dying};
pub use body::Body;
pub use chase::{Chase, ChaseStats};
pub use kinds::ZombieKinds;
pub use lod::{Lod, Tier};

pub struct ZombiePlugin;

impl Plugin for ZombiePlugin {
    fn build(&self, app: &mut App) {
        let kinds = ZombieKinds::new(&app.world.resource::<Config>().zombies.types);
        app.insert_resource(kinds)
            .add_systems(Update, kinds::reload_kinds.in_set(crate::TickSet::Config))
            .add_plugins((
                lod::LodPlugin,
                chase::ChasePlugin,
                attack::AttackPlugin,
                doors::DoorsPlugin,
                tracking::TrackingPlugin,
            ));
    }
}

/// A zombie, of type `kind` in [`ZombieKinds`] (an index that never changes while the server
/// runs, whatever a reload does to the list).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zombie {
    pub kind: usize,
}

/// A hunt round's zombie: it fights in the arena rather than roaming, so it joins no pack, the
/// sun neither burns nor lulls it, and it finds the round's players within `hunt.target_range`
/// whether it sees them or not.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Arena;

/// Where another module sends a zombie that has nobody to chase: shade by day, its pack's
/// waypoint by night. Cleared when reached, or when the zombie finds itself boxed in.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Errand(pub Option<DVec3>);

/// The zombie is after a player. Set by the chase module from its target, so that other
/// modules (packs) know a zombie is busy without learning whom it chases.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Pursuing;

/// Health left, in half hearts.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Vitality(pub f32);

/// Whether `entity` takes its turn at tick `now` of work done once per `period` ticks: each
/// entity on its own tick, so the work is spread instead of landing on one.
pub fn staggered(entity: Entity, now: u64, period: u64) -> bool {
    (now + entity.index() as u64).is_multiple_of(period)
}

/// Everything a new zombie entity needs. `seed` makes its wandering reproducible.
pub fn zombie_bundle(
    layer: Entity,
    pos: DVec3,
    kind: usize,
    kinds: &ZombieKinds,
    seed: u64,
) -> impl Bundle {
    let stats = kinds.get(kind);
    (
        ZombieEntityBundle {
            layer: EntityLayerId(layer),
            position: Position(pos),
            ..Default::default()
        },
        Zombie { kind },
        Vitality(stats.health),
        Body::default(),
        Chase::new(seed),
        Errand::default(),
        Attack::default(),
        Lod::new(seed),
    )
}
