//! What the world does to a player's body, as vanilla 1.20.1 does it: falls (`fallDistance`
//! less 3 blocks, rounded up, softened by hay, beds and slime, none into water or off a
//! ladder or under slow falling), drowning (300 ticks of air shown as bubbles, then 2 damage a second), lava and fire
//! (set alight, 1 damage a second while burning, put out by water and rain), suffocating with
//! the head in a block, and the void. Each blow goes through [`DamagePlayer`] with its cause,
//! so armour, the invulnerability frames and the death messages are vanilla's too.

use valence::entity::entity::{Air, Flags};
use valence::movement::MovementEvent;
use valence::prelude::*;

use super::effects::{Effect, Effects};
use super::{AwaitingSpawn, Health};
use crate::common::body::{Dead, EYE_HEIGHT};
use crate::common::events::{DamageCause, DamagePlayer};
use crate::config::Config;
use crate::weather::Weather;
use crate::world::{climbable, is_solid, LayerVoxels, Overworld, Voxels, MIN_Y};

/// A survival body's state the world acts on.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Exposure {
    /// Blocks fallen since the body last stood (vanilla's `fallDistance`).
    pub fall: f32,
    /// Fire: burning while positive (ticks left), resting at `FIRE_REST` (vanilla's
    /// `remainingFireTicks`, which a fire block counts up to 0 before it lights a player).
    pub fire: i32,
}

impl Default for Exposure {
    fn default() -> Self {
        Self {
            fall: 0.0,
            fire: FIRE_REST,
        }
    }
}

/// A player's fire rests at minus its fire-immune ticks (20 for players).
pub const FIRE_REST: i32 = -20;
/// Vanilla's air: 300 ticks, one a tick under water, 4 a tick back in air.
pub const MAX_AIR: i32 = 300;
const AIR_REFILL: i32 = 4;
/// At this much air a drowning blow lands and air starts over at 0.
const DROWN_AT: i32 = -20;
const DROWN_DAMAGE: f32 = 2.0;
/// Falls up to this many blocks do no harm.
const SAFE_FALL: f32 = 3.0;
/// Lava sets a player alight for 15 s, a fire block for 8 s (`setSecondsOnFire`).
const LAVA_FIRE_TICKS: i32 = 300;
const FIRE_BLOCK_TICKS: i32 = 160;
/// A client's move of more than this is a teleport, not a fall.
const TELEPORT: f64 = 8.0;
/// Vanilla's void: 4 damage each tick below `MIN_Y - 64`.
const VOID_DEPTH: f64 = 64.0;
const VOID_DAMAGE: f32 = 4.0;
/// Half a player's width, and its height, for what it touches.
const HALF_WIDTH: f64 = 0.3;
const HEIGHT: f64 = 1.8;

/// Whether the world hurts a player in this game mode (creative and spectator are out of its
/// reach, as vanilla's `abilities.invulnerable`).
fn exposed(mode: &GameMode) -> bool {
    matches!(mode, GameMode::Survival | GameMode::Adventure)
}

/// The damage of a fall of `distance` blocks onto `landing` (`LivingEntity.calculateFallDamage`
/// and each block's `fallOn`): hay bales and honey take 80 % off, a bed halves the distance,
/// slime and powder snow take it all.
pub fn fall_damage(distance: f32, landing: BlockState) -> f32 {
    let (distance, factor) = match landing.to_kind() {
        BlockKind::HayBlock | BlockKind::HoneyBlock => (distance, 0.2),
        BlockKind::SlimeBlock | BlockKind::PowderSnow => (distance, 0.0),
        kind if kind.to_str().ends_with("_bed") => (distance * 0.5, 1.0),
        _ => (distance, 1.0),
    };
    ((distance - SAFE_FALL) * factor).ceil().max(0.0)
}

/// Whether a block at a player's eyes suffocates them (vanilla's `isSuffocating`: a whole,
/// motion-stopping cube; glass, leaves and the like are not).
pub fn suffocates(state: BlockState) -> bool {
    if !state.is_opaque() || !is_solid(state) {
        return false;
    }
    let mut shapes = state.collision_shapes();
    let whole = shapes
        .next()
        .is_some_and(|b| b.min() == DVec3::ZERO && b.max() == DVec3::ONE);
    whole && shapes.next().is_none()
}

