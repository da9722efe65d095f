//! The pure rules of noise: how loud a noise is where a zombie stands (range, distance, walls
//! on the straight line), how strongly a seen light draws, and a zombie's curiosity: where it
//! goes to look, for how long, and what it has lately looked at.

use valence::math::DVec3;
use valence::prelude::BlockPos;

use crate::common::events::NoiseKind;
use crate::config::NoiseConfig;
use crate::world::{is_solid, Voxels};

/// A noise's loudness and range in blocks through open air.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Voice {
    pub loudness: f32,
    pub range: f32,
}

impl NoiseKind {
    /// Its loudness and range under `config`.
    pub fn voice(self, config: &NoiseConfig) -> Voice {
        let (loudness, range) = match self {
            NoiseKind::Dig => (config.dig_loudness, config.dig_range),
            NoiseKind::Place => (config.place_loudness, config.place_range),
            NoiseKind::Fight => (config.fight_loudness, config.fight_range),
            NoiseKind::Death => (config.death_loudness, config.death_range),
            NoiseKind::Door => (config.door_loudness, config.door_range),
            NoiseKind::DoorBreak => (config.door_break_loudness, config.door_break_range),
            NoiseKind::Sprint => (config.sprint_loudness, config.sprint_range),
            NoiseKind::Jump => (config.jump_loudness, config.jump_range),
            NoiseKind::Hurt => (config.hurt_loudness, config.hurt_range),
            NoiseKind::Made { range, loudness } => (loudness, range),
        };
        Voice { loudness, range }
    }
}

/// The most blocks a line is traced through: the longest range a config allows, 128, crosses
/// at most three times as many cells.
const MAX_CELLS: usize = 3 * 128 + 3;

/// How many blocks of solid the straight line from `from` to `to` runs through (a wall one
/// block thick crossed square on is 1, crossed at a slant a little more), the blocks of both
/// ends left out, counting no further than `cap` (a noise past its range need not be traced
/// on). A walk through the block grid cell by cell (Amanatides and Woo), so each block on the
/// line is read once.
pub fn solid_between(world: &impl Voxels, from: DVec3, to: DVec3, cap: f64) -> f64 {
    let start = BlockPos::from_pos(from);
    let end = BlockPos::from_pos(to);
    let delta = to - from;
    let length = delta.length();
    let mut cell = [start.x, start.y, start.z];
    let target = [end.x, end.y, end.z];
    let d = [delta.x, delta.y, delta.z];
    let p = [from.x, from.y, from.z];
    let mut step = [0i32; 3];
    // The line's parameter (0 at `from`, 1 at `to`) where it next crosses a cell's side.
    let mut next = [f64::INFINITY; 3];
    let mut each = [f64::INFINITY; 3];
    for a in 0..3 {
        if d[a] > 0.0 {
            step[a] = 1;
            next[a] = ((cell[a] as f64 + 1.0) - p[a]) / d[a];
            each[a] = 1.0 / d[a];
        } else if d[a] < 0.0 {
            step[a] = -1;
            next[a] = (p[a] - cell[a] as f64) / -d[a];
            each[a] = -1.0 / d[a];
        }
    }
    let mut solid = 0.0;
    for _ in 0..MAX_CELLS {
        let axis = if next[0] <= next[1] && next[0] <= next[2] {
            0
        } else if next[1] <= next[2] {
            1
        } else {
            2
        };
        let entered = next[axis];
        if entered > 1.0 {
            break;
        }
        cell[axis] += step[axis];
        next[axis] += each[axis];
        if cell == target {
            break;
        }
        let left = next[0].min(next[1]).min(next[2]).min(1.0);
        let at = BlockPos::new(cell[0], cell[1], cell[2]);
        if world.block(at).is_some_and(is_solid) {
            solid += (left - entered) * length;
            if solid >= cap {
                break;
            }
        }
    }
    solid
}

/// How strongly a noise of `voice` draws a zombie `distance` blocks away with `solid` blocks
/// of wall between: its loudness, falling to nothing at its range, each block of wall taking
/// `damping` blocks of range. `None` when it is not heard at all.
pub fn heard(voice: Voice, distance: f64, solid: f64, damping: f32) -> Option<f32> {
    let muffled = distance + solid * damping as f64;
    let strength = voice.loudness * (1.0 - muffled / voice.range as f64) as f32;
    (strength > 0.0).then_some(strength)
}

