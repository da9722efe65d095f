//! The pack module is player-blind. Checked on what its systems really access in a running
//! server with a player, zombies and packs, not on the words of its source: no system under
//! `horde::pack` may read or write any component of a player entity, nor what of a zombie is
//! derived from players: its target (`Target`), destination and hop (`Destination` and
//! `Walker` lead to its target) and level of detail (`Lod` comes from players' distances). Its legitimate inputs are zombie and pack state, terrain, which chunks are
//! entity-ticking, and whether a member is busy (`Pursuing`).

mod support;

use std::any::TypeId;

use bevy_ecs::schedule::SystemSet;
use bevy_ecs::system::System;
use horde::zombie::{Destination, Lod, Target, Walker};
use support::headless::{harness, Harness};
use valence::prelude::*;

/// What `system` touches that the pack module must not: components of archetypes holding
/// a player, and the player-derived zombie components.
fn player_access(world: &World, system: &dyn System<In = (), Out = ()>) -> Vec<String> {
    let name = |id| {
        world
            .components()
            .get_info(id)
            .map_or("?".to_string(), |i| i.name().to_string())
    };
    let mut found = Vec::new();
    let client = world.components().get_id(TypeId::of::<Client>()).unwrap();
    let archetypes = system.archetype_component_access();
    for archetype in world.archetypes().iter().filter(|a| a.contains(client)) {
        for component in archetype.components() {
            let id = archetype.get_archetype_component_id(component).unwrap();
            // `has_read` covers writes too.
            if archetypes.has_read(id) {
                found.push(format!("{} of a player", name(component)));
            }
        }
    }
    for derived in [
        TypeId::of::<Target>(),
        TypeId::of::<Destination>(),
        TypeId::of::<Walker>(),
        TypeId::of::<Lod>(),
    ] {
        let id = world.components().get_id(derived).unwrap();
        if system.component_access().has_read(id) {
            found.push(name(id));
        }
    }
    found.sort();
    found.dedup();
    found
}

/// A system that looks at players, to show the check catches one.
fn peek_at_players(players: Query<&Position, With<Client>>) {
    let _ = players.iter().count();
}

#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct Before;
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
struct After;

/// A server with a player among zombies in packs, run long enough for every system to have
/// met every archetype.
fn running_server() -> Harness {
    let mut h = harness();
    h.app.add_systems(Update, peek_at_players);
    h.run("time set midnight");
    for i in 0..12 {
        h.run(&format!("summon zombie ~{} ~ ~{}", 20 + i % 4, 20 + i / 4));
    }
    for _ in 0..300 {
        h.app.update();
    }
    h
}

#[test]
fn no_pack_system_touches_a_player_or_what_is_derived_from_players() {
    let mut h = running_server();
    assert!(
        h.app.world.resource::<horde::pack::Packs>().stats().formed > 0,
        "packs formed while the check watched"
    );
    h.app.world.schedule_scope(Update, |world, schedule| {
        // A running schedule keeps its systems out of reach; a schedule that fails to rebuild
        // (two sets each before the other) hands them back to its graph, as they last ran.
        schedule.configure_set(Before.before(After));
        schedule.configure_set(After.before(Before));
        assert!(schedule.initialize(world).is_err());
        let mut pack_systems = 0;
        let mut offenders = Vec::new();
        let mut caught = Vec::new();
        for (_, system, _) in schedule.graph().systems() {
            let name = system.name();
            let access = player_access(world, system);
            if name.starts_with("horde::pack::") {
                pack_systems += 1;
                if !access.is_empty() {
                    offenders.push(format!("{name}: {}", access.join(", ")));
                }
            } else if name.ends_with("peek_at_players")
                || name == "horde::zombie::chase::choose_targets"
                || name == "horde::zombie::chase::mark_pursuers"
            {
                caught.push((name.to_string(), access));
            }
        }
        assert!(pack_systems >= 5, "found {pack_systems} pack systems");
        assert!(
            offenders.is_empty(),
            "the pack module reaches for players:\n{}",
            offenders.join("\n")
        );
        // The check itself: it sees the probe's player query and the chase module's use of
        // players and of `Target`.
        assert_eq!(caught.len(), 3);
        for (name, access) in caught {
            assert!(!access.is_empty(), "{name} should be caught");
        }
    });
}