pub(super) fn is_water(state: BlockState) -> bool {
    state.to_kind() == BlockKind::Water
        || state.get(PropName::Waterlogged) == Some(PropValue::True)
        || matches!(
            state.to_kind(),
            BlockKind::BubbleColumn | BlockKind::Kelp | BlockKind::KelpPlant | BlockKind::Seagrass
        )
}

/// The blocks a standing body at `feet` touches.
fn touched(feet: DVec3) -> impl Iterator<Item = BlockPos> {
    let (lo, hi) = (
        feet - DVec3::new(HALF_WIDTH, 0.0, HALF_WIDTH),
        feet + DVec3::new(HALF_WIDTH, HEIGHT, HALF_WIDTH),
    );
    let (x0, y0, z0) = (
        lo.x.floor() as i32,
        lo.y.floor() as i32,
        lo.z.floor() as i32,
    );
    let (x1, y1, z1) = (
        hi.x.floor() as i32,
        hi.y.floor() as i32,
        hi.z.floor() as i32,
    );
    (x0..=x1).flat_map(move |x| {
        (y0..=y1).flat_map(move |y| (z0..=z1).map(move |z| BlockPos::new(x, y, z)))
    })
}

/// The client's moves: the distance fallen, and the fall's blow on landing.
pub(super) fn falls(
    mut moves: EventReader<MovementEvent>,
    mut players: Query<
        (&mut Exposure, &GameMode, Option<&Effects>),
        (Without<Dead>, Without<AwaitingSpawn>),
    >,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut damage: EventWriter<DamagePlayer>,
    config: Res<Config>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let world = LayerVoxels::new(layer);
    for step in moves.iter() {
        let Ok((mut exposure, mode, effects)) = players.get_mut(step.client) else {
            continue;
        };
        let dy = step.position.y - step.old_position.y;
        let feet = BlockPos::from_pos(step.position);
        let caught = world
            .block(feet)
            .is_some_and(|b| is_water(b) || climbable(b))
            || world
                .block(BlockPos::new(feet.x, feet.y + 1, feet.z))
                .is_some_and(is_water);
        // Slow falling forgets the fall on every step down (`LivingEntity.travel`).
        let floating = dy < 0.0 && effects.is_some_and(|e| e.has(Effect::SlowFalling));
        if !exposed(mode)
            || caught
            || floating
            || (step.position - step.old_position).length() > TELEPORT
        {
            exposure.fall = 0.0;
            continue;
        }
        if !step.on_ground {
            if dy < 0.0 {
                exposure.fall -= dy as f32;
            }
            continue;
        }
        if exposure.fall > 0.0 {
            let fallen = std::mem::take(&mut exposure.fall);
            let below = BlockPos::from_pos(step.position - DVec3::new(0.0, 0.2, 0.0));
            let landing = world.block(below).unwrap_or(BlockState::AIR);
            let amount = fall_damage(fallen, landing);
            if amount > 0.0 && config.survival.fall_damage {
                damage.send(DamagePlayer {
                    player: step.client,
                    amount,
                    cause: DamageCause::Fall(fallen),
                });
            }
        }
    }
}