/// The blocks of wall past which a noise of `voice` no longer reaches a zombie `distance`
/// blocks away: tracing stops there.
pub fn walls_that_matter(voice: Voice, distance: f64, damping: f32) -> f64 {
    if damping <= 0.0 {
        return f64::INFINITY;
    }
    (voice.range as f64 - distance) / damping as f64
}

/// How strongly a light seen `distance` blocks away draws.
pub fn seen(loudness: f32, range: f32, distance: f64) -> Option<f32> {
    (distance < range as f64).then(|| loudness * (1.0 - (distance / range as f64) as f32))
}

/// Within this many blocks of the place, the zombie is there and looks around.
pub const THERE: f64 = 2.5;
/// Looking around, it walks to a spot this far from the place...
const GLANCE_RADIUS: f64 = 3.0;
/// ...a new one this often.
const GLANCE_TICKS: u64 = 30;
/// Noises this close to a remembered place are the same place.
const SAME_PLACE: f64 = 4.0;
/// Places remembered at once.
const REMEMBERED: usize = 2;

/// The settings of [`Curiosity`], from `[noise]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CuriosityRules {
    pub investigate_ticks: u64,
    pub look_around_ticks: u64,
    pub memory_ticks: u64,
    pub switch_factor: f32,
}

impl CuriosityRules {
    pub fn new(config: &NoiseConfig) -> Self {
        Self {
            investigate_ticks: config.investigate_ticks,
            look_around_ticks: config.look_around_ticks,
            memory_ticks: config.memory_ticks,
            switch_factor: config.switch_factor,
        }
    }
}

/// Where a zombie is drawn and what it lately looked at. It goes to the place of the strongest
/// noise or light it noticed, gives up if it has not got there in `investigate_ticks`, looks
/// around for `look_around_ticks` and then remembers the place for `memory_ticks`, so that the
/// same noise does not draw it straight back; a louder one still does.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Curiosity {
    errand: Option<Errand>,
    remembered: [Option<Remembered>; REMEMBERED],
}

/// A place looked at, until when it is remembered, and how strong what drew it there was.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Remembered {
    place: DVec3,
    until: u64,
    strength: f32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Errand {
    place: DVec3,
    strength: f32,
    /// Going until then, unless there before.
    give_up_at: u64,
    /// Looking around since, once there.
    looking_since: Option<u64>,
}

impl Curiosity {
    /// A zombie sent to `place` (by the heat map's call), as if it had heard it there.
    pub fn drawn_to(place: DVec3, strength: f32, now: u64, rules: &CuriosityRules) -> Self {
        let mut c = Self::default();
        c.notice(place, strength, now, rules);
        c
    }

    /// Whether it is after a place now.
    pub fn busy(&self) -> bool {
        self.errand.is_some()
    }

    /// The place it is drawn to.
    pub fn place(&self) -> Option<DVec3> {
        self.errand.map(|e| e.place)
    }

    /// Notices something at `place` as strong as `strength`; returns whether it now goes
    /// there. It keeps its errand unless the new one is `switch_factor` times as strong, and
    /// ignores a place it has just looked at unless louder than when it went.
    pub fn notice(
        &mut self,
        place: DVec3,
        strength: f32,
        now: u64,
        rules: &CuriosityRules,
    ) -> bool {
        if let Some(errand) = self.errand.as_mut() {
            if errand.place.distance(place) < SAME_PLACE {
                // The same place again: it keeps going, and has longer to get there.
                if errand.looking_since.is_none() {
                    errand.give_up_at = now + rules.investigate_ticks;
                    errand.strength = errand.strength.max(strength);
                }
                return false;
            }
            if strength < errand.strength * rules.switch_factor {
                return false;
            }
        }
        let looked_at = self.remembered.iter().flatten().any(|r| {
            now < r.until && r.place.distance(place) < SAME_PLACE && strength <= r.strength
        });
        if looked_at {
            return false;
        }
        self.errand = Some(Errand {
            place,
            strength,
            give_up_at: now + rules.investigate_ticks,
            looking_since: None,
        });
        true
    }

    /// Forgets its errand (a player to chase took over).
    pub fn drop_errand(&mut self) {
        self.errand = None;
    }

