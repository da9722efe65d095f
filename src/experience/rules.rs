//! Experience as vanilla 1.20.1 counts it: the points a level costs, how points fill the bar,
//! how a drop splits into orbs, what a zombie and a dead player give, and how an orb is drawn
//! to a player. Plain functions, unit-tested without the ECS.

use rand::Rng;
use valence::math::DVec3;

use crate::items::rules::Body;

/// An orb: a 0.5-block box, 0.03 gravity (`EntityType.EXPERIENCE_ORB`, `ExperienceOrb.tick`).
pub const ORB: Body = Body {
    gravity: 0.03,
    half_width: 0.25,
    height: 0.5,
};
/// Ticks an orb lasts (`ExperienceOrb.LIFETIME`).
pub const LIFETIME: u32 = 6000;
/// An orb looks for the nearest player this often, and follows one this close
/// (`ExperienceOrb.scanForEntities`).
pub const SCAN_EVERY: u32 = 20;
pub const FOLLOW_RANGE: f64 = 8.0;
/// Ticks a player waits between two orbs (`Player.takeXpDelay`).
pub const TAKE_DELAY: u32 = 2;
/// A zombie's reward (`Zombie.xpReward`, the `Monster` default of 5).
const ZOMBIE_REWARD: u32 = 5;

/// Levels beyond this are not kept: the points to the next would overflow.
pub const MAX_LEVEL: u32 = 100_000_000;

/// Points from `level` to the next (`Player.getXpNeededForNextLevel`).
pub fn to_next_level(level: u32) -> u32 {
    let level = level.min(MAX_LEVEL);
    match level {
        30.. => 112 + (level - 30) * 9,
        15.. => 37 + (level - 15) * 5,
        _ => 7 + level * 2,
    }
}

/// A player's experience: the level, how far the bar is to the next (0 to 1) and every point
/// gathered since the last death, as vanilla keeps them (`XpLevel`, `XpP`, `XpTotal`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Levels {
    pub level: u32,
    pub progress: f32,
    pub total: u32,
}

impl Levels {
    /// Adds `points` as `Player.giveExperiencePoints` does, in f32 as vanilla. Returns the
    /// levels gained.
    pub fn add(&mut self, points: u32) -> u32 {
        let before = self.level;
        self.progress += points as f32 / to_next_level(self.level) as f32;
        self.total = self.total.saturating_add(points).min(i32::MAX as u32);
        while self.progress >= 1.0 {
            self.progress = (self.progress - 1.0) * to_next_level(self.level) as f32;
            self.level += 1;
            self.progress /= to_next_level(self.level) as f32;
        }
        self.level - before
    }

    /// Adds `points`, or takes them away when negative, as `Player.giveExperiencePoints`
    /// does for `xp add`: the bar runs down through the levels below, and stops at nothing.
    pub fn give_points(&mut self, points: i32) {
        if points >= 0 {
            self.add(points as u32);
            return;
        }
        let needed = |level| to_next_level(level) as f32;
        self.progress += points as f32 / needed(self.level);
        self.total = (self.total as i64 + points as i64).clamp(0, i32::MAX as i64) as u32;
        while self.progress < 0.0 {
            let left = self.progress * needed(self.level);
            if self.level > 0 {
                self.level -= 1;
                self.progress = 1.0 + left / needed(self.level);
            } else {
                self.progress = 0.0;
            }
        }
    }

    /// Adds `levels`, or takes them away, as `Player.giveExperienceLevels`: at none left the
    /// bar and the total are emptied too.
    pub fn give_levels(&mut self, levels: i32) {
        let level = self.level as i64 + levels as i64;
        if level < 0 {
            *self = Levels::default();
        } else {
            self.level = (level as u32).min(MAX_LEVEL);
        }
    }

    /// Sets the points into the current level (`Player.setExperiencePoints`), which must be
    /// fewer than the level takes; false when they are not.
    pub fn set_points(&mut self, points: u32) -> bool {
        let needed = to_next_level(self.level);
        if points >= needed {
            return false;
        }
        let needed = needed as f32;
        self.progress = (points as f32 / needed).clamp(0.0, (needed - 1.0) / needed);
        true
    }

    /// The points gathered into the current level, as `xp query` tells them.
    pub fn points(&self) -> u32 {
        (self.progress * to_next_level(self.level) as f32) as u32
    }

    /// What a player drops on dying (`Player.getExperienceReward`).
    pub fn death_drop(&self) -> u32 {
        self.level.saturating_mul(7).min(100)
    }
}

/// The level-up chime for going from level `from` to `to`: on reaching every fifth level,
/// louder up to level 30 (`Player.giveExperienceLevels`, called once a level).
pub fn chime(from: u32, to: u32) -> Option<f32> {
    let fifth = (from + 1..=to).rev().find(|l| l.is_multiple_of(5))?;
    Some((fifth as f32 / 30.0).min(1.0) * 0.75)
}

/// The largest orb size that fits in `amount` (`ExperienceOrb.getExperienceValue`).
fn orb_size(amount: u32) -> u32 {
    const SIZES: [u32; 10] = [2477, 1237, 617, 307, 149, 73, 37, 17, 7, 3];
    SIZES.into_iter().find(|&s| amount >= s).unwrap_or(1)
}

/// `amount` points as the orbs vanilla spawns for them, largest first (`ExperienceOrb.award`).
pub fn orbs(mut amount: u32) -> Vec<u32> {
    let mut out = Vec::new();
    while amount > 0 {
        let size = orb_size(amount);
        amount -= size;
        out.push(size);
    }
    out
}

/// A zombie's reward when a player killed it: 5, and 1 to 3 more for each thing it wore or
/// held (`Mob.getExperienceReward`).
pub fn zombie_reward(worn: usize, rng: &mut impl Rng) -> u32 {
    ZOMBIE_REWARD + (0..worn).map(|_| 1 + rng.gen_range(0..3)).sum::<u32>()
}

