//! Packs: loose zombies clump into packs that migrate by night on their own errand; a pack
//! nobody can see becomes a ghost record and walks on coarsely until its area is watched again.
//!
//! The rules are plain functions (`rules`, `migration`, `ghost`, and `sleep`, the timetable
//! that lets far ghosts sleep through sweeps); the two systems are glue over the state in
//! `state`: `membership` (joining, forming, straying) and `sweep` (each pack's update and
//! visibility, with its helpers `merge` and `restore`).
//!
//! **Player-blind by construction.** This module's inputs are zombie state, pack state,
//! terrain, which chunks are entity-ticking (how a pack learns it is unseen), whether a member
//! is busy ([`crate::zombie::Pursuing`], without whom), the clock and a seeded RNG per pack. It
//! reads no player: `tests/pack_blind.rs` checks what every system here really accesses.

pub mod ghost;
mod membership;
mod merge;
pub mod migration;
mod restore;
pub mod rules;
pub mod save;
mod sleep;
mod state;
mod sweep;

use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use valence::math::DVec2;
use valence::prelude::*;

use crate::metrics::Label;
use crate::schedule::ZombieSet;
use crate::world::ChunkLifecycle;

pub use membership::PackBrain;
pub use state::{CostWindow, Pack, PackRecord, PackState, PackStats, PackSummary, Packs};

pub type PackId = u64;

/// Pack `gone` merged into pack `kept`, where `gone` stood.
#[derive(Event, Debug, Clone, Copy, PartialEq)]
pub struct PacksMerged {
    pub kept: PackId,
    pub gone: PackId,
    pub at: DVec2,
}

pub struct PackPlugin;

impl Plugin for PackPlugin {
    fn build(&self, app: &mut App) {
        let gauges = PackGauges::default();
        crate::metrics::register(
            app,
            "horde_packs",
            "Packs by state: materialised (members in the world) or ghost (no chunk watched)",
            gauges.packs.clone(),
        );
        crate::metrics::register(
            app,
            "horde_pack_members",
            "Zombies in packs by their pack's state: materialised or ghost",
            gauges.members.clone(),
        );
        app.insert_resource(gauges).add_systems(
            Update,
            export_packs
                .after(state::stop_clock)
                .in_set(crate::schedule::TickSet::Zombies)
                .run_if(crate::metrics::once_a_second),
        );
        app.insert_resource(Packs::default())
            .add_event::<PacksMerged>()
            .add_systems(
                Update,
                (
                    state::start_clock,
                    membership::give_brains,
                    membership::member_decisions,
                    sweep::update_packs,
                    state::stop_clock,
                )
                    .chain()
                    .in_set(ZombieSet::Lead),
            );
        save::register(app);
    }
}

/// The packs' figures for the metrics endpoint.
#[derive(Resource, Clone, Default)]
struct PackGauges {
    packs: Family<Label, Gauge>,
    members: Family<Label, Gauge>,
}

fn export_packs(packs: Res<Packs>, gauges: Res<PackGauges>) {
    let (mut counts, mut members) = ([0i64; 2], [0i64; 2]);
    for pack in packs.iter() {
        let (i, n) = match pack.state {
            PackState::Materialised => (0, pack.members.len()),
            PackState::Ghost => (1, pack.ghosts.len()),
        };
        counts[i] += 1;
        members[i] += n as i64;
    }
    for (i, state) in ["materialised", "ghost"].into_iter().enumerate() {
        gauges
            .packs
            .get_or_create(&[("state", state)])
            .set(counts[i]);
        gauges
            .members
            .get_or_create(&[("state", state)])
            .set(members[i]);
    }
}

/// `packs`: one line per pack, then the counters and the chunk latencies the grace must
/// outlast.
pub fn report(world: &mut World) -> String {
    let now = world.resource::<Server>().current_tick() as u64;
    world.resource_mut::<Packs>().catch_up_sleepers(now);
    let packs = world.resource::<Packs>();
    let chunks = world.resource::<ChunkLifecycle>();
    let mut by_id: Vec<&Pack> = packs.iter().collect();
    by_id.sort_unstable_by_key(|p| p.id);
    let mut lines: Vec<String> = by_id.into_iter().map(Pack::report).collect();
    lines.push(format!(
        "{} {} {}",
        packs.summary(),
        chunks.load_latency.logfmt("chunk_load"),
        chunks.unload_latency.logfmt("chunk_unload")
    ));
    lines.join("\n")
}