    /// Where it heads at tick `now`, standing at `pos`: the place, or once there a spot
    /// around it (`glance` draws one from a number in 0..1); `None` when it has no errand
    /// left, which it then remembers.
    pub fn heading(
        &mut self,
        pos: DVec3,
        now: u64,
        rules: &CuriosityRules,
        glance: impl FnOnce(u64) -> f64,
    ) -> Option<DVec3> {
        let errand = self.errand.as_mut()?;
        let flat = |a: DVec3| DVec3::new(a.x, 0.0, a.z);
        if errand.looking_since.is_none() && flat(pos).distance(flat(errand.place)) <= THERE {
            errand.looking_since = Some(now);
        }
        let over = match errand.looking_since {
            Some(since) => now >= since + rules.look_around_ticks,
            None => now >= errand.give_up_at,
        };
        if over {
            let looked = Remembered {
                place: errand.place,
                until: now + rules.memory_ticks,
                strength: errand.strength,
            };
            self.errand = None;
            self.remember(looked);
            return None;
        }
        Some(match errand.looking_since {
            None => errand.place,
            Some(since) => {
                // A new spot every GLANCE_TICKS, the same one in between.
                let turn = (now - since) / GLANCE_TICKS;
                let angle = glance(turn) * std::f64::consts::TAU;
                errand.place + DVec3::new(angle.cos(), 0.0, angle.sin()) * GLANCE_RADIUS
            }
        })
    }

