//! The zombies' figures for the metrics endpoint: how many do what, once a second.

use bevy_ecs::query::Has;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use valence::prelude::*;

use super::{Attack, Destination, Dozing, Why, Zombie};
use crate::common::body::Dying;
use crate::metrics::Label;

/// Zombies in the world by what they do; zombies in ghost packs are the pack's figures.
#[derive(Resource, Clone, Default)]
pub(super) struct ZombieGauges(Family<Label, Gauge>);

pub(super) fn register(app: &mut App) {
    let gauges = ZombieGauges::default();
    crate::metrics::register(
        app,
        "horde_zombies",
        "Zombies in the world by state: chasing, attacking, investigating, wandering, idle, dozing, dying",
        gauges.0.clone(),
    );
    app.insert_resource(gauges);
}

pub(super) fn count(
    zombies: Query<(&Destination, &Attack, Has<Dozing>, Has<Dying>), With<Zombie>>,
    gauges: Res<ZombieGauges>,
) {
    let mut counts = [0i64; 7];
    for (dest, attack, dozing, dying) in &zombies {
        let state = if dying {
            6
        } else if *attack != Attack::Ready {
            1
        } else if dest.chasing() {
            0
        } else if dest.why == Why::Investigate {
            2
        } else if dest.why == Why::Stroll {
            3
        } else if dozing {
            5
        } else {
            4
        };
        counts[state] += 1;
    }
    let states = [
        "chasing",
        "attacking",
        "investigating",
        "wandering",
        "idle",
        "dozing",
        "dying",
    ];
    for (state, n) in states.into_iter().zip(counts) {
        gauges.0.get_or_create(&[("state", state)]).set(n);
    }
}