/// A new orb's toss (`ExperienceOrb` constructor), blocks a tick.
pub fn toss(rng: &mut impl Rng) -> DVec3 {
    let mut side = || (rng.gen::<f64>() * 0.2 - 0.1) * 2.0;
    let (x, z) = (side(), side());
    DVec3::new(x, rng.gen::<f64>() * 0.2 * 2.0, z)
}

/// The pull on an orb at `orb` towards a player at `feet` (`ExperienceOrb.tick`): aimed at
/// half the player's eye height, stronger the nearer, nothing at 8 blocks.
pub fn pull(orb: DVec3, feet: DVec3, eye_height: f64) -> DVec3 {
    let to = feet + DVec3::new(0.0, eye_height / 2.0, 0.0) - orb;
    let d2 = to.length_squared();
    if d2 >= FOLLOW_RANGE * FOLLOW_RANGE || d2 == 0.0 {
        return DVec3::ZERO;
    }
    let near = 1.0 - d2.sqrt() / FOLLOW_RANGE;
    to.normalize() * near * near * 0.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xp_commands_move_the_bar_as_vanillas_do() {
        let mut levels = Levels::default();
        levels.give_points(10);
        assert_eq!((levels.level, levels.points(), levels.total), (1, 3, 10));
        levels.give_points(-5);
        assert_eq!((levels.level, levels.points(), levels.total), (0, 5, 5));
        levels.give_points(-100);
        assert_eq!((levels.level, levels.points(), levels.total), (0, 0, 0));
        levels.give_levels(30);
        assert_eq!(levels.level, 30);
        assert!(levels.set_points(111), "level 30 takes 112");
        assert_eq!(levels.points(), 111);
        assert!(!levels.set_points(112));
        levels.give_levels(-31);
        assert_eq!(levels, Levels::default(), "below nothing: emptied");
    }
    use crate::random::generator;

    #[test]
    fn levels_cost_what_the_wiki_says() {
        // minecraft.wiki, Experience: 7 points to level 1, 352 to level 16, 1395 to level 30.
        assert_eq!(to_next_level(0), 7);
        assert_eq!(to_next_level(14), 35);
        assert_eq!(to_next_level(15), 37);
        assert_eq!(to_next_level(29), 107);
        assert_eq!(to_next_level(30), 112);
        assert_eq!(to_next_level(31), 121);
        let to = |level: u32| (0..level).map(to_next_level).sum::<u32>();
        assert_eq!((to(1), to(16), to(30)), (7, 352, 1395));
        let mut xp = Levels::default();
        assert_eq!(xp.add(1395), 30);
        assert_eq!(xp.level, 30);
        assert!(xp.progress.abs() < 1e-3, "{xp:?}");
        assert_eq!(xp.total, 1395);
    }

    #[test]
    fn points_fill_the_bar_and_carry_over() {
        let mut xp = Levels::default();
        assert_eq!(xp.add(5), 0);
        assert!((xp.progress - 5.0 / 7.0).abs() < 1e-6);
        // 5/7 + 5/7 is a level and 3 points of the next level's 9.
        assert_eq!(xp.add(5), 1);
        assert_eq!(xp.level, 1);
        assert!((xp.progress - 3.0 / 9.0).abs() < 1e-5, "{xp:?}");
        assert_eq!(xp.total, 10);
    }

    #[test]
    fn a_dead_player_drops_seven_a_level_up_to_100() {
        let at = |level| {
            Levels {
                level,
                ..Default::default()
            }
            .death_drop()
        };
        assert_eq!(
            (at(0), at(3), at(14), at(15), at(40)),
            (0, 21, 98, 100, 100)
        );
    }

    #[test]
    fn drops_split_into_vanillas_orb_sizes() {
        assert_eq!(orbs(5), [3, 1, 1]);
        assert_eq!(orbs(11), [7, 3, 1]);
        assert_eq!(orbs(100), [73, 17, 7, 3]);
        assert_eq!(orbs(0), Vec::<u32>::new());
        assert_eq!(orbs(2477), [2477]);
    }

    #[test]
    fn a_zombie_gives_five_and_more_for_its_gear() {
        let mut rng = generator(1);
        assert_eq!(zombie_reward(0, &mut rng), 5);
        for _ in 0..1000 {
            let r = zombie_reward(5, &mut rng);
            assert!((10..=20).contains(&r), "{r}");
        }
    }

    #[test]
    fn the_chime_rings_every_fifth_level() {
        assert_eq!(chime(3, 4), None);
        assert_eq!(chime(4, 5), Some(5.0 / 30.0 * 0.75));
        assert_eq!(chime(4, 6), Some(5.0 / 30.0 * 0.75), "passed on the way");
        assert_eq!(chime(29, 30), Some(0.75));
        assert_eq!(chime(44, 45), Some(0.75));
        assert_eq!(chime(5, 5), None);
    }

    #[test]
    fn an_orb_is_drawn_harder_the_nearer_it_is() {
        let feet = DVec3::new(0.0, 64.0, 0.0);
        let eyes = 1.62;
        assert_eq!(pull(DVec3::new(8.5, 64.81, 0.0), feet, eyes), DVec3::ZERO);
        let far = pull(DVec3::new(6.0, 64.81, 0.0), feet, eyes);
        let near = pull(DVec3::new(2.0, 64.81, 0.0), feet, eyes);
        assert!(far.x < 0.0 && near.x < far.x, "{far} {near}");
        // At 2 blocks: (1 - 2/8)² × 0.1.
        assert!((near.x + 0.75f64.powi(2) * 0.1).abs() < 1e-9);
    }
}
