//! The rules of a blow, shared by players and zombies, as vanilla 1.20.1 has them: what a
//! weapon hits for and how fast it recovers (`Tiers`, `SwordItem`, `DiggerItem`), the 1.9
//! attack cooldown and critical hits (`Player.attack`), knockback (`LivingEntity.knockback`),
//! the enchantments that change a blow (`EnchantmentHelper`) and the hurt frames
//! (`LivingEntity.hurt`'s `invulnerableTime`). Plain functions; the systems that use them are
//! in `player` and `zombie::attack`.

use valence::math::DVec3;
use valence::nbt::{Compound, List, Value};
use valence::{ItemKind, ItemStack};

/// A player's bare hand: 1 damage, 4 attacks a second (the player's base attributes).
const HAND: (f32, f32) = (1.0, 4.0);

/// A player's attack damage and attack speed (attacks a second) with `item` in hand: the base
/// attributes with the item's modifiers (minecraft.wiki, Damage and Attack speed).
pub fn weapon(item: ItemKind) -> (f32, f32) {
    use ItemKind::*;
    match item {
        WoodenSword | GoldenSword => (4.0, 1.6),
        StoneSword => (5.0, 1.6),
        IronSword => (6.0, 1.6),
        DiamondSword => (7.0, 1.6),
        NetheriteSword => (8.0, 1.6),
        WoodenAxe => (7.0, 0.8),
        StoneAxe => (9.0, 0.8),
        IronAxe => (9.0, 0.9),
        GoldenAxe => (7.0, 1.0),
        DiamondAxe => (9.0, 1.0),
        NetheriteAxe => (10.0, 1.0),
        WoodenPickaxe | GoldenPickaxe => (2.0, 1.2),
        StonePickaxe => (3.0, 1.2),
        IronPickaxe => (4.0, 1.2),
        DiamondPickaxe => (5.0, 1.2),
        NetheritePickaxe => (6.0, 1.2),
        WoodenShovel | GoldenShovel => (2.5, 1.0),
        StoneShovel => (3.5, 1.0),
        IronShovel => (4.5, 1.0),
        DiamondShovel => (5.5, 1.0),
        NetheriteShovel => (6.5, 1.0),
        WoodenHoe | GoldenHoe => (1.0, 1.0),
        StoneHoe => (1.0, 2.0),
        IronHoe => (1.0, 3.0),
        DiamondHoe | NetheriteHoe => (1.0, 4.0),
        Trident => (9.0, 1.1),
        _ => HAND,
    }
}

/// How charged a player's next blow is, 0 to 1, `ticks` after the last one or the last change
/// of the item in hand (`Player.getAttackStrengthScale(0.5)`).
pub fn strength(ticks: u64, attack_speed: f32) -> f32 {
    let delay = 20.0 / attack_speed;
    ((ticks as f32 + 0.5) / delay).clamp(0.0, 1.0)
}

/// A player's blow, worked out as `Player.attack` does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blow {
    pub damage: f32,
    /// A critical hit: the player was falling (1.5 times the damage, crit particles).
    pub critical: bool,
    /// The extra knockback's strength, beyond a hurt's own 0.4 (`i * 0.5`).
    pub knockback: f32,
    /// Charged to more than 0.9: the strong sound rather than the weak one.
    pub strong: bool,
    /// A sprinting player's charged blow: the knockback sound.
    pub sprint_knock: bool,
    /// Enchantment damage, shown as enchanted-hit particles.
    pub enchanted: bool,
}

/// What the attacker was doing when it struck.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stance {
    /// Blocks fallen and not yet landed (`fallDistance`), 0 on the ground, in water or on a
    /// ladder.
    pub falling: f32,
    pub on_ground: bool,
    pub sprinting: bool,
}

/// A blow of `damage` (the weapon's) and `bonus` (its enchantments' against this target) at
/// charge `strength`, with `knockback_level` (the Knockback enchantment), from `stance`.
pub fn blow(damage: f32, bonus: f32, strength: f32, knockback_level: i32, stance: Stance) -> Blow {
    let mut damage = damage * (0.2 + strength * strength * 0.8);
    let bonus = bonus * strength;
    let strong = strength > 0.9;
    let sprint_knock = stance.sprinting && strong;
    let knockback = knockback_level + i32::from(sprint_knock);
    let critical = strong && stance.falling > 0.0 && !stance.on_ground && !stance.sprinting;
    if critical {
        damage *= 1.5;
    }
    Blow {
        damage: damage + bonus,
        critical,
        knockback: knockback as f32 * 0.5,
        strong,
        sprint_knock,
        enchanted: bonus > 0.0,
    }
}

/// Whether a blow with `item` sweeps the mobs beside its target (`Player.attack`): strong,
/// neither critical nor a sprint hit, on the ground, the player having walked `stride` blocks
/// this tick, less than the walk a movement speed of 0.1 gives (`walkDist` counts 0.6 of a
/// block a block), and a sword in hand.
pub fn sweeps(blow: &Blow, stance: Stance, stride: f64, item: ItemKind) -> bool {
    blow.strong
        && !blow.critical
        && !blow.sprint_knock
        && stance.on_ground
        && stride * 0.6 < 0.1
        && item.to_str().ends_with("_sword")
}

