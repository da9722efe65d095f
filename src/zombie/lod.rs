//! Level of detail: a zombie far from every player acts on fewer ticks, and clients hear of it
//! less often. The distance is taken from the point it walks to (its hop goal), so a zombie
//! heading towards players wakes up before it arrives. Zombies are spread over buckets so the
//! slow tiers do not all act on the same tick, and a tier changes only past its boundary plus
//! a hysteresis margin.
//!
//! A crowd round one player is tiered by rank as well as by distance: only its nearest
//! `lod.near_crowd` zombies may be in the near tier and its nearest `lod.full_crowd` in the
//! full tier or nearer; the back rows are in the half tier, sent every 16 ticks and acting on
//! every 8th, as zombies 32 to 64 blocks off. In ordinary play no cap binds; a crowd of
//! hundreds would otherwise fill the player's connection with the moves of zombies hidden
//! behind the front rows, and the tick with their steps.

use std::sync::atomic::{AtomicU32, Ordering};

use bevy_ecs::query::Has;
use rustc_hash::FxHashMap;
use valence::prelude::*;

use super::{HopGoal, Zombie};
use crate::common::body::Dead;
use crate::common::body::Dying;
use crate::config::{Config, LodConfig};
use crate::grid::{flat, may_reach, SpatialGrid};

/// How often a zombie acts and is sent to clients. Only a zombie near a player acts every
/// tick and is sent at vanilla's rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    Near,
    Full,
    Half,
    Quarter,
    Frozen,
}

impl Tier {
    pub const ALL: [Tier; 5] = [
        Tier::Near,
        Tier::Full,
        Tier::Half,
        Tier::Quarter,
        Tier::Frozen,
    ];

    /// Ticks between the turns of a zombie in the full tier.
    pub const FULL_PERIOD: u64 = 2;

    /// Ticks between the turns of a zombie in the half tier.
    pub const HALF_PERIOD: u64 = 8;

    /// Ticks between the turns of a zombie of the slowest tier that acts (the quarter tier):
    /// what every acting zombie must have a turn to notice (a noise) lasts this long.
    pub const SLOWEST_PERIOD: u64 = 16;

    /// Ticks between activations; `None` when frozen. Beyond `lod.near_radius` a zombie acts
    /// on every 2nd tick, beyond `lod.full_radius` on every 8th, beyond `lod.half_radius` on
    /// every 16th: clients are sent it every 4, 16 and 48 ticks (`lod.*_sync_ticks`), so
    /// acting more often would only work out steps nobody sees, and its walk covers the same
    /// ground either way (its strides, not its turns, read the blocks).
    pub fn period(self) -> Option<u64> {
        match self {
            Tier::Near => Some(1),
            Tier::Full => Some(Self::FULL_PERIOD),
            Tier::Half => Some(Self::HALF_PERIOD),
            Tier::Quarter => Some(Self::SLOWEST_PERIOD),
            Tier::Frozen => None,
        }
    }

    /// Ticks between the moves and turns clients are sent (`lod.*_sync_ticks`).
    pub fn sync_period(self, lod: &LodConfig) -> u64 {
        match self {
            Tier::Near => lod.near_sync_ticks,
            Tier::Full => lod.full_sync_ticks,
            Tier::Half => lod.half_sync_ticks,
            Tier::Quarter | Tier::Frozen => lod.quarter_sync_ticks,
        }
    }

    /// The tier for distance `d` to the nearest player, starting from `self`.
    pub fn classify(self, d: f64, lod: &LodConfig) -> Tier {
        let bounds = [
            lod.near_radius,
            lod.full_radius,
            lod.half_radius,
            lod.quarter_radius,
        ];
        let raw = |d: f64| {
            bounds
                .iter()
                .position(|&b| d <= b)
                .map_or(Tier::Frozen, |i| Tier::ALL[i])
        };
        let wanted = raw(d);
        // Move only if the tier still differs with the distance pushed back by the margin.
        let held = if wanted > self {
            raw(d - lod.hysteresis)
        } else {
            raw(d + lod.hysteresis)
        };
        if held == self {
            self
        } else {
            wanted
        }
    }
}

