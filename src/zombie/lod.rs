//! Level of detail: a zombie far from every player acts on fewer ticks, and clients hear of it
//! less often. The distance is taken from the point it walks to (its hop goal), so a zombie
//! heading towards players wakes up before it arrives. Zombies are spread over buckets so the
//! slow tiers do not all act on the same tick, and a tier changes only past its boundary plus
//! a hysteresis margin.

use valence::prelude::*;

use super::{Chase, Zombie};
use crate::config::{Config, LodConfig};
use crate::player::Dead;

pub struct LodPlugin;

impl Plugin for LodPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            classify_zombies.in_set(super::chase::ZombieSet::Classify),
        );
    }
}

/// How often a zombie acts and is sent to clients. `Near` and `Full` both act every tick;
/// only a zombie near a player is sent at vanilla's rate.
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

    /// Ticks between activations; `None` when frozen.
    pub fn period(self) -> Option<u64> {
        match self {
            Tier::Near | Tier::Full => Some(1),
            Tier::Half => Some(2),
            Tier::Quarter => Some(4),
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

/// A zombie's activation tier and stagger bucket.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lod {
    pub tier: Tier,
    bucket: u64,
}

impl Lod {
    pub fn new(seed: u64) -> Self {
        // Mixed first: seeds made from floats or counters share their low bits, and one
        // bucket for everyone would put all slow zombies on the same tick.
        Self {
            tier: Tier::Near,
            bucket: crate::random::mix(seed) % 4,
        }
    }

    /// The zombie's stagger bucket, `0..4`.
    pub fn bucket(&self) -> u64 {
        self.bucket
    }

    /// Whether clients are told of the zombie's moves on `tick` (see [`Tier::sync_period`]).
    pub fn syncs(&self, tick: u64, lod: &LodConfig) -> bool {
        (tick + self.bucket).is_multiple_of(self.tier.sync_period(lod))
    }

    /// Ticks to simulate on `tick`: 0 when the zombie does not act on it.
    pub fn steps(&self, tick: u64) -> u64 {
        match self.tier.period() {
            Some(period) if (tick + self.bucket).is_multiple_of(period) => period,
            _ => 0,
        }
    }
}

/// Re-tiers one zombie in eight each tick.
fn classify_zombies(
    mut zombies: Query<(&mut Lod, &Position, &Chase), With<Zombie>>,
    players: Query<&Position, (With<Client>, Without<Dead>, Without<Zombie>)>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let tick = server.current_tick() as u64;
    let players: Vec<DVec3> = players.iter().map(|p| p.0).collect();
    for (mut lod, pos, chase) in &mut zombies {
        if !(tick + lod.bucket).is_multiple_of(8) {
            continue;
        }
        let from = chase.goal.unwrap_or(pos.0);
        let nearest = players
            .iter()
            .map(|p| p.distance(from))
            .fold(f64::INFINITY, f64::min);
        let tier = lod.tier.classify(nearest, &config.lod);
        if tier != lod.tier {
            lod.tier = tier;
        }
    }
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
        let mut b = Lod::new(1);
        a.tier = Tier::Quarter;
        b.tier = Tier::Quarter;
        let total: u64 = (0..40).map(|t| a.steps(t)).sum();
        assert_eq!(
            total, 40,
            "a quarter-rate zombie simulates every tick in bursts of 4"
        );
        let same = (0..40)
            .filter(|&t| a.steps(t) > 0 && b.steps(t) > 0)
            .count();
        assert_eq!(same, 0, "different buckets act on different ticks");
        a.tier = Tier::Frozen;
        assert!((0..40).all(|t| a.steps(t) == 0));
    }

    #[test]
    fn updates_fall_on_ticks_the_zombie_acts() {
        let config = LodConfig::default();
        for bucket_seed in 0..16 {
            let mut lod = Lod::new(bucket_seed);
            for tier in [Tier::Near, Tier::Full, Tier::Half, Tier::Quarter] {
                lod.tier = tier;
                let syncs: Vec<u64> = (0..1200).filter(|&t| lod.syncs(t, &config)).collect();
                assert!(syncs.iter().all(|&t| lod.steps(t) > 0), "{tier:?}");
                assert_eq!(
                    syncs.len() as u64,
                    1200 / tier.sync_period(&config),
                    "{tier:?}"
                );
            }
        }
    }

    #[test]
    fn seeds_sharing_low_bits_still_spread_over_buckets() {
        let mut counts = [0; 4];
        for i in 0..4000u64 {
            counts[Lod::new(i << 11).bucket() as usize] += 1;
        }
        assert!(counts.iter().all(|&n| n > 800), "{counts:?}");
    }
}
