//! What a new zombie wears and holds beyond its type's helmet, drawn as vanilla 1.20.1 draws a
//! zombie's equipment at spawn (`Mob.populateDefaultEquipmentSlots` and
//! `Zombie.populateDefaultEquipmentSlots`): armour with a chance that grows with the regional
//! difficulty, boots first, and now and then an iron sword or shovel. A zombie's armour softens
//! the blows it takes, its weapon hardens the blows it gives, and both may drop when a player
//! kills it.

use rand::Rng;
use valence::prelude::*;

use super::{Equipment, Helmet};
use crate::config::{ArmourTier, Config, Difficulty};
use crate::random::generator;
use crate::time::WorldClock;

/// Vanilla's chance that a mob drops a piece it wears (`Mob.DEFAULT_EQUIPMENT_DROP_CHANCE`).
pub const EQUIPMENT_DROP_CHANCE: f32 = 0.085;

/// The weapons vanilla hands a zombie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZombieWeapon {
    IronSword,
    IronShovel,
}

impl ZombieWeapon {
    pub const ALL: [ZombieWeapon; 2] = [ZombieWeapon::IronSword, ZombieWeapon::IronShovel];

    pub fn item(self) -> ItemKind {
        match self {
            ZombieWeapon::IronSword => ItemKind::IronSword,
            ZombieWeapon::IronShovel => ItemKind::IronShovel,
        }
    }

    /// The weapon's attack damage modifier, added to the zombie's own (`SwordItem` 3 + iron's
    /// 2, `ShovelItem` 1.5 + 2).
    pub fn damage_bonus(self) -> f32 {
        match self {
            ZombieWeapon::IronSword => 5.0,
            ZombieWeapon::IronShovel => 3.5,
        }
    }

    pub fn of(item: ItemKind) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.item() == item)
    }
}

/// A zombie's own armour points (vanilla's zombie `ARMOR` attribute).
pub const NATURAL_ARMOUR: f32 = 2.0;

/// Vanilla's regional difficulty's "special multiplier", 0 to 1
/// (`DifficultyInstance.calculateDifficulty` and `getSpecialMultiplier`), at vanilla day time
/// `day_time`. horde keeps no chunk's inhabited time, so that term is 0 everywhere, as in a
/// chunk nobody has lived in.
pub fn special_multiplier(difficulty: Difficulty, day_time: i64) -> f32 {
    // `DimensionType.MOON_BRIGHTNESS_PER_PHASE`, by moon phase (day % 8).
    const MOON: [f32; 8] = [1.0, 0.75, 0.5, 0.25, 0.0, 0.25, 0.5, 0.75];
    let base = match difficulty {
        Difficulty::Easy => 1.0,
        Difficulty::Normal => 2.0,
        Difficulty::Hard => 3.0,
    };
    let time = ((day_time as f32 - 72_000.0) / 1_440_000.0).clamp(0.0, 1.0) * 0.25;
    let moon = MOON[(day_time.div_euclid(24_000)).rem_euclid(8) as usize];
    let mut local = (moon * 0.25).clamp(0.0, time);
    if difficulty == Difficulty::Easy {
        local *= 0.5;
    }
    let effective = base * (0.75 + time + local);
    ((effective - 2.0) / 2.0).clamp(0.0, 1.0)
}

/// Vanilla's armour materials by the tier a spawn draws (`Mob.getEquipmentForSlot`).
const TIERS: [ArmourTier; 5] = [
    ArmourTier::Leather,
    ArmourTier::Golden,
    ArmourTier::Chainmail,
    ArmourTier::Iron,
    ArmourTier::Diamond,
];

/// Dresses a new zombie: fills the slots `equipment` leaves empty as vanilla's spawn does.
pub fn dress(equipment: &mut Equipment, difficulty: Difficulty, special: f32, rng: &mut impl Rng) {
    let hard = difficulty == Difficulty::Hard;
    if rng.gen::<f32>() < 0.15 * special {
        let mut tier = rng.gen_range(0..2);
        for _ in 0..3 {
            if rng.gen::<f32>() < 0.095 {
                tier += 1;
            }
        }
        let material = TIERS[tier];
        let stop = if hard { 0.1 } else { 0.25 };
        // Feet, legs, chest, head: after the boots each further piece may end the outfit.
        for (n, slot) in [3, 2, 1, 0].into_iter().enumerate() {
            if n > 0 && rng.gen::<f32>() < stop {
                break;
            }
            if slot == 0 {
                equipment.helmet.get_or_insert(Helmet::new(material));
            } else {
                equipment.body[slot - 1].get_or_insert(material);
            }
        }
    }
    if rng.gen::<f32>() < if hard { 0.05 } else { 0.01 } {
        equipment.weapon = Some(if rng.gen_range(0..3) == 0 {
            ZombieWeapon::IronSword
        } else {
            ZombieWeapon::IronShovel
        });
    }
}