/// A zombie's tiers and stagger bucket.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lod {
    pub tier: Tier,
    /// The tier by distance alone, from which the next classification starts: `tier` is
    /// farther out when the zombie stands past the crowd caps of every player near it.
    by_distance: Tier,
    /// The zombie's stagger bucket, `0..16`: its turn in the slowest tier, and (by the rest
    /// of its division) its turn in the half tier and its tick of a classification round.
    bucket: u64,
    /// The tick its tier last changed, and its last turn before that (none if it did not
    /// act): its first turn in the new tier makes up the ticks since, however the two tiers'
    /// turns fall.
    changed: Option<(u64, u64)>,
}

impl Lod {
    pub fn new(seed: u64) -> Self {
        // Mixed first: seeds made from floats or counters share their low bits, and one
        // bucket for everyone would put all slow zombies on the same tick.
        Self {
            tier: Tier::Near,
            by_distance: Tier::Near,
            bucket: crate::random::mix(seed) % Tier::SLOWEST_PERIOD,
            changed: None,
        }
    }

    /// Moves the zombie to `tier` on `tick`, before anything acts on that tick.
    fn retier(&mut self, tier: Tier, tick: u64) {
        if tier != self.tier {
            self.changed = self.last_turn_before(tick).map(|last| (tick, last));
            self.tier = tier;
        }
    }

    /// The zombie's last turn before `tick`, if it had one in its tier and the one before.
    fn last_turn_before(&self, tick: u64) -> Option<u64> {
        let period = self.tier.period()?;
        let before = tick.checked_sub(1)?;
        let turn = before.checked_sub((before + self.bucket) % period);
        match self.changed {
            // No turn yet in this tier: the last was in the one before.
            Some((at, last)) if turn.is_none_or(|turn| turn < at) => Some(last),
            _ => turn,
        }
    }

    /// Whether a crowd put the zombie in a farther tier than its distance.
    pub fn crowded(&self) -> bool {
        self.tier > self.by_distance
    }

    /// Whether clients are told of the zombie's moves on `tick` (see [`Tier::sync_period`]):
    /// on its first turn since one of its sync ticks, so a period that is not a multiple of
    /// the tier's turns still averages out to it.
    pub fn syncs(&self, tick: u64, lod: &LodConfig) -> bool {
        (tick + self.bucket) % self.tier.sync_period(lod) < self.steps(tick)
    }

    /// Ticks to simulate on `tick`, the ticks since its last turn: 0 when the zombie does not
    /// act on it.
    pub fn steps(&self, tick: u64) -> u64 {
        match self.tier.period() {
            Some(period) if (tick + self.bucket).is_multiple_of(period) => self
                .last_turn_before(tick)
                .map_or(period, |last| tick - last),
            _ => 0,
        }
    }
}

/// Ticks between two classifications of one zombie: a round, over which every zombie is
/// classified once and counted in the crowds of the players near it.
const ROUND_TICKS: u64 = 8;

/// Zombies counted round one player by whole blocks of distance, out to the full tier's
/// reach; counted from every core at once.
#[derive(Debug, Default)]
struct CrowdCount(Vec<AtomicU32>);

impl CrowdCount {
    /// The count with room for every distance up to `reach`.
    fn reaching(mut self, reach: f64) -> Self {
        let blocks = reach as usize + 1;
        if self.0.len() < blocks {
            self.0.resize_with(blocks, AtomicU32::default);
        }
        self
    }

    /// Counts a zombie `d` blocks off, within the reach the count was made for.
    fn add(&self, d: f64) {
        if let Some(n) = self.0.get(d as usize) {
            n.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The distance within which at most `cap` of the counted zombies stand: the near edge
    /// of the block that holds the first one past the cap, or infinity if there is none.
    fn within(&self, cap: u32) -> f64 {
        let mut seen = 0;
        for (block, n) in self.0.iter().enumerate() {
            seen += n.load(Ordering::Relaxed);
            if seen > cap {
                return block as f64;
            }
        }
        f64::INFINITY
    }
}

/// How near to one player a zombie must stand to be in the near tier (its nearest
/// `lod.near_crowd` zombies) and in the full tier or nearer (its nearest `lod.full_crowd`),
/// from the last round's count. A zombie already in a tier keeps it up to the distance of an
/// eighth more, so one standing at a cap does not change tiers every round.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Crowd {
    near: [f64; 2],
    full: [f64; 2],
}

impl Crowd {
    /// Nobody counted yet (a player who just joined): no cap binds.
    const OPEN: Crowd = Crowd {
        near: [f64::INFINITY; 2],
        full: [f64::INFINITY; 2],
    };