/// What a sweep deals each mob it catches: 1, and Sweeping Edge's share of the blow
/// (`EnchantmentHelper.getSweepingDamageRatio`: 1 - 1 / (level + 1)).
pub fn sweep_damage(blow: f32, sweeping_edge: i32) -> f32 {
    let ratio = if sweeping_edge > 0 {
        1.0 - 1.0 / (sweeping_edge as f32 + 1.0)
    } else {
        0.0
    };
    1.0 + ratio * blow
}

/// Whether a zombie at `other` is caught by a sweep at a target at `target` by a player at
/// `player` (feet each): in the target's box grown by 1 sideways and 0.25 up and down, within
/// 3 blocks of the player (`Player.attack`; a zombie's box is 0.6 by 1.95).
pub fn in_sweep(player: DVec3, target: DVec3, other: DVec3) -> bool {
    const HALF: f64 = 0.3;
    const HEIGHT: f64 = 1.95;
    (other.x - target.x).abs() < 2.0 * HALF + 1.0
        && (other.z - target.z).abs() < 2.0 * HALF + 1.0
        && other.y < target.y + HEIGHT + 0.25
        && other.y + HEIGHT > target.y - 0.25
        && other.distance_squared(player) < 9.0
}

/// The velocity (blocks a tick) of a body moving at `velocity` knocked with `strength`
/// towards `-direction` on the flat (`LivingEntity.knockback`): half its old speed less the
/// push, and a hop of up to 0.4 if it stood on the ground.
pub fn knockback(velocity: DVec3, strength: f64, direction: (f64, f64), on_ground: bool) -> DVec3 {
    let push = DVec3::new(direction.0, 0.0, direction.1).normalize_or_zero() * strength;
    DVec3::new(
        velocity.x / 2.0 - push.x,
        if on_ground {
            (velocity.y / 2.0 + strength).min(0.4)
        } else {
            velocity.y
        },
        velocity.z / 2.0 - push.z,
    )
}

