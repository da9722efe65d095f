//! Vanilla 1.20.1's rules for sleeping (`ServerPlayer.startSleepInBed`, `SleepStatus`), as
//! plain functions.

use valence::math::DVec3;
use valence::prelude::*;

/// Ticks a sleeper must lie before the night may be skipped (`Player.isSleepingLongEnough`).
pub const DEEP_SLEEP_TICKS: u64 = 100;

/// How far from the bed's bottom middle a monster keeps a player awake: 8 blocks each way
/// across, 5 up and down (`startSleepInBed`'s box).
const MONSTER_BOX: DVec3 = DVec3::new(8.0, 5.0, 8.0);

/// How far from a bed block's bottom middle a player may be to lie in it
/// (`isReachableBedBlock`: 3 across, 2 up or down).
const BED_REACH: DVec3 = DVec3::new(3.0, 2.0, 3.0);

/// How high a sleeper lies above the bed block's bottom (`Player.setPosToBed`).
pub const LYING_HEIGHT: f64 = 0.6875;

/// How high the top of a bed is: where a player who wakes or respawns stands.
pub const BED_TOP: f64 = 0.5625;

/// Whether the sky is dark enough to sleep: vanilla refuses while `isDay`, a sky darkening
/// under 4 (by clear weather from 12542 to 23459 in vanilla ticks; a thunderstorm any time).
pub fn may_sleep(sky_darken: i32) -> bool {
    sky_darken >= 4
}

fn bottom_middle(at: BlockPos) -> DVec3 {
    DVec3::new(at.x as f64 + 0.5, at.y as f64, at.z as f64 + 0.5)
}

fn within(a: DVec3, b: DVec3, reach: DVec3) -> bool {
    let d = (a - b).abs();
    d.x <= reach.x && d.y <= reach.y && d.z <= reach.z
}

/// Whether a monster at `monster` keeps a player from sleeping in the bed whose head is at
/// `bed`.
pub fn keeps_awake(bed: BlockPos, monster: DVec3) -> bool {
    within(monster, bottom_middle(bed), MONSTER_BOX)
}

/// Whether a player standing at `feet` reaches the bed block at `at`.
pub fn reaches(feet: DVec3, at: BlockPos) -> bool {
    within(feet, bottom_middle(at), BED_REACH)
}

/// How many of `active` players (all but spectators) must sleep to skip the night at
/// `percentage` (`SleepStatus.sleepersNeeded`): never fewer than one.
pub fn sleepers_needed(active: u32, percentage: u32) -> u32 {
    ((active * percentage).div_ceil(100)).max(1)
}

/// Who counts towards skipping the night: players not spectating (dead ones too, as vanilla
/// counts them), and how many of them lie in bed (`SleepStatus`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SleepCount {
    pub active: u32,
    pub sleeping: u32,
}

/// What everyone is told when the count changes from `was` to `now` while someone sleeps or
/// just got up (`SleepStatus.update`, `ServerLevel.announceSleepStatus`): that the night is
/// being slept through, or how many sleep of how many needed. `None` when nothing changed.
pub fn sleep_status(was: SleepCount, now: SleepCount, percentage: u32) -> Option<SleepStatus> {
    if was == now || (was.sleeping == 0 && now.sleeping == 0) {
        return None;
    }
    let needed = sleepers_needed(now.active, percentage);
    Some(if now.sleeping >= needed {
        SleepStatus::SkippingNight
    } else {
        SleepStatus::Sleeping {
            sleeping: now.sleeping,
            needed,
        }
    })
}

/// The action bar's word on the sleepers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SleepStatus {
    /// "Sleeping through this night" (`sleep.skipping_night`).
    SkippingNight,
    /// "1/2 players sleeping" (`sleep.players_sleeping`).
    Sleeping { sleeping: u32, needed: u32 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sleepers_are_announced_as_they_change_while_anyone_sleeps() {
        let count = |active, sleeping| SleepCount { active, sleeping };
        assert_eq!(sleep_status(count(2, 0), count(2, 0), 100), None);
        assert_eq!(
            sleep_status(count(2, 0), count(3, 0), 100),
            None,
            "nobody sleeps"
        );
        assert_eq!(
            sleep_status(count(2, 0), count(2, 1), 100),
            Some(SleepStatus::Sleeping {
                sleeping: 1,
                needed: 2
            })
        );
        assert_eq!(
            sleep_status(count(2, 1), count(2, 2), 100),
            Some(SleepStatus::SkippingNight)
        );
        assert_eq!(
            sleep_status(count(2, 1), count(2, 0), 100),
            Some(SleepStatus::Sleeping {
                sleeping: 0,
                needed: 2
            }),
            "getting up is announced"
        );
        assert_eq!(
            sleep_status(count(4, 0), count(4, 1), 50),
            Some(SleepStatus::Sleeping {
                sleeping: 1,
                needed: 2
            })
        );
        assert_eq!(
            sleep_status(count(1, 0), count(1, 1), 0),
            Some(SleepStatus::SkippingNight)
        );
    }

    #[test]
    fn sleeping_needs_a_dark_sky() {
        // Vanilla's sky darkening by clear weather: 3 at dusk's start, 4 from 12542.
        let sky = crate::weather::Sky::default();
        assert!(!may_sleep(sky.sky_darken(12_000)));
        assert!(!may_sleep(sky.sky_darken(12_541)));
        assert!(may_sleep(sky.sky_darken(12_542)));
        assert!(may_sleep(sky.sky_darken(18_000)));
        assert!(may_sleep(sky.sky_darken(23_459)));
        assert!(!may_sleep(sky.sky_darken(23_460)));
    }

    #[test]
    fn monsters_within_eight_across_and_five_up_keep_a_player_awake() {
        let bed = BlockPos::new(10, 64, 10);
        assert!(keeps_awake(bed, DVec3::new(18.5, 64.0, 10.5)));
        assert!(!keeps_awake(bed, DVec3::new(18.6, 64.0, 10.5)));
        assert!(keeps_awake(bed, DVec3::new(10.5, 59.0, 2.5)));
        assert!(!keeps_awake(bed, DVec3::new(10.5, 58.9, 10.5)));
        assert!(reaches(DVec3::new(13.5, 66.0, 10.5), bed));
        assert!(!reaches(DVec3::new(13.6, 64.0, 10.5), bed));
    }

    #[test]
    fn the_share_of_sleepers_rounds_up_and_is_never_none() {
        assert_eq!(sleepers_needed(1, 100), 1);
        assert_eq!(sleepers_needed(3, 100), 3);
        assert_eq!(sleepers_needed(3, 50), 2);
        assert_eq!(sleepers_needed(4, 50), 2);
        assert_eq!(sleepers_needed(4, 0), 1);
        assert_eq!(sleepers_needed(0, 100), 1);
    }
}