/// A zombie just made (not one back from a ghost pack or a save): dressed once, then the
/// marker goes.
#[derive(Component, Debug, Clone, Copy, Default)]
#[component(storage = "SparseSet")] // comes and goes: kept apart, so the row stays put
pub struct Fresh;

/// The draws behind every new zombie's outfit.
#[derive(Resource)]
pub(super) struct GearRng(rand_pcg::Pcg32);

impl GearRng {
    pub(super) fn new(config: &Config) -> Self {
        Self(generator(config.server.seed as u64 ^ 0x6ea7_0f17))
    }
}

pub(super) fn dress_new_zombies(
    mut commands: Commands,
    mut fresh: Query<(Entity, &mut Equipment), With<Fresh>>,
    mut rng: ResMut<GearRng>,
    clock: Res<WorldClock>,
    config: Res<Config>,
) {
    let difficulty = config.server.difficulty;
    let special = special_multiplier(difficulty, clock.vanilla_day_time());
    for (zombie, mut equipment) in &mut fresh {
        let mut dressed = *equipment;
        dress(&mut dressed, difficulty, special, &mut rng.0);
        if dressed != *equipment {
            *equipment = dressed;
        }
        commands.entity(zombie).remove::<Fresh>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regional_difficulty_is_vanillas_without_inhabited_time() {
        // A new world: 0.75 of the difficulty, below 2 on every difficulty but hard.
        assert_eq!(special_multiplier(Difficulty::Normal, 0), 0.0);
        assert_eq!(special_multiplier(Difficulty::Easy, 10_000_000), 0.0);
        assert!((special_multiplier(Difficulty::Hard, 0) - 0.125).abs() < 1e-6);
        // 63 days on, a full moon: hard 3 × (0.75 + 0.25 + 0.25) = 3.75.
        let late = 72_000 + 1_440_000;
        let full_moon = (late / 192_000 + 1) * 192_000;
        assert!((special_multiplier(Difficulty::Hard, full_moon) - 0.875).abs() < 1e-6);
        assert!((special_multiplier(Difficulty::Normal, full_moon) - 0.25).abs() < 1e-6);
        // A new moon adds nothing: 3 × (0.75 + 0.25) = 3.
        assert!((special_multiplier(Difficulty::Hard, full_moon + 4 * 24_000) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn outfits_are_drawn_at_vanillas_rates_boots_first() {
        let mut rng = generator(7);
        let (mut armoured, mut boots, mut helmets, mut weapons, mut swords) = (0, 0, 0, 0, 0);
        let n = 200_000;
        for _ in 0..n {
            let mut e = Equipment::default();
            dress(&mut e, Difficulty::Hard, 1.0, &mut rng);
            if e.body[2].is_some() {
                boots += 1;
            }
            if e.body.iter().any(Option::is_some) || e.helmet.is_some() {
                armoured += 1;
                assert!(e.body[2].is_some(), "every outfit starts with boots: {e:?}");
            }
            if e.helmet.is_some() {
                helmets += 1;
                assert!(e.body.iter().all(Option::is_some), "a helmet comes last");
            }
            if let Some(w) = e.weapon {
                weapons += 1;
                swords += usize::from(w == ZombieWeapon::IronSword);
            }
        }
        let share = |k: usize| k as f64 / n as f64;
        assert!(
            (share(armoured) - 0.15).abs() < 0.005,
            "{}",
            share(armoured)
        );
        assert_eq!(armoured, boots);
        // On hard each piece after the boots goes on with 0.9: a full set 0.15 × 0.9³.
        assert!((share(helmets) - 0.15 * 0.729).abs() < 0.005);
        assert!((share(weapons) - 0.05).abs() < 0.003);
        assert!((swords as f64 / weapons as f64 - 1.0 / 3.0).abs() < 0.03);
    }

    #[test]
    fn a_types_helmet_is_kept_and_a_new_world_on_normal_gives_no_armour() {
        let mut rng = generator(3);
        let iron = Helmet::new(ArmourTier::Iron);
        for _ in 0..10_000 {
            let mut e = Equipment {
                helmet: Some(iron),
                ..Default::default()
            };
            dress(&mut e, Difficulty::Hard, 1.0, &mut rng);
            assert_eq!(e.helmet, Some(iron));
            let mut bare = Equipment::default();
            dress(&mut bare, Difficulty::Normal, 0.0, &mut rng);
            assert!(bare.helmet.is_none() && bare.body.iter().all(Option::is_none));
        }
        assert_eq!(
            ZombieWeapon::of(ItemKind::IronShovel),
            Some(ZombieWeapon::IronShovel)
        );
        assert_eq!(ZombieWeapon::IronSword.damage_bonus(), 5.0);
    }
}
