//! Hunger and healing as vanilla 1.20.1's `FoodData` rules them: sprinting, jumping, fighting,
//! being hurt and healing tire a player (exhaustion); every 4 of exhaustion costs a point of
//! saturation, or of food once saturation is gone; a fed player heals (fast while saturated
//! at full food, a half heart every 4 s from 18 food), a starving one is hurt down to
//! vanilla's floor for the difficulty. Food comes from eating: holding use on a food item for
//! its eating time (32 ticks, 16 for dried kelp) gives its food and saturation, and rotten
//! flesh brings Hunger four times in five.

use rand::Rng;
use valence::entity::entity::Flags;
use valence::movement::MovementEvent;
use valence::prelude::*;

use super::effects::{Effect, Effects};
use super::{Health, MAX_HEALTH};
use crate::common::body::Dead;
use crate::common::events::{DamageCause, DamagePlayer};
use crate::config::{Config, Difficulty};
use crate::world::{LayerVoxels, Overworld, Voxels};

/// Most food a player has, as vanilla.
pub const MAX_FOOD: u32 = 20;
/// Exhaustion is capped there (`FoodData.addExhaustion`).
pub const MAX_EXHAUSTION: f32 = 40.0;
/// A fresh player's, and a respawned one's, saturation.
pub const START_SATURATION: f32 = 5.0;

/// A player's food, as vanilla's `FoodData`.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Food {
    pub level: u32,
    pub saturation: f32,
    pub exhaustion: f32,
    /// Ticks towards the next heal or starvation blow.
    pub timer: u32,
}

impl Default for Food {
    fn default() -> Self {
        Self {
            level: MAX_FOOD,
            saturation: START_SATURATION,
            exhaustion: 0.0,
            timer: 0,
        }
    }
}

/// What one tick of `FoodData.tick` does besides changing the food.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tick {
    None,
    Heal(f32),
    Starve,
}

impl Food {
    /// Adds exhaustion (`FoodData.addExhaustion`).
    pub fn exhaust(&mut self, amount: f32) {
        self.exhaustion = (self.exhaustion + amount).min(MAX_EXHAUSTION);
    }

    /// Eats `food` points with saturation modifier `modifier` (`FoodData.eat`).
    pub fn eat(&mut self, food: u32, modifier: f32) {
        self.level = (self.level + food).min(MAX_FOOD);
        self.saturation = (self.saturation + food as f32 * modifier * 2.0).min(self.level as f32);
    }

    /// One tick of `FoodData.tick` for a player at `health` (with the Hunger effect at
    /// `hunger`'s level, if any): exhaustion drains saturation, then food; a fed player
    /// heals, a starving one is hurt.
    pub fn tick(
        &mut self,
        health: f32,
        difficulty: Difficulty,
        regenerate: bool,
        hunger: Option<u8>,
    ) -> Tick {
        if let Some(amplifier) = hunger {
            // `HungerMobEffect.applyEffectTick`: 0.005 a tick a level.
            self.exhaust(0.005 * (amplifier as f32 + 1.0));
        }
        if self.exhaustion > 4.0 {
            self.exhaustion -= 4.0;
            if self.saturation > 0.0 {
                self.saturation = (self.saturation - 1.0).max(0.0);
            } else {
                self.level = self.level.saturating_sub(1);
            }
        }
        let hurt = health < MAX_HEALTH;
        if regenerate && self.saturation > 0.0 && hurt && self.level >= MAX_FOOD {
            self.timer += 1;
            if self.timer >= 10 {
                self.timer = 0;
                let spent = self.saturation.min(6.0);
                self.exhaust(spent);
                return Tick::Heal(spent / 6.0);
            }
        } else if regenerate && self.level >= 18 && hurt {
            self.timer += 1;
            if self.timer >= 80 {
                self.timer = 0;
                self.exhaust(6.0);
                return Tick::Heal(1.0);
            }
        } else if self.level == 0 {
            self.timer += 1;
            if self.timer >= 80 {
                self.timer = 0;
                let floor = match difficulty {
                    Difficulty::Easy => 10.0,
                    Difficulty::Normal => 1.0,
                    Difficulty::Hard => 0.0,
                };
                if health > floor {
                    return Tick::Starve;
                }
            }
        } else {
            self.timer = 0;
        }
        Tick::None
    }
}

/// Something tired a player by `amount` (vanilla's exhaustion).
#[derive(Event, Debug, Clone, Copy, PartialEq)]
pub struct Exhaust {
    pub player: Entity,
    pub amount: f32,
}

/// How a move was made, for what it costs in exhaustion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stride {
    /// Blocks moved: sideways, and up (negative down).
    pub across: f64,
    pub up: f64,
    pub sprinting: bool,
    pub in_water: bool,
    pub on_ground: bool,
    /// The move left the ground going up: a jump.
    pub jumped: bool,
}

