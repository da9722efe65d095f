//! The hop rule and its re-planning discipline, from the chase seed with its author's fixes.
//!
//! A zombie at `h` chasing `p` walks to `h + min(1, R/d)(p - h)`: at most R blocks per path, so
//! a path never goes stale by more than one hop. It re-plans when a hop ends (Reached), when
//! the way is blocked (Blocked), and when it did not move since the last plan (Stuck: jump,
//! then re-plan). Re-plans closer together than the collapse window become one, retried after
//! a back-off (LimitReached). A watchdog of `tau = k * R / v` re-launches the path whenever
//! nothing happened for that long, so no failure, reported or silent, leaves a zombie still.

use valence::prelude::*;

/// The chase tunables, converted to ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HopRules {
    /// R, in blocks.
    pub radius: f64,
    /// Moved this little or less since the last plan means stuck.
    pub stuck_distance: f64,
    /// Plans closer than this many ticks collapse into one.
    pub collapse_ticks: u64,
    /// Wait after a collapsed plan.
    pub backoff_ticks: u64,
    /// Watchdog margin k.
    pub watchdog_k: f64,
    /// Plans in a row without getting closer to the target before giving it up; and in place
    /// before a walker rests (see [`HopPlanner::boxed_in`]).
    pub give_up_plans: u32,
    pub tick_rate: f64,
}

impl HopRules {
    /// Watchdog countdown in ticks for a zombie walking `speed` blocks/s on hops of `reach`
    /// blocks (R but far from players, see `ChaseRules::hop_reach`): `k * R / v`.
    pub fn watchdog_ticks(&self, reach: f64, speed: f64) -> u64 {
        ((self.watchdog_k * reach / speed.max(0.01)) * self.tick_rate)
            .ceil()
            .max(1.0) as u64
    }
}

/// The next hop's goal.
pub fn hop_goal(from: DVec3, target: DVec3, radius: f64) -> DVec3 {
    let d = from.distance(target);
    if d <= radius {
        target
    } else {
        from + (target - from) * (radius / d)
    }
}

/// Why a plan is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopEvent {
    /// The hop's last waypoint was reached.
    Reached,
    /// The next waypoint is no longer walkable, or a wall stops the body.
    Blocked,
    /// The watchdog ran out.
    Watchdog,
    /// The back-off after a collapsed plan is over.
    BackoffOver,
    /// A new target (or none any more): start over.
    Retarget,
}

/// What to do about a plan request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Compute a new path now; `jump` when stuck.
    Plan { jump: bool },
    /// Too soon after the last plan: wait out the back-off (LimitReached).
    BackOff,
    /// A back-off is running; it will ask again.
    Wait,
}

/// Per-zombie re-planning state.
#[derive(Debug, Clone, PartialEq)]
pub struct HopPlanner {
    last_plan: Option<(u64, DVec3)>,
    backoff_until: Option<u64>,
    watchdog_at: u64,
    /// Closest the zombie has been to its target at a plan, and plans since it got closer.
    best_distance: f64,
    plans_without_progress: u32,
    /// Plans in a row that found the zombie where the last one left it, height aside: a jump
    /// on the spot is not a move.
    plans_in_place: u32,
}

impl Default for HopPlanner {
    fn default() -> Self {
        Self {
            last_plan: None,
            backoff_until: None,
            watchdog_at: 0,
            best_distance: f64::INFINITY,
            plans_without_progress: 0,
            plans_in_place: 0,
        }
    }
}

impl HopPlanner {
    /// The event due at `now` on its own (watchdog or end of back-off), if any.
    pub fn due(&self, now: u64) -> Option<HopEvent> {
        match self.backoff_until {
            Some(until) if now >= until => Some(HopEvent::BackoffOver),
            Some(_) => None,
            None if now >= self.watchdog_at => Some(HopEvent::Watchdog),
            None => None,
        }
    }

    /// Decides what a plan request at `now` from `pos` leads to.
    pub fn request(
        &mut self,
        event: HopEvent,
        now: u64,
        pos: DVec3,
        rules: &HopRules,
        watchdog: u64,
    ) -> Decision {
        if event == HopEvent::BackoffOver {
            self.backoff_until = None;
        } else if self.backoff_until.is_some() {
            return Decision::Wait;
        }
        if let Some((_, from)) = self.last_plan {
            if self.recent(now, rules) && event != HopEvent::Retarget {
                self.backoff_until = Some(now + rules.backoff_ticks);
                self.watchdog_at = now + watchdog;
                return Decision::BackOff;
            }
            let stuck = pos.distance(from) <= rules.stuck_distance && event != HopEvent::Retarget;
            let across = (pos.x - from.x).hypot(pos.z - from.z);
            if across <= rules.stuck_distance && event != HopEvent::Retarget {
                self.plans_in_place += 1;
            } else {
                self.plans_in_place = 0;
            }
            self.planned(now, pos, watchdog);
            return Decision::Plan { jump: stuck };
        }
        self.plans_in_place = 0;
        self.planned(now, pos, watchdog);
        Decision::Plan { jump: false }
    }

    /// Whether a plan at `now` would come within the collapse window of the last one.
    pub fn recent(&self, now: u64, rules: &HopRules) -> bool {
        self.last_plan
            .is_some_and(|(at, _)| now.saturating_sub(at) < rules.collapse_ticks)
    }

    /// Whether the zombie is boxed in: `give_up_plans` plans in a row have not moved it
    /// (jumping on the spot does not count as moving).
    pub fn boxed_in(&self, rules: &HopRules) -> bool {
        self.plans_in_place >= rules.give_up_plans
    }

    /// Nothing to plan (in reach of the target, or resting): the watchdog restarts.
    pub fn hold(&mut self, now: u64, watchdog: u64) {
        self.watchdog_at = now + watchdog;
    }

