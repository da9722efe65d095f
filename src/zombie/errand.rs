//! Where a zombie heads: its target if it chases someone, else the place a noise or a light
//! draws it to, else the first errand that holds (its pack's march, then shade by day), else,
//! awake, a stroll of its own after a rest. The errands are written by the modules that decide
//! them, each in its own component (noise [`Lure`], packs [`March`], daylight [`Shade`] and
//! [`Dozing`]); this module only reads them and fills the
//! one [`Destination`] the planner follows. When the planner reports an errand done, or the
//! zombie boxed in, the zombie rests.

use std::f64::consts::TAU;

use bevy_ecs::query::Has;
use rand::Rng;
use rand_pcg::Pcg32;
use valence::prelude::*;

use super::movement::{Outcome, Walker};
use super::rules::ChaseRules;
use super::{Body, Destination, Dozing, Lod, Lure, March, Shade, Target, Why, Zombie};
use crate::common::body::Dying;

/// Rests between errands last 2 to 10 s, 6 on average like vanilla's stroll.
const MIN_REST_TICKS: u64 = 40;
/// The longest rest, in ticks.
pub const MAX_REST_TICKS: u64 = 199;

/// A zombie's own strolls and rests, reproducible from its seed.
#[derive(Component, Debug, Clone)]
pub struct Wander {
    /// Where it strolls to.
    stroll: Option<DVec3>,
    /// No new stroll before this tick.
    rest_until: u64,
    /// Boxed in, it takes no errand either before this tick.
    boxed_in_until: u64,
    /// The errand last reached: not taken again until its owner moves it.
    finished: Option<DVec3>,
    rng: Pcg32,
}

impl Wander {
    pub fn new(seed: u64) -> Self {
        Self {
            stroll: None,
            rest_until: 0,
            boxed_in_until: 0,
            finished: None,
            rng: crate::random::generator(seed),
        }
    }

    /// The errand or stroll towards `done` is over: a rest before the next.
    fn rest(&mut self, now: u64, done: Option<DVec3>) {
        self.stroll = None;
        self.finished = done;
        let span = (MAX_REST_TICKS - MIN_REST_TICKS + 1) as f64;
        self.rest_until = now + MIN_REST_TICKS + (self.rng.gen::<f64>() * span) as u64;
    }

    /// Takes the planner's news of the last plan: an errand done, or boxed in.
    fn hear(&mut self, outcome: Option<Outcome>, now: u64, current: &Destination) {
        match outcome {
            Some(Outcome::Arrived) => self.rest(now, current.to),
            Some(Outcome::BoxedIn) => {
                self.rest(now, current.to);
                self.boxed_in_until = self.rest_until;
            }
            None => {}
        }
    }

    /// The destination: the target, else (unless resting boxed in) the lure, else the first
    /// errand given and not yet done, else (awake) a stroll up to `radius` away once the rest
    /// is over. The lure holds even where the zombie already stands: it looks around there.
    fn choose(&mut self, calls: Calls, pos: DVec3, now: u64, radius: f64) -> Destination {
        let Calls {
            target,
            lure,
            errands,
            dozing,
        } = calls;
        if let Some((player, at)) = target {
            self.stroll = None;
            return Destination {
                to: Some(at),
                why: Why::Chase(player),
            };
        }
        if now < self.boxed_in_until {
            return Destination::NOWHERE;
        }
        if let Some(to) = lure {
            self.stroll = None;
            return Destination {
                to: Some(to),
                why: Why::Investigate,
            };
        }
        for (why, to) in errands {
            if let Some(to) = to.filter(|to| Some(*to) != self.finished) {
                return Destination { to: Some(to), why };
            }
        }
        if dozing {
            return Destination::NOWHERE;
        }
        if self.stroll.is_none() && now >= self.rest_until {
            let angle = self.rng.gen::<f64>() * TAU;
            let dist = radius * (0.3 + 0.7 * self.rng.gen::<f64>());
            self.stroll = Some(pos + DVec3::new(angle.cos() * dist, 0.0, angle.sin() * dist));
        }
        match self.stroll {
            Some(to) => Destination {
                to: Some(to),
                why: Why::Stroll,
            },
            None => Destination::NOWHERE,
        }
    }
}

/// What may call a zombie somewhere on one activation, strongest first.
#[derive(Debug, Clone, Copy)]
struct Calls {
    /// The player it chases, and where they stand.
    target: Option<(Entity, DVec3)>,
    /// The place a noise or a light drew it to.
    lure: Option<DVec3>,
    /// The errands given (a pack's march, the shade by day): the first not yet done holds.
    errands: [(Why, Option<DVec3>); 2],
    /// A dozing zombie does not stroll.
    dozing: bool,
}