/// What a move tires a player (`Player.checkMovementStatistics`, counted in whole
/// centimetres, and `Player.jumpFromGround`): 0.01 a block swum, 0.1 a block sprinted on the
/// ground, walking nothing; a jump 0.05, 0.2 sprinting.
pub fn movement_exhaustion(stride: Stride) -> f32 {
    let cm = |blocks: f64| (blocks * 100.0).round() as f32 * 0.01;
    let moving = if stride.in_water {
        // Counted in three dimensions only swimming or with the eyes under; wading, flat.
        let swum = if stride.on_ground {
            stride.across
        } else {
            stride.across.hypot(stride.up)
        };
        0.01 * cm(swum)
    } else if stride.on_ground && stride.sprinting {
        0.1 * cm(stride.across)
    } else {
        0.0
    };
    let jump = match (stride.jumped, stride.sprinting) {
        (false, _) => 0.0,
        (true, false) => 0.05,
        (true, true) => 0.2,
    };
    moving + jump
}

/// Moving tires a survival player: sprinting, swimming and jumping, as each move arrives.
pub(super) fn tire_by_moving(
    mut moves: EventReader<MovementEvent>,
    players: Query<&Flags, Without<Dead>>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut exhaust: EventWriter<Exhaust>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let world = LayerVoxels::new(layer);
    for step in moves.iter() {
        let Ok(flags) = players.get(step.client) else {
            continue;
        };
        let delta = step.position - step.old_position;
        // A teleport is no walk.
        if delta.length() > 8.0 {
            continue;
        }
        let feet = BlockPos::from_pos(step.position);
        let amount = movement_exhaustion(Stride {
            across: delta.x.hypot(delta.z),
            up: delta.y,
            sprinting: flags.sprinting(),
            in_water: world.block(feet).is_some_and(super::hazards::is_water),
            on_ground: step.on_ground,
            jumped: step.old_on_ground && !step.on_ground && delta.y > 0.0,
        });
        if amount > 0.0 {
            exhaust.send(Exhaust {
                player: step.client,
                amount,
            });
        }
    }
}

/// A food item's points and saturation modifier, its eating time in ticks and whether it is
/// eaten at full food too (1.20.1 `Foods`; minecraft-data's foods.json has the same points).
pub fn food_of(item: ItemKind) -> Option<(u32, f32, u32, bool)> {
    use ItemKind::*;
    let (food, modifier) = match item {
        Apple => (4, 0.3),
        MushroomStew | BeetrootSoup | SuspiciousStew => (6, 0.6),
        Bread => (5, 0.6),
        Porkchop | Beef | Rabbit => (3, 0.3),
        CookedPorkchop | CookedBeef => (8, 0.8),
        GoldenApple | EnchantedGoldenApple => (4, 1.2),
        Cod | Salmon => (2, 0.1),
        TropicalFish | Pufferfish => (1, 0.1),
        CookedCod => (5, 0.6),
        CookedSalmon | CookedMutton => (6, 0.8),
        Cookie | SweetBerries | GlowBerries => (2, 0.1),
        MelonSlice | Chicken | Mutton | PoisonousPotato => (2, 0.3),
        DriedKelp => (1, 0.3),
        CookedChicken => (6, 0.6),
        RottenFlesh => (4, 0.1),
        SpiderEye => (2, 0.8),
        Carrot => (3, 0.6),
        Potato => (1, 0.3),
        BakedPotato | CookedRabbit => (5, 0.6),
        GoldenCarrot => (6, 1.2),
        PumpkinPie => (8, 0.3),
        RabbitStew => (10, 0.6),
        ChorusFruit => (4, 0.3),
        Beetroot => (1, 0.6),
        HoneyBottle => (6, 0.1),
        _ => return None,
    };
    let ticks = match item {
        DriedKelp => 16,
        HoneyBottle => 40,
        _ => 32,
    };
    let always = matches!(
        item,
        GoldenApple | EnchantedGoldenApple | ChorusFruit | SuspiciousStew
    );
    Some((food, modifier, ticks, always))
}

/// Rotten flesh gives Hunger I for 30 s four times in five (`Foods.ROTTEN_FLESH`).
pub const ROTTEN_FLESH_HUNGER: (f64, u32) = (0.8, 600);

/// Every tick: each living player's food and what it does to their health.
pub(super) fn tick_food(
    mut players: Query<
        (Entity, &mut Food, &mut Health, &GameMode, Option<&Effects>),
        Without<Dead>,
    >,
    mut exhausted: EventReader<Exhaust>,
    mut damage: EventWriter<DamagePlayer>,
    config: Res<Config>,
) {
    for tired in exhausted.iter() {
        if let Ok((_, mut food, _, mode, _)) = players.get_mut(tired.player) {
            if !matches!(mode, GameMode::Creative | GameMode::Spectator) && tired.amount > 0.0 {
                food.exhaust(tired.amount);
            }
        }
    }
    let difficulty = config.server.difficulty;
    let regenerate = config.survival.natural_regeneration;
    for (player, mut food, mut health, mode, effects) in &mut players {
        if matches!(mode, GameMode::Creative | GameMode::Spectator) {
            continue;
        }
        let before = *food;
        let mut next = before;
        let hunger = effects.and_then(|e| e.amplifier(Effect::Hunger));
        let tick = next.tick(health.0, difficulty, regenerate, hunger);
        if next != before {
            *food = next;
        }
        match tick {
            Tick::Heal(amount) => health.0 = (health.0 + amount).min(MAX_HEALTH),
            Tick::Starve => damage.send(DamagePlayer {
                player,
                amount: 1.0,
                cause: DamageCause::Starve,
            }),
            Tick::None => {}
        }
    }
}