    fn planned(&mut self, now: u64, pos: DVec3, watchdog: u64) {
        self.last_plan = Some((now, pos));
        self.watchdog_at = now + watchdog;
    }

    /// Records the distance to the target at a plan; true when the zombie should give up
    /// (`give_up_plans` plans in a row without getting half a block closer).
    pub fn note_progress(&mut self, distance: f64, rules: &HopRules) -> bool {
        if distance < self.best_distance - 0.5 {
            self.best_distance = distance;
            self.plans_without_progress = 0;
        } else {
            self.plans_without_progress += 1;
        }
        self.plans_without_progress >= rules.give_up_plans
    }

    /// Whether the last plans brought the zombie no closer to its target.
    pub fn stalled(&self) -> bool {
        self.plans_without_progress >= 1
    }

    /// Forgets progress (new target, or a rest after being boxed in).
    pub fn reset_progress(&mut self) {
        self.best_distance = f64::INFINITY;
        self.plans_without_progress = 0;
        self.plans_in_place = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: HopRules = HopRules {
        radius: 3.36,
        stuck_distance: 0.02,
        collapse_ticks: 2,
        backoff_ticks: 7,
        watchdog_k: 1.5,
        give_up_plans: 4,
        tick_rate: 20.0,
    };

    #[test]
    fn goal_is_at_most_r_away() {
        let h = DVec3::ZERO;
        assert_eq!(
            hop_goal(h, DVec3::new(2.0, 0.0, 0.0), 3.36),
            DVec3::new(2.0, 0.0, 0.0)
        );
        let g = hop_goal(h, DVec3::new(0.0, 0.0, 10.0), 3.36);
        assert!((g.z - 3.36).abs() < 1e-12 && g.x == 0.0);
    }

    #[test]
    fn watchdog_is_k_r_over_v() {
        // 1.5 * 3.36 / 5.32 s = 0.947 s = 19 ticks at 20 TPS.
        assert_eq!(RULES.watchdog_ticks(RULES.radius, 5.32), 19);
        // The slowest seed type (3.64 blocks/s) gets more time, not a cut hop.
        assert!(RULES.watchdog_ticks(RULES.radius, 3.64) as f64 / 20.0 > 3.36 / 3.64);
    }

    #[test]
    fn first_plan_then_stuck_jumps() {
        let mut p = HopPlanner::default();
        let pos = DVec3::new(1.0, 2.0, 3.0);
        assert_eq!(
            p.request(HopEvent::Retarget, 0, pos, &RULES, 19),
            Decision::Plan { jump: false }
        );
        assert_eq!(p.due(18), None);
        assert_eq!(p.due(19), Some(HopEvent::Watchdog));
        let moved = pos + DVec3::new(0.01, 0.0, 0.0);
        assert_eq!(
            p.request(HopEvent::Watchdog, 19, moved, &RULES, 19),
            Decision::Plan { jump: true }
        );
        let far = pos + DVec3::new(2.0, 0.0, 0.0);
        assert_eq!(
            p.request(HopEvent::Reached, 30, far, &RULES, 19),
            Decision::Plan { jump: false }
        );
    }

    #[test]
    fn plans_that_leave_the_zombie_in_place_box_it_in() {
        let mut p = HopPlanner::default();
        let pos = DVec3::new(1.0, 2.0, 3.0);
        p.request(HopEvent::Retarget, 0, pos, &RULES, 19);
        // Jumping on the spot is staying in place; the rule's count of plans in a row...
        for i in 1..RULES.give_up_plans as u64 {
            let jumping = pos + DVec3::new(0.0, 0.4, 0.0);
            p.request(HopEvent::Reached, i * 10, jumping, &RULES, 19);
            assert!(!p.boxed_in(&RULES), "{i}");
        }
        p.request(HopEvent::Reached, 100, pos, &RULES, 19);
        assert!(p.boxed_in(&RULES));
        // ...and a plan that finds it moved, or a rest's fresh start, ends it.
        p.request(HopEvent::Reached, 110, pos + DVec3::X, &RULES, 19);
        assert!(!p.boxed_in(&RULES));
        for i in 0..RULES.give_up_plans as u64 {
            p.request(HopEvent::Reached, 120 + i * 10, pos + DVec3::X, &RULES, 19);
        }
        assert!(p.boxed_in(&RULES));
        p.reset_progress();
        assert!(!p.boxed_in(&RULES));
    }

    #[test]
    fn quick_replans_collapse_and_back_off() {
        let mut p = HopPlanner::default();
        let pos = DVec3::ZERO;
        p.request(HopEvent::Retarget, 100, pos, &RULES, 19);
        assert_eq!(
            p.request(HopEvent::Blocked, 101, pos, &RULES, 19),
            Decision::BackOff
        );
        assert_eq!(
            p.request(HopEvent::Blocked, 103, pos, &RULES, 19),
            Decision::Wait
        );
        assert_eq!(p.due(107), None);
        assert_eq!(p.due(108), Some(HopEvent::BackoffOver));
        assert!(matches!(
            p.request(HopEvent::BackoffOver, 108, pos, &RULES, 19),
            Decision::Plan { .. }
        ));
    }

    #[test]
    fn gives_up_without_progress_and_not_with_it() {
        let mut p = HopPlanner::default();
        assert!(!p.note_progress(20.0, &RULES));
        for d in [19.0, 18.0, 17.0, 16.0, 15.0] {
            assert!(!p.note_progress(d, &RULES), "closing in");
        }
        for _ in 0..3 {
            assert!(!p.note_progress(15.2, &RULES));
        }
        assert!(p.note_progress(15.1, &RULES), "four plans without progress");
        p.reset_progress();
        assert!(!p.note_progress(15.1, &RULES));
    }
}