    /// Keeps `looked` in a free slot, else in place of the one forgotten soonest.
    fn remember(&mut self, looked: Remembered) {
        let slot = (0..REMEMBERED)
            .min_by_key(|&i| self.remembered[i].map_or(0, |r| r.until))
            .unwrap_or(0);
        self.remembered[slot] = Some(looked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Grid;
    use valence::prelude::BlockState;

    const RULES: CuriosityRules = CuriosityRules {
        investigate_ticks: 600,
        look_around_ticks: 100,
        memory_ticks: 600,
        switch_factor: 1.5,
    };

    fn dig() -> Voice {
        NoiseKind::Dig.voice(&NoiseConfig::default())
    }

    #[test]
    fn a_noise_fades_to_nothing_at_its_range() {
        let v = dig();
        assert_eq!(heard(v, 0.0, 0.0, 4.0), Some(4.0));
        assert_eq!(heard(v, 8.0, 0.0, 4.0), Some(2.0));
        assert_eq!(heard(v, 15.9, 0.0, 4.0).map(|s| s < 0.1), Some(true));
        assert_eq!(heard(v, 16.0, 0.0, 4.0), None);
        assert_eq!(heard(v, 40.0, 0.0, 4.0), None);
    }

    #[test]
    fn each_wall_takes_its_damping_off_the_range() {
        let v = dig();
        // Two blocks of wall at 4: heard as if 8 blocks farther.
        assert_eq!(heard(v, 4.0, 2.0, 4.0), heard(v, 12.0, 0.0, 4.0));
        assert!(heard(v, 7.9, 2.0, 4.0).is_some());
        assert_eq!(heard(v, 8.0, 2.0, 4.0), None);
        assert_eq!(heard(v, 1.0, 4.0, 4.0), None, "four blocks stop a dig");
        assert_eq!(
            heard(v, 1.0, 4.0, 0.0),
            heard(v, 1.0, 0.0, 0.0),
            "no damping"
        );
        assert_eq!(walls_that_matter(v, 8.0, 4.0), 2.0);
        assert_eq!(walls_that_matter(v, 0.0, 4.0), 4.0);
    }

    #[test]
    fn walls_are_measured_on_the_straight_line_only() {
        let mut g = Grid::new([-20, 0, -20], [20, 20, 20]).floor(0);
        let a = DVec3::new(0.5, 2.5, 0.5);
        let b = DVec3::new(10.5, 2.5, 0.5);
        let near = |x: f64, y: f64| (x - y).abs() < 1e-9;
        assert_eq!(solid_between(&g, a, b, 99.0), 0.0);
        g.fill([3, 1, -5], [4, 8, 5], BlockState::STONE);
        assert!(near(solid_between(&g, a, b, 99.0), 2.0), "a wall two thick");
        assert!(near(solid_between(&g, b, a, 99.0), 2.0), "either way");
        assert!(solid_between(&g, a, b, 1.0) < 2.0, "capped");
        g.fill([7, 1, 2], [7, 8, 5], BlockState::STONE);
        assert!(
            near(solid_between(&g, a, b, 99.0), 2.0),
            "a wall beside the line"
        );
        // At a slant the same wall is a little thicker, never a block per cell it touches.
        let slant = DVec3::new(10.5, 3.7, -2.3);
        let s = solid_between(&g, a, slant, 99.0);
        assert!((2.0..2.3).contains(&s), "{s}");
        // Diagonally up through a hill.
        let c = DVec3::new(10.5, 9.5, 8.5);
        assert!(solid_between(&g, a, c, 99.0) >= 2.0);
        // The ends' own blocks do not count: a zombie in a doorway, a torch on a wall.
        g.set([0, 2, 0], BlockState::STONE);
        g.set([10, 2, 0], BlockState::STONE);
        assert!(near(solid_between(&g, a, b, 99.0), 2.0));
    }

    #[test]
    fn lights_draw_within_their_range() {
        assert_eq!(seen(4.0, 32.0, 0.0), Some(4.0));
        assert_eq!(seen(4.0, 32.0, 16.0), Some(2.0));
        assert_eq!(seen(4.0, 32.0, 32.0), None);
    }

    #[test]
    fn it_goes_looks_around_and_goes_back_to_its_errand() {
        let mut c = Curiosity::default();
        let place = DVec3::new(10.0, 64.0, 0.0);
        assert!(c.notice(place, 3.0, 0, &RULES));
        let far = DVec3::new(0.0, 64.0, 0.0);
        assert_eq!(c.heading(far, 1, &RULES, |_| 0.0), Some(place));
        // There: it looks around, near the place.
        let spot = c.heading(place, 50, &RULES, |_| 0.25).unwrap();
        assert!((spot.distance(place) - GLANCE_RADIUS).abs() < 1e-9);
        assert!(c.heading(place, 149, &RULES, |_| 0.5).is_some());
        assert_eq!(c.heading(place, 150, &RULES, |_| 0.5), None, "done");
        assert!(!c.busy());
    }

    #[test]
    fn it_gives_up_on_a_place_it_cannot_reach() {
        let mut c = Curiosity::default();
        let place = DVec3::new(10.0, 64.0, 0.0);
        c.notice(place, 3.0, 0, &RULES);
        let stuck = DVec3::new(0.0, 64.0, 0.0);
        assert_eq!(c.heading(stuck, 599, &RULES, |_| 0.0), Some(place));
        assert_eq!(c.heading(stuck, 600, &RULES, |_| 0.0), None);
    }

    #[test]
    fn memory_stops_flip_flopping() {
        let mut c = Curiosity::default();
        let a = DVec3::new(10.0, 64.0, 0.0);
        let b = DVec3::new(-10.0, 64.0, 0.0);
        assert!(c.notice(a, 3.0, 0, &RULES));
        assert!(!c.notice(b, 4.0, 1, &RULES), "not loud enough to turn");
        assert!(c.notice(b, 4.5, 2, &RULES), "1.5 times as loud turns it");
        assert_eq!(c.place(), Some(b));
        // Looked at b: the same noise there does not draw it back for memory_ticks...
        c.heading(b, 10, &RULES, |_| 0.0);
        assert_eq!(c.heading(b, 110, &RULES, |_| 0.0), None);
        assert!(!c.notice(b + DVec3::X, 4.5, 200, &RULES));
        // ...but another place does, and after memory_ticks b does again.
        assert!(c.notice(a, 1.0, 201, &RULES));
        c.drop_errand();
        assert!(c.notice(b, 1.0, 710, &RULES));
        // Within memory_ticks, a louder noise there than drew it the first time still does.
        let mut c = Curiosity::default();
        c.notice(b, 4.5, 0, &RULES);
        c.heading(b, 10, &RULES, |_| 0.0);
        assert_eq!(c.heading(b, 110, &RULES, |_| 0.0), None);
        assert!(!c.notice(b, 4.5, 200, &RULES), "no louder");
        assert!(c.notice(b, 5.0, 200, &RULES), "louder");
    }

    #[test]
    fn the_same_place_again_keeps_it_going_longer() {
        let mut c = Curiosity::default();
        let place = DVec3::new(10.0, 64.0, 0.0);
        c.notice(place, 3.0, 0, &RULES);
        assert!(!c.notice(place + DVec3::X, 3.0, 500, &RULES));
        let stuck = DVec3::new(0.0, 64.0, 0.0);
        assert!(c.heading(stuck, 1000, &RULES, |_| 0.0).is_some());
    }
}