/// The level of enchantment `name` (as `sharpness`) on `stack`, 0 without it. Vanilla keeps
/// enchantments as `{id: "minecraft:sharpness", lvl: 5s}` in the stack's `Enchantments`.
pub fn enchantment(stack: &ItemStack, name: &str) -> i32 {
    let Some(Value::List(List::Compound(list))) = stack
        .nbt
        .as_ref()
        .and_then(|n: &Compound| n.get("Enchantments"))
    else {
        return 0;
    };
    let named = |e: &&Compound| match e.get("id") {
        Some(Value::String(id)) => id.strip_prefix("minecraft:").unwrap_or(id) == name,
        _ => false,
    };
    list.iter()
        .filter(named)
        .filter_map(|e| match e.get("lvl") {
            Some(Value::Short(l)) => Some(i32::from(*l)),
            Some(Value::Int(l)) => Some(*l),
            Some(Value::Byte(l)) => Some(i32::from(*l)),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .clamp(0, 255)
}

/// The extra damage a weapon's enchantments deal to an undead target such as a zombie:
/// Sharpness 0.5 a level plus 0.5, Smite 2.5 a level (`DamageEnchantment.getDamageBonus`).
pub fn bonus_against_undead(stack: &ItemStack) -> f32 {
    let sharpness = enchantment(stack, "sharpness");
    let smite = enchantment(stack, "smite");
    let mut bonus = 0.0;
    if sharpness > 0 {
        bonus += 0.5 * sharpness as f32 + 0.5;
    }
    bonus + 2.5 * smite as f32
}

/// An entity's hurt frames: for 10 ticks after a blow (half of vanilla's 20-tick
/// `invulnerableTime`) a blow no harder than that one does nothing and a harder one deals
/// only the difference.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HurtFrames {
    at: Option<u64>,
    amount: f32,
}

/// Ticks of a blow's frames in which a harder blow deals only the difference.
const FRAMES: u64 = 10;

impl HurtFrames {
    /// What of a blow of `amount` at `now` gets through (all of it once the frames are over),
    /// and notes it.
    pub fn take(&mut self, amount: f32, now: u64) -> f32 {
        match self.at {
            Some(at) if now < at + FRAMES => {
                if amount <= self.amount {
                    return 0.0;
                }
                let more = amount - self.amount;
                self.amount = amount;
                more
            }
            _ => {
                (self.at, self.amount) = (Some(now), amount);
                amount
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cooldown_scales_a_blow_as_vanillas_formula() {
        // An iron sword (6 damage, 1.6 a second: 12.5 ticks to recharge).
        let (damage, speed) = weapon(ItemKind::IronSword);
        assert_eq!((damage, speed), (6.0, 1.6));
        assert_eq!(strength(0, speed), 0.04);
        assert_eq!(strength(12, speed), 1.0);
        let stance = Stance {
            on_ground: true,
            ..Default::default()
        };
        // Spammed: 0.2 + 0.04² × 0.8 of the damage.
        let weak = blow(damage, 0.0, strength(0, speed), 0, stance);
        assert!((weak.damage - 6.0 * (0.2 + 0.04 * 0.04 * 0.8)).abs() < 1e-6);
        assert!(!weak.strong && !weak.critical);
        let full = blow(damage, 0.0, 1.0, 0, stance);
        assert_eq!(full.damage, 6.0);
        assert!(full.strong);
        // The bare hand recharges in 5 ticks.
        assert_eq!(strength(5, weapon(ItemKind::Dirt).1), 1.0);
        assert_eq!(weapon(ItemKind::DiamondAxe), (9.0, 1.0));
    }

    #[test]
    fn a_falling_charged_blow_is_critical_but_not_when_sprinting() {
        let falling = Stance {
            falling: 0.4,
            on_ground: false,
            sprinting: false,
        };
        let crit = blow(7.0, 0.0, 1.0, 0, falling);
        assert!(crit.critical);
        assert_eq!(crit.damage, 10.5);
        assert!(!blow(7.0, 0.0, 0.8, 0, falling).critical, "not charged");
        let sprinting = Stance {
            sprinting: true,
            ..falling
        };
        let knock = blow(7.0, 0.0, 1.0, 0, sprinting);
        assert!(!knock.critical && knock.sprint_knock);
        assert_eq!(knock.knockback, 0.5);
        // Knockback II on a sprint: level 3, 1.5 blocks of strength.
        assert_eq!(blow(7.0, 0.0, 1.0, 2, sprinting).knockback, 1.5);
    }

    #[test]
    fn enchantments_add_their_bonus_scaled_by_the_charge() {
        let mut nbt = Compound::new();
        let mut sharp = Compound::new();
        sharp.insert("id", "minecraft:sharpness");
        sharp.insert("lvl", 5i16);
        let mut knock = Compound::new();
        knock.insert("id", "minecraft:knockback");
        knock.insert("lvl", 2i16);
        nbt.insert("Enchantments", List::Compound(vec![sharp, knock]));
        let sword = ItemStack::new(ItemKind::DiamondSword, 1, Some(nbt));
        assert_eq!(enchantment(&sword, "knockback"), 2);
        assert_eq!(enchantment(&sword, "smite"), 0);
        assert_eq!(bonus_against_undead(&sword), 3.0);
        let b = blow(7.0, 3.0, 0.5, 0, Stance::default());
        assert!((b.damage - (7.0 * 0.4 + 1.5)).abs() < 1e-6);
        assert!(b.enchanted);
    }

    #[test]
    fn knockback_halves_the_old_speed_and_pushes_away() {
        // Struck from the west (attacker at -x): pushed east, a 0.4 hop from the ground.
        let v = knockback(DVec3::ZERO, 0.4, (-1.0, 0.0), true);
        assert_eq!(v, DVec3::new(0.4, 0.4, 0.0));
        let air = knockback(DVec3::new(0.2, -0.1, 0.0), 0.4, (0.0, 1.0), false);
        assert_eq!(air, DVec3::new(0.1, -0.1, -0.4));
    }

    #[test]
    fn frames_hold_off_a_softer_blow_and_take_the_difference_of_a_harder_one() {
        let mut frames = HurtFrames::default();
        assert_eq!(frames.take(4.0, 100), 4.0);
        assert_eq!(frames.take(3.0, 105), 0.0);
        assert_eq!(frames.take(6.0, 109), 2.0);
        assert_eq!(frames.take(1.0, 110), 1.0, "frames over");
    }

    #[test]
    fn a_charged_sword_blow_standing_sweeps_and_others_do_not() {
        let still = Stance {
            falling: 0.0,
            on_ground: true,
            sprinting: false,
        };
        let full = blow(6.0, 0.0, 1.0, 0, still);
        assert!(sweeps(&full, still, 0.0, ItemKind::IronSword));
        assert!(!sweeps(&full, still, 0.0, ItemKind::IronAxe), "only swords");
        assert!(
            !sweeps(&full, still, 0.22, ItemKind::IronSword),
            "walking on"
        );
        let weak = blow(6.0, 0.0, 0.5, 0, still);
        assert!(!sweeps(&weak, still, 0.0, ItemKind::IronSword));
        let sprint = Stance {
            sprinting: true,
            ..still
        };
        let sprinting = blow(6.0, 0.0, 1.0, 0, sprint);
        assert!(!sweeps(&sprinting, sprint, 0.0, ItemKind::IronSword));
        // minecraft.wiki, Sword: 1 damage, Sweeping Edge III 75 % of the blow more.
        assert_eq!(sweep_damage(6.0, 0), 1.0);
        assert!((sweep_damage(6.0, 3) - 5.5).abs() < 1e-6);
        let (player, target) = (DVec3::ZERO, DVec3::new(2.0, 0.0, 0.0));
        assert!(in_sweep(player, target, DVec3::new(2.0, 0.0, 1.5)));
        assert!(!in_sweep(player, target, DVec3::new(2.0, 0.0, 1.7)));
        assert!(
            !in_sweep(player, target, DVec3::new(3.1, 0.0, 0.0)),
            "3 blocks off"
        );
    }
}