    fn of(count: &CrowdCount, lod: &LodConfig) -> Crowd {
        let within = |cap: u32| [count.within(cap), count.within(cap + cap / 8)];
        Crowd {
            near: within(lod.near_crowd),
            full: within(lod.full_crowd),
        }
    }

    /// The nearest tier a zombie `d` blocks from this player may be in, if it is in `now`.
    fn tier(&self, d: f64, now: Tier) -> Tier {
        let held = |bounds: [f64; 2], tier| bounds[usize::from(now <= tier)];
        if d < held(self.near, Tier::Near) {
            Tier::Near
        } else if d < held(self.full, Tier::Full) {
            Tier::Full
        } else {
            Tier::Half
        }
    }
}

/// Each player's crowd: this round's count so far, and what the last round's gave.
#[derive(Default)]
pub(super) struct Crowds {
    counting: FxHashMap<Entity, CrowdCount>,
    last: FxHashMap<Entity, Crowd>,
}

impl Crowds {
    fn close_round(&mut self, lod: &LodConfig) {
        self.last = self
            .counting
            .drain()
            .map(|(player, count)| (player, Crowd::of(&count, lod)))
            .collect();
    }
}

/// Re-tiers each zombie once a round, an eighth of them on each tick, and counts it in the
/// crowd of each player within reach of the full tier. Each zombie's tier is its own, so the
/// crowd is shared among the cores.
pub(super) fn classify_zombies(
    mut zombies: Query<(&mut Lod, &Position, &HopGoal, Has<Dying>), With<Zombie>>,
    players: Query<(Entity, &Position), (With<Client>, Without<Dead>, Without<Zombie>)>,
    mut crowds: Local<Crowds>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let tick = server.current_tick() as u64;
    let lod_config = &config.lod;
    if tick.is_multiple_of(ROUND_TICKS) {
        crowds.close_round(lod_config);
    }
    // Past this distance from every player a zombie is in the half tier or beyond anyway.
    let reach = lod_config.full_radius + lod_config.hysteresis;
    // Farther than this from every player a zombie is frozen, however far: it looks at the
    // players filed near it, not at every player on the server.
    let decides = lod_config.quarter_radius + lod_config.hysteresis;
    let mut filed = SpatialGrid::new(decides);
    let mut around: Vec<(Entity, DVec3, Crowd, CrowdCount)> = Vec::new();
    for (player, pos) in &players {
        let crowd = crowds.last.get(&player).copied().unwrap_or(Crowd::OPEN);
        let count = crowds.counting.remove(&player).unwrap_or_default();
        filed.insert(around.len(), flat(pos.0));
        around.push((player, pos.0, crowd, count.reaching(reach)));
    }
    zombies
        .par_iter_mut()
        .for_each_mut(|(mut lod, pos, goal, dying)| {
            if !(tick + lod.bucket).is_multiple_of(ROUND_TICKS) {
                return;
            }
            let from = goal.0.unwrap_or(pos.0);
            let mut crowded = Tier::Half;
            // Squared distances first: of the players filed round a zombie most are out of
            // reach, and of those only the nearest one's distance is wanted.
            let mut nearest_squared = f64::INFINITY;
            for &(i, filed_at) in filed.filed_round(flat(from), decides) {
                if filed_at.distance_squared(flat(from)) > decides * decides {
                    continue;
                }
                let (_, at, crowd, count) = &around[i];
                let squared = at.distance_squared(from);
                nearest_squared = nearest_squared.min(squared);
                if !may_reach(squared, reach) {
                    continue;
                }
                let d = squared.sqrt();
                if d <= reach {
                    // The dying take nobody's place in the crowd.
                    if !dying {
                        count.add(d);
                    }
                    crowded = crowded.min(crowd.tier(d, lod.tier));
                }
            }
            let by_distance = lod.by_distance.classify(nearest_squared.sqrt(), lod_config);
            let tier = by_distance.max(crowded);
            if (tier, by_distance) != (lod.tier, lod.by_distance) {
                lod.retier(tier, tick);
                lod.by_distance = by_distance;
            }
        });
    crowds.counting.extend(
        around
            .into_iter()
            .map(|(player, _, _, count)| (player, count)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_by_distance_with_hysteresis() {
        let lod = LodConfig::default();
        // (tier now, distance, tier after): each boundary from both sides, once inside the
        // 4-block margin (the tier holds) and once past it.
        let cases = [
            (Tier::Near, 18.0, Tier::Near),
            (Tier::Near, 21.0, Tier::Full),
            (Tier::Full, 13.0, Tier::Full),
            (Tier::Full, 10.0, Tier::Near),
            (Tier::Full, 34.0, Tier::Full),
            (Tier::Full, 37.0, Tier::Half),
            (Tier::Half, 30.0, Tier::Half),
            (Tier::Half, 27.0, Tier::Full),
            (Tier::Full, 1000.0, Tier::Frozen),
            (Tier::Frozen, f64::INFINITY, Tier::Frozen),
            (Tier::Frozen, 100.0, Tier::Quarter),
        ];
        for (from, d, to) in cases {
            assert_eq!(from.classify(d, &lod), to, "{from:?} at {d}");
        }
    }

    #[test]
    fn buckets_stagger_and_steps_cover_every_tick() {
        let mut a = Lod::new(0);
        // One whose turn in the quarter tier is another.
        let mut b = (1..).map(Lod::new).find(|b| b.bucket != a.bucket).unwrap();
        a.tier = Tier::Quarter;
        b.tier = Tier::Quarter;
        let total: u64 = (0..48).map(|t| a.steps(t)).sum();
        assert_eq!(
            total, 48,
            "a quarter-rate zombie simulates every tick in bursts of 16"
        );
        let same = (0..48)
            .filter(|&t| a.steps(t) > 0 && b.steps(t) > 0)
            .count();
        assert_eq!(same, 0, "different buckets act on different ticks");
        a.tier = Tier::Frozen;
        assert!((0..40).all(|t| a.steps(t) == 0));
    }

    #[test]
    fn a_zombie_changing_tiers_simulates_every_tick_once() {
        let tiers = [
            Tier::Half,
            Tier::Near,
            Tier::Half,
            Tier::Quarter,
            Tier::Full,
            Tier::Quarter,
            Tier::Quarter,
            Tier::Half,
            Tier::Frozen,
            Tier::Half,
        ];
        for seed in 0..32 {
            let mut lod = Lod::new(seed);
            let mut last_turn = None;
            for tick in 0..400u64 {
                // Classification comes first on its tick, as in the schedule.
                if (tick + lod.bucket).is_multiple_of(ROUND_TICKS) {
                    lod.retier(tiers[(tick / 8) as usize % tiers.len()], tick);
                    if lod.tier == Tier::Frozen {
                        last_turn = None;
                    }
                }
                let steps = lod.steps(tick);
                if steps > 0 {
                    if let Some(last) = last_turn {
                        assert_eq!(
                            tick - steps,
                            last,
                            "seed {seed}, tick {tick}, {:?}",
                            lod.tier
                        );
                    }
                    last_turn = Some(tick);
                }
            }
        }
    }

    #[test]
    fn updates_fall_on_ticks_the_zombie_acts_at_the_configured_rate() {
        // The defaults, multiples of each tier's turns, and periods that are not (an update on
        // the first turn after each sync tick).
        let odd = LodConfig {
            near_sync_ticks: 2,
            full_sync_ticks: 3,
            half_sync_ticks: 12,
            quarter_sync_ticks: 40,
            ..LodConfig::default()
        };
        for config in [LodConfig::default(), odd] {
            for bucket_seed in 0..16 {
                let mut lod = Lod::new(bucket_seed);
                for tier in [Tier::Near, Tier::Full, Tier::Half, Tier::Quarter] {
                    lod.tier = tier;
                    let syncs: Vec<u64> = (0..2400).filter(|&t| lod.syncs(t, &config)).collect();
                    assert!(syncs.iter().all(|&t| lod.steps(t) > 0), "{tier:?}");
                    let every = tier.sync_period(&config);
                    assert!(
                        syncs.len().abs_diff(2400 / every as usize) <= 1,
                        "{tier:?}: {} updates, one every {every} ticks expected",
                        syncs.len()
                    );
                    let gaps = syncs.windows(2).map(|w| w[1] - w[0]);
                    let period = tier.period().unwrap();
                    assert!(gaps.into_iter().all(|g| g < every + period), "{tier:?}");
                }
            }
        }
    }

    /// Two zombies in each of the first `blocks` blocks of distance, and the crowd they make
    /// under caps `near` and `full`.
    fn two_a_block(blocks: usize, near: u32, full: u32) -> (Vec<f64>, Crowd) {
        let distances: Vec<f64> = (0..2 * blocks).map(|i| 0.25 + i as f64 * 0.5).collect();
        let count = CrowdCount::default().reaching(64.0);
        for &d in &distances {
            count.add(d);
        }
        let lod = LodConfig {
            near_crowd: near,
            full_crowd: full,
            ..LodConfig::default()
        };
        (distances, Crowd::of(&count, &lod))
    }

    #[test]
    fn a_crowd_is_tiered_by_rank_past_its_caps() {
        // The cap falls inside a block, whose two are then both put farther out, so the caps
        // are never passed.
        let (distances, crowd) = two_a_block(20, 5, 12);
        let in_tier = |tier| {
            distances
                .iter()
                .filter(|&&d| crowd.tier(d, Tier::Half) == tier)
                .count()
        };
        assert_eq!((in_tier(Tier::Near), in_tier(Tier::Full)), (4, 8));
        assert_eq!(in_tier(Tier::Half), 28);
        // The nearest are the ones kept near.
        assert_eq!(crowd.tier(1.9, Tier::Half), Tier::Near);
        assert_eq!(crowd.tier(2.0, Tier::Half), Tier::Full);
        assert_eq!(crowd.tier(6.0, Tier::Half), Tier::Half);
    }

    #[test]
    fn no_cap_binds_below_it_nor_before_anyone_is_counted() {
        let lod = LodConfig::default();
        let count = CrowdCount::default().reaching(64.0);
        for i in 0..lod.near_crowd {
            count.add(i as f64 * 0.3);
        }
        let crowd = Crowd::of(&count, &lod);
        assert_eq!(crowd, Crowd::OPEN);
        assert_eq!(crowd.tier(30.0, Tier::Half), Tier::Near);
        // One more up close, and the near tier stops short of the farthest block of them
        // (18 to 19 blocks off); the full cap is far off still.
        count.add(0.0);
        let crowd = Crowd::of(&count, &lod);
        assert_eq!(crowd.tier(17.9, Tier::Full), Tier::Near);
        assert_eq!(crowd.tier(18.0, Tier::Full), Tier::Full);
        assert_eq!(crowd.tier(30.0, Tier::Half), Tier::Full);
    }

    #[test]
    fn a_zombie_at_a_cap_keeps_its_tier_within_an_eighth_more() {
        // The 17th and 18th stand 8 blocks off, past the near cap but within an eighth more
        // (18).
        let (_, crowd) = two_a_block(40, 16, 64);
        assert_eq!(crowd.tier(8.5, Tier::Full), Tier::Full, "coming in");
        assert_eq!(crowd.tier(8.5, Tier::Near), Tier::Near, "held");
        assert_eq!(crowd.tier(9.0, Tier::Near), Tier::Full, "past the margin");
        // The same at the full cap (32 blocks; 36 with its margin of 8 zombies).
        assert_eq!(crowd.tier(33.0, Tier::Half), Tier::Half);
        assert_eq!(crowd.tier(33.0, Tier::Full), Tier::Full);
        assert_eq!(crowd.tier(36.0, Tier::Near), Tier::Half);
    }

    #[test]
    fn seeds_sharing_low_bits_still_spread_over_buckets() {
        let mut counts = [0; Tier::SLOWEST_PERIOD as usize];
        for i in 0..4000u64 {
            counts[Lod::new(i << 11).bucket as usize] += 1;
        }
        assert!(counts.iter().all(|&n| n > 200), "{counts:?}");
    }
}
