//! The chase's settings in the units the systems use (ticks, blocks), made from `[chase]`
//! and the few other keys the zombies' decisions read; rebuilt when a reload changes one.

use valence::prelude::*;

use super::hop::HopRules;
use super::path::PathLimits;
use crate::config::{Config, ConfigChanged};

/// Chase settings in the units the systems use.
#[derive(Resource, Debug, Clone)]
pub struct ChaseRules {
    pub hop: HopRules,
    pub limits: PathLimits,
    /// A stroll's or errand's search when its hop ends where nobody stands: the nodes of the
    /// square the hop spans, which find the nearest block as well as the whole budget would.
    pub hop_square_limits: PathLimits,
    pub follow_range: f64,
    /// How far hunt zombies look for the round's players.
    pub hunt_range: f64,
    pub retarget_ticks: u64,
    pub retarget_margin: f64,
    pub give_up_ticks: u64,
    pub wander_radius: f64,
    pub wake_radius: f64,
}

impl ChaseRules {
    /// The config keys the rules are made from: a reload that changes none of them leaves
    /// the rules as they are.
    const KEYS: [&str; 5] = [
        "chase",
        "zombies.follow_range",
        "zombies.wander_radius",
        "hunt.target_range",
        "daylight.wake_radius",
    ];

    pub fn new(config: &Config, tick_rate: f64) -> Self {
        let chase = &config.chase;
        let ticks = |s: f64| (s * tick_rate).ceil() as u64;
        let hop_span = (2.0 * chase.hop_radius).ceil() as usize + 1;
        Self {
            hop: HopRules {
                radius: chase.hop_radius,
                stuck_distance: chase.stuck_distance,
                collapse_ticks: ticks(chase.replan_collapse_s).max(1),
                backoff_ticks: ticks(chase.backoff_s).max(1),
                watchdog_k: chase.watchdog_k,
                give_up_plans: chase.give_up_plans,
                tick_rate,
            },
            limits: PathLimits {
                node_budget: chase.node_budget as usize,
                max_drop: chase.max_drop,
            },
            hop_square_limits: PathLimits {
                node_budget: (chase.node_budget as usize).min(hop_span * hop_span),
                max_drop: chase.max_drop,
            },
            follow_range: config.zombies.follow_range,
            hunt_range: config.hunt.target_range,
            retarget_margin: chase.retarget_margin,
            retarget_ticks: chase.retarget_ticks,
            give_up_ticks: ticks(chase.give_up_s),
            wander_radius: config.zombies.wander_radius,
            wake_radius: config.daylight.wake_radius,
        }
    }

    /// How far one hop goes. A chase hops R at a time, the hop rule's. Far from every player
    /// (beyond `lod.full_radius`, or in a crowd's back rows) a stroll or a march goes
    /// `wander_radius` a hop (not less than R): its way there is the straight way on, the same
    /// line in fewer plans, and a stroll is one hop, as vanilla's is one path.
    pub fn hop_reach(&self, far_errand: bool) -> f64 {
        if far_errand {
            self.wander_radius.max(self.hop.radius)
        } else {
            self.hop.radius
        }
    }
}

/// After a `reload`: the chase rules from the new values.
pub(super) fn rebuild_rules(
    mut changed: EventReader<ConfigChanged>,
    mut rules: ResMut<ChaseRules>,
    config: Res<Config>,
    server: Res<Server>,
) {
    if changed
        .iter()
        .any(|c| ChaseRules::KEYS.iter().any(|k| c.touches(k)))
    {
        *rules = ChaseRules::new(&config, server.tick_rate().get() as f64);
    }
}