/// Every tick: air under water, fire and lava, burning, a block at the eyes, the void.
pub(super) fn hazards(
    mut players: Query<
        (
            Entity,
            &Position,
            &GameMode,
            &mut Exposure,
            &mut Air,
            &mut Flags,
        ),
        (Without<Dead>, Without<AwaitingSpawn>, With<Health>),
    >,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut damage: EventWriter<DamagePlayer>,
    weather: Res<Weather>,
    config: Res<Config>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let world = LayerVoxels::new(layer);
    let rules = &config.survival;
    let mut hurt = |player, amount, cause| {
        damage.send(DamagePlayer {
            player,
            amount,
            cause,
        })
    };
    for (player, pos, mode, mut exposure, mut air, mut flags) in &mut players {
        if pos.0.y < MIN_Y as f64 - VOID_DEPTH {
            hurt(player, VOID_DAMAGE, DamageCause::Void);
        }
        if !exposed(mode) {
            if air.0 != MAX_AIR {
                air.0 = MAX_AIR;
            }
            if exposure.fire != FIRE_REST {
                exposure.fire = FIRE_REST;
            }
            if flags.on_fire() {
                flags.set_on_fire(false);
            }
            continue;
        }
        let eyes = BlockPos::from_pos(pos.0 + DVec3::new(0.0, EYE_HEIGHT, 0.0));
        let at_eyes = world.block(eyes).unwrap_or(BlockState::AIR);
        let wet = is_water(at_eyes) || world.block(BlockPos::from_pos(pos.0)).is_some_and(is_water);

        // Air: one a tick with the eyes under water, then a blow at -20; four back a tick.
        let breath = if is_water(at_eyes) {
            if air.0 - 1 <= DROWN_AT {
                if rules.drowning_damage {
                    hurt(player, DROWN_DAMAGE, DamageCause::Drown);
                }
                0
            } else {
                air.0 - 1
            }
        } else {
            (air.0 + AIR_REFILL).min(MAX_AIR)
        };
        if air.0 != breath {
            air.0 = breath;
        }

        // Lava and fire blocks touched.
        let (mut lava, mut fire_block) = (false, None);
        for block in touched(pos.0).filter_map(|p| world.block(p)) {
            match block.to_kind() {
                BlockKind::Lava => lava = true,
                BlockKind::Fire if fire_block.is_none() => fire_block = Some(1.0),
                BlockKind::SoulFire => fire_block = Some(2.0),
                _ => {}
            }
        }
        let mut fire = exposure.fire;
        if lava && rules.fire_damage {
            fire = fire.max(LAVA_FIRE_TICKS);
            hurt(player, 4.0, DamageCause::Lava);
        }
        if let Some(amount) = fire_block.filter(|_| rules.fire_damage) {
            fire += 1;
            if fire == 0 {
                fire = FIRE_BLOCK_TICKS;
            }
            hurt(player, amount, DamageCause::InFire);
        }
        if fire > 0 && (wet || rained_on(&weather, &world, pos.0)) {
            fire = FIRE_REST;
        }
        if fire > 0 {
            if fire % 20 == 0 && !lava {
                hurt(player, 1.0, DamageCause::OnFire);
            }
            fire -= 1;
        } else if !lava && fire_block.is_none() {
            fire = FIRE_REST;
        }
        if exposure.fire != fire {
            exposure.fire = fire;
        }
        if flags.on_fire() != (fire > 0) {
            flags.set_on_fire(fire > 0);
        }

        if suffocates(at_eyes) {
            hurt(player, 1.0, DamageCause::InWall);
        }
    }
}

/// Whether rain falls on a player at `feet`: it rains and nothing solid or liquid is above.
/// Read only for a player who burns.
fn rained_on(weather: &Weather, world: &impl Voxels, feet: DVec3) -> bool {
    if !weather.sky.is_raining() {
        return false;
    }
    let head = BlockPos::from_pos(feet + DVec3::new(0.0, EYE_HEIGHT, 0.0));
    let top = MIN_Y + crate::world::HEIGHT as i32;
    (head.y + 1..top).all(|y| {
        let above = BlockPos::new(head.x, y, head.z);
        !world.solid(above) && !world.liquid(above)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falls_hurt_as_vanillas_rule() {
        // minecraft.wiki, Fall damage: a point per block past 3, rounded up.
        assert_eq!(fall_damage(3.0, BlockState::STONE), 0.0);
        assert_eq!(fall_damage(3.5, BlockState::STONE), 1.0);
        assert_eq!(fall_damage(10.0, BlockState::STONE), 7.0);
        assert_eq!(
            fall_damage(23.0, BlockState::GRASS_BLOCK),
            20.0,
            "a 23-block fall kills"
        );
        assert_eq!(
            fall_damage(23.0, BlockState::HAY_BLOCK),
            4.0,
            "hay takes 80 % off"
        );
        assert_eq!(fall_damage(23.0, BlockState::SLIME_BLOCK), 0.0);
        assert_eq!(
            fall_damage(10.0, BlockState::RED_BED),
            2.0,
            "a bed halves the distance"
        );
    }

    #[test]
    fn what_suffocates() {
        assert!(suffocates(BlockState::STONE) && suffocates(BlockState::DIRT));
        assert!(!suffocates(BlockState::GLASS) && !suffocates(BlockState::OAK_LEAVES));
        assert!(!suffocates(BlockState::AIR) && !suffocates(BlockState::WATER));
        assert!(!suffocates(BlockState::OAK_SLAB));
    }
}
