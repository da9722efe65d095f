//! Operator commands about zombies: `summon`, `kill` and `zombies`.

use bevy_ecs::system::SystemState;
use valence::entity::EntityStatuses;
use valence::prelude::*;

use super::record::new_zombie;
use super::{Attack, ChaseStats, Destination, Lod, Tier, Vitality, Why, ZombieKinds};
use crate::common::body::Dying;
use crate::config::Config;
use crate::world::Overworld;

/// `summon zombie`: a zombie of type `kind` (the default type if none) at `pos`.
pub fn summon(world: &mut World, pos: DVec3, kind: Option<&str>) -> String {
    let kinds = world.resource::<ZombieKinds>();
    let name = kind
        .unwrap_or(&world.resource::<Config>().zombies.default_type)
        .to_string();
    let Some(index) = kinds.find(&name) else {
        return format!(
            "error=\"no zombie type {name}\" types={}",
            kinds.names().join(",")
        );
    };
    let kinds = kinds.clone();
    let mut layers = world.query_filtered::<Entity, With<Overworld>>();
    let Ok(layer) = layers.get_single(world) else {
        return "error=\"the world is not ready\"".into();
    };
    let seed = world.resource::<Server>().current_tick() as u64
        ^ pos.x.to_bits()
        ^ pos.z.to_bits().rotate_left(17);
    let entity = world
        .spawn(new_zombie(layer, pos, index, &kinds, seed))
        .id();
    format!(
        "summoned={} id={} x={} y={} z={}",
        kinds.get(index).name,
        entity.index(),
        pos.x,
        pos.y,
        pos.z
    )
}

/// `kill`: each zombie dies as a blow taking all its health would kill it, by no player's hand
/// (vanilla's `/kill`: none of what only a player's kill drops, no experience).
pub fn kill(world: &mut World, zombies: &[Entity]) {
    let now = world.resource::<Server>().current_tick() as u64;
    let mut state = SystemState::<(
        Commands,
        Query<(&mut Vitality, &mut EntityStatuses), Without<Dying>>,
    )>::new(world);
    let (mut commands, mut bodies) = state.get_mut(world);
    for &zombie in zombies {
        if let Ok((mut vitality, mut statuses)) = bodies.get_mut(zombie) {
            let all = (f32::INFINITY, None);
            super::attack::wound(
                &mut commands,
                zombie,
                &mut vitality,
                &mut statuses,
                all,
                now,
            );
        }
    }
    state.apply(world);
}

/// `zombies`: what the zombies are doing, their tiers, and the chase totals.
pub fn report(world: &mut World) -> String {
    let mut tiers = [0usize; Tier::ALL.len()];
    let mut crowded = 0;
    let (mut total, mut chasing, mut wandering, mut attacking, mut dying) = (0, 0, 0, 0, 0);
    let mut investigating = 0;
    let mut zombies = world.query::<(&Destination, &Attack, &Lod, Option<&Dying>)>();
    for (dest, attack, lod, dead) in zombies.iter(world) {
        total += 1;
        if dead.is_some() {
            dying += 1;
            continue;
        }
        tiers[lod.tier as usize] += 1;
        crowded += usize::from(lod.crowded());
        if *attack != Attack::Ready {
            attacking += 1;
        } else if dest.chasing() {
            chasing += 1;
        } else if dest.why == Why::Stroll {
            wandering += 1;
        } else if dest.why == Why::Investigate {
            investigating += 1;
        }
    }
    let idle = total - dying - attacking - chasing - wandering - investigating;
    let stats = world.resource::<ChaseStats>();
    let siege = world.resource::<super::siege::SiegeStats>();
    format!(
        "total={total} chasing={chasing} attacking={attacking} wandering={wandering} investigating={investigating} idle={idle} dying={dying} \
         lod_near={} lod_full={} lod_half={} lod_quarter={} lod_frozen={} lod_crowded={crowded} plans={} nodes={} watchdog_fires={} give_ups={} \
         sieges={} blocks_broken={} blocks_placed={}",
        tiers[0], tiers[1], tiers[2], tiers[3], tiers[4], stats.plans, stats.expanded_nodes, stats.watchdog_fires, stats.give_ups,
        siege.plans, siege.broken, siege.placed
    )
}