/// On each of its activations a zombie takes the planner's news and picks its destination.
pub(super) fn decide(
    mut zombies: Query<
        (
            &Target,
            &Lure,
            &March,
            &Shade,
            Has<Dozing>,
            &Walker,
            &Body,
            &Position,
            &Lod,
            &mut Wander,
            &mut Destination,
        ),
        (With<Zombie>, Without<Dying>, Without<Client>),
    >,
    players: Query<&Position, (With<Client>, Without<Zombie>)>,
    rules: Res<ChaseRules>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    // Each zombie's choice is its own: the crowd is shared among the cores.
    zombies.par_iter_mut().for_each_mut(
        |(
            target,
            lure,
            march,
            shade,
            dozing,
            walker,
            body,
            position,
            lod,
            mut wander,
            mut destination,
        )| {
            // The planner runs on the same ticks: each of its outcomes is heard once.
            if lod.steps(now) == 0 {
                return;
            }
            let wander = &mut *wander;
            wander.hear(walker.outcome(), now, &destination);
            let target = target
                .player
                .and_then(|t| Some((t, players.get(t).ok()?.0)));
            let pos = body.feet(position.0);
            let errands = [(Why::March, march.0), (Why::Shade, shade.0)];
            let calls = Calls {
                target,
                lure: lure.0,
                errands,
                dozing,
            };
            let next = wander.choose(calls, pos, now, rules.wander_radius);
            if *destination != next {
                *destination = next;
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: DVec3 = DVec3::new(0.5, 64.0, 0.5);

    fn choose(w: &mut Wander, march: Option<DVec3>, dozing: bool, now: u64) -> Destination {
        let errands = [(Why::March, march), (Why::Shade, None)];
        w.choose(
            Calls {
                target: None,
                lure: None,
                errands,
                dozing,
            },
            HERE,
            now,
            8.0,
        )
    }

    #[test]
    fn a_target_comes_first_then_errands_then_a_stroll() {
        let mut w = Wander::new(1);
        let player = Entity::from_raw(7);
        let at = DVec3::new(9.0, 64.0, 0.0);
        let march = Some(DVec3::new(30.0, 64.0, 0.0));
        let errands = [(Why::March, march), (Why::Shade, Some(HERE))];
        let chase = w.choose(
            Calls {
                target: Some((player, at)),
                lure: None,
                errands,
                dozing: true,
            },
            HERE,
            0,
            8.0,
        );
        assert_eq!(chase.why, Why::Chase(player));
        assert_eq!(
            w.choose(
                Calls {
                    target: None,
                    lure: None,
                    errands,
                    dozing: true
                },
                HERE,
                0,
                8.0
            )
            .why,
            Why::March
        );
        let shade = [(Why::March, None), (Why::Shade, Some(HERE))];
        assert_eq!(
            w.choose(
                Calls {
                    target: None,
                    lure: None,
                    errands: shade,
                    dozing: false
                },
                HERE,
                0,
                8.0
            )
            .why,
            Why::Shade
        );
        let stroll = choose(&mut w, None, false, 0);
        assert_eq!(stroll.why, Why::Stroll);
        let d = stroll.to.unwrap().distance(HERE);
        assert!((2.4..=8.0).contains(&d), "{d}");
        assert_eq!(
            choose(&mut w, None, true, 0),
            Destination::NOWHERE,
            "asleep"
        );
    }

    #[test]
    fn a_lure_comes_after_the_target_and_before_the_packs_march() {
        let mut w = Wander::new(5);
        let player = Entity::from_raw(7);
        let lure = Some(DVec3::new(-9.0, 64.0, 3.0));
        let errands = [
            (Why::March, Some(DVec3::new(30.0, 64.0, 0.0))),
            (Why::Shade, None),
        ];
        let at = DVec3::new(9.0, 64.0, 0.0);
        let chase = w.choose(
            Calls {
                target: Some((player, at)),
                lure,
                errands,
                dozing: false,
            },
            HERE,
            0,
            8.0,
        );
        assert_eq!(chase.why, Why::Chase(player));
        let drawn = w.choose(
            Calls {
                target: None,
                lure,
                errands,
                dozing: false,
            },
            HERE,
            0,
            8.0,
        );
        assert_eq!((drawn.why, drawn.to), (Why::Investigate, lure));
        // Arrived there, it stays while the lure holds: it is looking around.
        w.hear(Some(Outcome::Arrived), 1, &drawn);
        assert_eq!(
            w.choose(
                Calls {
                    target: None,
                    lure,
                    errands,
                    dozing: false
                },
                HERE,
                2,
                8.0
            ),
            drawn
        );
        assert_eq!(
            w.choose(
                Calls {
                    target: None,
                    lure: None,
                    errands,
                    dozing: false
                },
                HERE,
                3,
                8.0
            )
            .why,
            Why::March
        );
    }

    #[test]
    fn an_errand_done_is_not_taken_again_until_it_moves_and_a_rest_follows() {
        let mut w = Wander::new(2);
        let march = Some(DVec3::new(30.0, 64.0, 0.0));
        let now = 1000;
        let current = choose(&mut w, march, false, now);
        w.hear(Some(Outcome::Arrived), now, &current);
        let rest = w.rest_until - now;
        assert!((MIN_REST_TICKS..=MAX_REST_TICKS).contains(&rest), "{rest}");
        assert_eq!(choose(&mut w, march, false, now + 1), Destination::NOWHERE);
        let rested = w.rest_until;
        assert_eq!(
            choose(&mut w, march, false, rested).why,
            Why::Stroll,
            "rested, it strolls"
        );
        let moved = Some(DVec3::new(40.0, 64.0, 0.0));
        assert_eq!(choose(&mut w, moved, false, now + 2).why, Why::March);
    }

    #[test]
    fn boxed_in_it_takes_no_errand_until_its_rest_is_over() {
        let mut w = Wander::new(3);
        let march = Some(DVec3::new(30.0, 64.0, 0.0));
        let current = choose(&mut w, march, false, 0);
        w.hear(Some(Outcome::BoxedIn), 0, &current);
        let moved = Some(DVec3::new(40.0, 64.0, 0.0));
        assert_eq!(choose(&mut w, moved, false, 1), Destination::NOWHERE);
        let rested = w.boxed_in_until;
        assert_eq!(choose(&mut w, moved, false, rested).why, Why::March);
    }

    #[test]
    fn rests_span_vanillas_two_to_ten_seconds() {
        let mut w = Wander::new(4);
        let (mut least, mut most) = (u64::MAX, 0);
        for _ in 0..2000 {
            w.rest(0, None);
            least = least.min(w.rest_until);
            most = most.max(w.rest_until);
        }
        assert_eq!((least, most), (MIN_REST_TICKS, MAX_REST_TICKS));
    }
}