/// Whether a rotten flesh eaten now gives Hunger.
pub fn rotten_flesh_hungers(rng: &mut impl Rng) -> bool {
    rng.gen_bool(ROTTEN_FLESH_HUNGER.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhaustion_takes_saturation_before_food() {
        let mut food = Food::default();
        food.exhaust(4.5);
        food.tick(20.0, Difficulty::Normal, true, None);
        assert_eq!((food.level, food.saturation), (20, 4.0));
        food.saturation = 0.0;
        food.exhaust(4.5);
        food.tick(20.0, Difficulty::Normal, true, None);
        assert_eq!(food.level, 19);
        food.exhaust(100.0);
        assert_eq!(food.exhaustion, 40.0, "capped at 40");
    }

    #[test]
    fn a_saturated_player_heals_every_ten_ticks_a_fed_one_every_eighty() {
        let mut food = Food::default();
        let heals: Vec<Tick> = (0..10)
            .map(|_| food.tick(10.0, Difficulty::Normal, true, None))
            .collect();
        assert_eq!(heals[9], Tick::Heal(5.0 / 6.0), "min(saturation, 6) / 6");
        assert_eq!(food.exhaustion, 5.0, "the saturation spent, as exhaustion");
        let mut fed = Food {
            level: 18,
            saturation: 0.0,
            ..Food::default()
        };
        let ticks =
            (1..=80).find(|_| fed.tick(10.0, Difficulty::Normal, true, None) == Tick::Heal(1.0));
        assert_eq!(ticks, Some(80));
        assert_eq!(fed.exhaustion, 6.0);
        let mut hungry = Food {
            level: 17,
            ..Food::default()
        };
        assert!((0..200).all(|_| hungry.tick(10.0, Difficulty::Normal, true, None) == Tick::None));
    }

    #[test]
    fn starvation_stops_at_vanillas_floor_for_the_difficulty() {
        let starving = Food {
            level: 0,
            saturation: 0.0,
            ..Food::default()
        };
        let blows = |health: f32, difficulty| {
            let mut food = starving;
            (0..80).any(|_| food.tick(health, difficulty, true, None) == Tick::Starve)
        };
        assert!(blows(11.0, Difficulty::Easy) && !blows(10.0, Difficulty::Easy));
        assert!(blows(2.0, Difficulty::Normal) && !blows(1.0, Difficulty::Normal));
        assert!(blows(1.0, Difficulty::Hard));
    }

    #[test]
    fn eating_adds_food_and_saturation_up_to_the_food_level() {
        let mut food = Food {
            level: 10,
            saturation: 0.0,
            ..Food::default()
        };
        let (points, modifier, ticks, always) = food_of(ItemKind::CookedBeef).unwrap();
        food.eat(points, modifier);
        assert_eq!(
            (food.level, food.saturation, ticks, always),
            (18, 12.8, 32, false)
        );
        let (points, modifier, ..) = food_of(ItemKind::RottenFlesh).unwrap();
        food.eat(points, modifier);
        assert_eq!(food.level, 20);
        assert!((food.saturation - 13.6).abs() < 1e-4);
        assert_eq!(food_of(ItemKind::DriedKelp).map(|f| f.2), Some(16));
        assert_eq!(food_of(ItemKind::Stone), None);
    }

    #[test]
    fn sprinting_swimming_and_jumping_tire_as_vanilla_walking_does_not() {
        let stride = Stride {
            across: 0.28,
            up: 0.0,
            sprinting: false,
            in_water: false,
            on_ground: true,
            jumped: false,
        };
        assert_eq!(movement_exhaustion(stride), 0.0, "walking is free");
        let sprint = Stride {
            sprinting: true,
            ..stride
        };
        // minecraft.wiki, Hunger: 0.1 a metre sprinted, 0.01 swum, a jump 0.05 (0.2 sprinting).
        assert!((movement_exhaustion(sprint) - 0.028).abs() < 1e-6);
        let swim = Stride {
            in_water: true,
            on_ground: false,
            up: 0.21,
            ..stride
        };
        assert!((movement_exhaustion(swim) - 0.0035).abs() < 1e-6);
        let jump = Stride {
            across: 0.0,
            jumped: true,
            on_ground: false,
            ..stride
        };
        assert_eq!(movement_exhaustion(jump), 0.05);
        assert_eq!(
            movement_exhaustion(Stride {
                sprinting: true,
                ..jump
            }),
            0.2
        );
    }
}
