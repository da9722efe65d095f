//! Blows both ways. A zombie in reach of its target raises its arms and swings; the hit lands
//! after the wind-up only if the target is still in reach then (the seed's fix), followed by a
//! cooldown, one attack in flight at a time; a zombie's weapon adds to its blow. A player's hit
//! on a zombie is checked for reach and worked out by `combat`'s rules (the charge, critical
//! hits, enchantments, the hurt frames, the zombie's armour), shows the hurt effect and
//! knockback with vanilla's sounds, and a zombie with no health left plays the death animation
//! before it is removed.

use bevy_ecs::query::WorldQuery;
use bevy_ecs::system::SystemParam;
use valence::entity::entity::Flags;
use valence::entity::living::LivingEntity;
use valence::entity::mob::MobFlags;
use valence::entity::{EntityId, EntityStatuses, OnGround};
use valence::inventory::HeldItem;
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::EntityDamageS2c;
use valence::protocol::{VarInt, WritePacket};

use valence::protocol::sound::SoundCategory;
use valence::protocol::Sound;

use super::body::{BODY_HEIGHT, HALF_WIDTH};
use super::{Equipment, Target, Vitality, Zombie, ZombieKinds, ZombieStruck};
use crate::combat::{self, weapon, Blow, HurtFrames, Stance};
use crate::common::body::Dying;
use crate::common::body::{huntable, Dead};
use crate::common::events::{DamageCause, DamagePlayer, PlayerKill};
use crate::config::{Config, ConfigChanged};
use crate::player::armour::after_armour;
use crate::player::charge::{in_hand, Charge};
use crate::player::hazards::Exposure;
use crate::player::hunger::Exhaust;
use crate::player::wear;
use crate::world::Overworld;

/// Wind-up and cooldown in ticks.
#[derive(Resource, Debug, Clone, Copy)]
pub struct AttackTiming {
    windup_ticks: u64,
    cooldown_ticks: u64,
}

impl AttackTiming {
    pub fn new(config: &Config, tick_rate: f64) -> Self {
        Self {
            windup_ticks: (config.zombies.attack_windup_s * tick_rate).round() as u64,
            cooldown_ticks: (config.zombies.attack_cooldown_s * tick_rate)
                .round()
                .max(1.0) as u64,
        }
    }
}

/// After a `reload`: wind-up and cooldown from the new values.
pub(super) fn retime_attacks(
    mut changed: EventReader<ConfigChanged>,
    mut timing: ResMut<AttackTiming>,
    config: Res<Config>,
    server: Res<Server>,
) {
    if changed.iter().any(|c| c.touches("zombies")) {
        *timing = AttackTiming::new(&config, server.tick_rate().get() as f64);
    }
}

/// Where a zombie is in its swing.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Attack {
    #[default]
    Ready,
    /// Swinging at `target`; the blow lands at `hits_at`.
    WindUp { target: Entity, hits_at: u64 },
    /// Recovering until `until`.
    Cooldown { until: u64 },
}

/// A hurt's own knockback (`LivingEntity.hurt`: `knockback(0.4, ..)`).
const BASE_KNOCKBACK: f64 = 0.4;
/// Exhaustion of a blow that lands (`Player.attack`).
const ATTACK_EXHAUSTION: f32 = 0.1;
/// Ticks the death animation plays before the body goes.
const DEATH_TICKS: u64 = 20;
/// Survival reach is 3 blocks; allow for latency between what the client saw and now.
const PLAYER_REACH: f64 = 4.5;
/// Index of `player_attack` in the 1.20.1 damage type registry.
const PLAYER_ATTACK: i32 = 31;

/// Horizontal and vertical closeness for a zombie's punch.
fn in_reach(zombie: DVec3, player: DVec3, reach: f64) -> bool {
    let flat = DVec2::new(player.x - zombie.x, player.z - zombie.z).length();
    flat <= reach && (player.y - zombie.y).abs() < 2.0
}

/// Distance from a point to a zombie's box.
fn distance_to_box(point: DVec3, feet: DVec3) -> f64 {
    let min = feet - DVec3::new(HALF_WIDTH, 0.0, HALF_WIDTH);
    let max = feet + DVec3::new(HALF_WIDTH, BODY_HEIGHT, HALF_WIDTH);
    point.clamp(min, max).distance(point)
}

pub(super) fn zombies_attack(
    mut zombies: Query<
        (
            Entity,
            &Zombie,
            &Target,
            &mut Attack,
            &Position,
            &EntityId,
            &mut MobFlags,
            &Equipment,
        ),
        (Without<Dying>, Without<Client>),
    >,
    players: Query<(&Position, &GameMode), (With<Client>, Without<Dead>, Without<Zombie>)>,
    mut damage: EventWriter<DamagePlayer>,
    mut swings: Query<&mut valence::entity::EntityAnimations>,
    kinds: Res<ZombieKinds>,
    timing: Res<AttackTiming>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for (entity, zombie, target, mut attack, pos, id, mut flags, equipment) in &mut zombies {
        let kind = kinds.get(zombie.kind);
        // Only players zombies may hurt: a target gone creative is spared mid-swing.
        let huntable_at = |t: Entity| {
            players
                .get(t)
                .ok()
                .filter(|(_, mode)| huntable(mode))
                .map(|(p, _)| p.0)
        };
        let target = target.player.and_then(|t| Some((t, huntable_at(t)?)));
        let reachable = target.is_some_and(|(_, at)| in_reach(pos.0, at, kind.reach));
        match *attack {
            Attack::Ready => {
                if let (Some((player, _)), true) = (target, reachable) {
                    *attack = Attack::WindUp {
                        target: player,
                        hits_at: now + timing.windup_ticks,
                    };
                    if let Ok(mut anim) = swings.get_mut(entity) {
                        anim.trigger(EntityAnimation::SwingMainHand);
                    }
                }
            }
            Attack::WindUp {
                target: player,
                hits_at,
            } if now >= hits_at => {
                let still = huntable_at(player).is_some_and(|p| in_reach(pos.0, p, kind.reach));
                if still {
                    damage.send(DamagePlayer {
                        player,
                        amount: kind.damage + equipment.weapon.map_or(0.0, |w| w.damage_bonus()),
                        cause: DamageCause::Mob(id.get()),
                    });
                }
                *attack = Attack::Cooldown {
                    until: hits_at + timing.cooldown_ticks,
                };
            }
            Attack::Cooldown { until } if now >= until => *attack = Attack::Ready,
            _ => {}
        }
        // Arms up while swinging or with the target in reach, as vanilla zombies do.
        let raised = reachable || matches!(*attack, Attack::WindUp { .. });
        if flags.attacking() != raised {
            flags.set_attacking(raised);
        }
    }
}

/// A zombie's hurt frames, and the player whose blow last landed: a zombie a player hit in
/// the last 100 ticks is still theirs when the fire kills it, for its loot and experience
/// (`LivingEntity.lastHurtByPlayerTime`).
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Frames {
    hurt: HurtFrames,
    by_player: Option<(Entity, u64)>,
}

impl Frames {
    /// Ticks a player's blow keeps a zombie theirs.
    const PLAYER_HIT_TICKS: u64 = 100;

    /// The player a death at tick `now` is credited to, if one hit the zombie lately.
    pub fn credited(&self, now: u64) -> Option<Entity> {
        self.by_player
            .filter(|(_, at)| now.saturating_sub(*at) < Self::PLAYER_HIT_TICKS)
            .map(|(player, _)| player)
    }

    /// Takes a player's blow of `damage`: what gets through the frames.
    fn take_from(&mut self, player: Entity, damage: f32, now: u64) -> f32 {
        let through = self.hurt.take(damage, now);
        if through > 0.0 {
            self.by_player = Some((player, now));
        }
        through
    }
}

/// A player who strikes: where they stand and look, what they hold and how far it is charged,
/// and how they move (a fall's critical hit, a sprint's knockback, a sweep from standing).
#[derive(WorldQuery)]
#[world_query(mutable)]
pub(super) struct Striker {
    pos: &'static Position,
    old_pos: &'static OldPosition,
    look: &'static Look,
    id: &'static EntityId,
    inventory: &'static Inventory,
    held: &'static HeldItem,
    charge: &'static mut Charge,
    exposure: &'static Exposure,
    on_ground: &'static OnGround,
    flags: &'static Flags,
}

/// A zombie a player's blow lands on: where it is and who sees it, what it wears, its health,
/// its hurt frames and what clients are shown of a hurt.
#[derive(WorldQuery)]
#[world_query(mutable)]
pub(super) struct StruckZombie {
    entity: Entity,
    pos: &'static Position,
    id: &'static EntityId,
    equipment: &'static Equipment,
    vitality: &'static mut Vitality,
    statuses: &'static mut EntityStatuses,
    animations: &'static mut valence::entity::EntityAnimations,
    frames: &'static mut Frames,
    layer: &'static EntityLayerId,
}

/// The zombies players may strike: every one not already dying.
type StruckZombies<'w, 's> = Query<'w, 's, StruckZombie, (With<Zombie>, Without<Dying>)>;

/// Where a blow is seen and heard: the hurt effect on the zombie's entity layer, the sounds
/// and the sweep's arc on the overworld's.
#[derive(SystemParam)]
pub(super) struct BlowEffects<'w, 's> {
    entities: Query<'w, 's, &'static mut EntityLayer>,
    chunks: Query<'w, 's, &'static mut ChunkLayer, With<Overworld>>,
}

/// What a blow sets off beyond the zombie's own state: the dying mark of one it kills, and
/// the news for the modules that care (a kill for loot and experience, the push for the chase,
/// daylight and the body, the player's exhaustion for hunger).
#[derive(SystemParam)]
pub(super) struct BlowNews<'w, 's> {
    commands: Commands<'w, 's>,
    kills: EventWriter<'w, PlayerKill>,
    struck: EventWriter<'w, ZombieStruck>,
    exhaust: EventWriter<'w, Exhaust>,
    /// What a blow that lands costs the weapon.
    wears: EventWriter<'w, wear::WearItem>,
}

impl BlowNews<'_, '_> {
    /// A player's blow of `through` (what the frames let by) on `zombie`: its armour takes its
    /// share (`getDamageAfterArmorAbsorb`), the rest wounds it, and a kill is told.
    fn land(&mut self, zombie: &mut StruckZombieItem<'_>, through: f32, player: Entity, now: u64) {
        let (points, toughness) = zombie.equipment.protection();
        let blow = (after_armour(through, points, toughness), Some(player));
        let (victim, vitality, statuses) =
            (zombie.entity, &mut zombie.vitality, &mut zombie.statuses);
        if wound(&mut self.commands, victim, vitality, statuses, blow, now) {
            self.kills.send(PlayerKill { player, victim });
        }
    }

    /// `by`'s blow pushed `zombie` by `push` (flat: a blow does not lift).
    fn push(&mut self, zombie: Entity, by: Entity, push: DVec3) {
        self.struck.send(ZombieStruck {
            zombie,
            by,
            knockback: DVec3::new(push.x, 0.0, push.z),
        });
    }
}

/// A player's blow as `Player.attack` works it out before it meets the zombie: who strikes,
/// from where and facing which way, at which zombie, what the blow is worth and what its sweep
/// deals, if it sweeps.
struct Swing {
    player: Entity,
    player_id: i32,
    from: DVec3,
    /// The way the player faces, flat.
    facing: (f64, f64),
    target: Entity,
    target_at: DVec3,
    blow: Blow,
    sweep: Option<f32>,
}

impl Swing {
    /// `player`'s blow on `target`: it spends the charge, and weighs the weapon, its
    /// enchantments and the player's stance.
    fn of(
        client: Entity,
        player: &mut StrikerItem<'_>,
        target: &StruckZombieItem<'_>,
        now: u64,
    ) -> Self {
        let charged = player.charge.strike(now);
        let stance = Stance {
            falling: player.exposure.fall,
            on_ground: player.on_ground.0,
            sprinting: player.flags.sprinting(),
        };
        let stack = player.inventory.slot(player.held.slot());
        let item = in_hand(player.inventory, player.held);
        let bonus = stack.map_or(0.0, combat::bonus_against_undead);
        let knockback_level = stack.map_or(0, |s| combat::enchantment(s, "knockback"));
        let blow = combat::blow(weapon(item).0, bonus, charged, knockback_level, stance);
        let yaw = (player.look.yaw as f64).to_radians();
        // A charged sword blow standing still sweeps the zombies beside its target.
        let stride = (player.pos.0 - player.old_pos.get()).truncate().length();
        let sweep = combat::sweeps(&blow, stance, stride, item).then(|| {
            let sweeping = stack.map_or(0, |s| combat::enchantment(s, "sweeping"));
            combat::sweep_damage(blow.damage, sweeping)
        });
        Self {
            player: client,
            player_id: player.id.get(),
            from: player.pos.0,
            facing: (yaw.sin(), -yaw.cos()),
            target: target.entity,
            target_at: target.pos.0,
            blow,
            sweep,
        }
    }
}

/// A player's blow on a zombie, as `Player.attack` and `LivingEntity.hurt` work it out: the
/// charge, a critical hit when falling, the weapon's enchantments, the frames, the zombie's
/// armour; the hurt effect, knockback (more for a sprint or the Knockback enchantment) and
/// the sounds vanilla plays; a sweep round the target.
pub(super) fn players_hit_zombies(
    mut events: EventReader<InteractEntityEvent>,
    mut players: Query<Striker, (With<Client>, Without<Dead>, Without<Zombie>)>,
    mut zombies: StruckZombies,
    mut effects: BlowEffects,
    mut news: BlowNews,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    let Ok(mut chunks) = effects.chunks.get_single_mut() else {
        return;
    };
    let entities = &mut effects.entities;
    for event in events.iter() {
        if event.interact != EntityInteraction::Attack {
            continue;
        }
        let Ok(mut player) = players.get_mut(event.client) else {
            continue;
        };
        let Ok(mut zombie) = zombies.get_mut(event.entity) else {
            continue;
        };
        let eye = player.pos.0 + DVec3::new(0.0, crate::common::body::EYE_HEIGHT, 0.0);
        if distance_to_box(eye, zombie.pos.0) > PLAYER_REACH {
            continue;
        }
        let swing = Swing::of(event.client, &mut player, &zombie, now);
        if strike(&swing, &mut zombie, &mut chunks, entities, &mut news, now) {
            let item = in_hand(player.inventory, player.held);
            let amount = wear::from_a_blow(item);
            if amount > 0 {
                news.wears.send(wear::WearItem {
                    player: event.client,
                    slot: player.held.slot(),
                    item,
                    amount,
                });
            }
            sweep(&swing, &mut zombies, &mut chunks, entities, &mut news, now);
        }
    }
}

/// The blow on the zombie the player aimed at: what its frames let by lands (see
/// [`BlowNews::land`]), with vanilla's sounds, the hurt effect and the knockback. Returns
/// whether anything got through: a blow the frames hold off sweeps nothing.
fn strike(
    swing: &Swing,
    zombie: &mut StruckZombieItem<'_>,
    chunks: &mut ChunkLayer,
    entities: &mut Query<&mut EntityLayer>,
    news: &mut BlowNews,
    now: u64,
) -> bool {
    let blow = &swing.blow;
    let through = zombie.frames.take_from(swing.player, blow.damage, now);
    if through <= 0.0 {
        play(chunks, Sound::EntityPlayerAttackNodamage, swing.from, now);
        return false;
    }
    news.land(zombie, through, swing.player, now);
    news.exhaust.send(Exhaust {
        player: swing.player,
        amount: ATTACK_EXHAUSTION,
    });
    sound_the_blow(swing, &mut zombie.animations, chunks, now);
    // A harder blow within the frames hurts by the difference and takes the blow's extra
    // knockback, but neither flinches nor gets the hurt's own push (`LivingEntity.hurt`).
    let fresh = through >= blow.damage;
    if fresh {
        show_hurt(entities, zombie, swing.player_id);
    }
    // The hurt's own push away from the player, then the blow's extra in the direction
    // the player faces.
    let away = (swing.from.x - zombie.pos.0.x, swing.from.z - zombie.pos.0.z);
    let mut push = if fresh {
        combat::knockback(DVec3::ZERO, BASE_KNOCKBACK, away, true)
    } else {
        DVec3::ZERO
    };
    if blow.knockback > 0.0 {
        push = combat::knockback(push, blow.knockback as f64, swing.facing, true);
    }
    if push != DVec3::ZERO {
        news.push(zombie.entity, swing.player, push);
    }
    true
}

/// The sounds vanilla plays for a blow that lands (a sprint's knockback; a critical, strong or
/// weak hit), and the sparks of a critical or enchanted one on the zombie.
fn sound_the_blow(
    swing: &Swing,
    animations: &mut Mut<valence::entity::EntityAnimations>,
    chunks: &mut ChunkLayer,
    now: u64,
) {
    let blow = &swing.blow;
    if blow.sprint_knock {
        play(chunks, Sound::EntityPlayerAttackKnockback, swing.from, now);
    }
    if blow.critical {
        play(chunks, Sound::EntityPlayerAttackCrit, swing.from, now);
        animations.trigger(EntityAnimation::Crit);
    } else if blow.strong {
        play(chunks, Sound::EntityPlayerAttackStrong, swing.from, now);
    } else {
        play(chunks, Sound::EntityPlayerAttackWeak, swing.from, now);
    }
    if blow.enchanted {
        animations.trigger(EntityAnimation::EnchantedHit);
    }
}

/// A sweeping blow (`Player.sweepAttack`): each zombie beside the target takes the sweep's
/// damage through its frames and a push the way the player faces; the sweep is heard, and its
/// arc seen in front of the player.
fn sweep(
    swing: &Swing,
    zombies: &mut StruckZombies,
    chunks: &mut ChunkLayer,
    entities: &mut Query<&mut EntityLayer>,
    news: &mut BlowNews,
    now: u64,
) {
    let Some(damage) = swing.sweep else {
        return;
    };
    let caught: Vec<Entity> = zombies
        .iter()
        .filter(|zombie| {
            zombie.entity != swing.target
                && combat::in_sweep(swing.from, swing.target_at, zombie.pos.0)
        })
        .map(|zombie| zombie.entity)
        .collect();
    for entity in caught {
        let Ok(mut zombie) = zombies.get_mut(entity) else {
            continue;
        };
        let through = zombie.frames.take_from(swing.player, damage, now);
        if through <= 0.0 {
            continue;
        }
        news.land(&mut zombie, through, swing.player, now);
        show_hurt(entities, &zombie, swing.player_id);
        let push = combat::knockback(DVec3::ZERO, BASE_KNOCKBACK, swing.facing, true);
        news.push(entity, swing.player, push);
    }
    play(chunks, Sound::EntityPlayerAttackSweep, swing.from, now);
    let arc = swing.from + DVec3::new(-swing.facing.0, 0.9, -swing.facing.1);
    chunks.play_particle(&Particle::SweepAttack, false, arc, Vec3::ZERO, 0.0, 0);
}

/// A sound of a player's blow, heard from where the player stands.
fn play(chunks: &mut ChunkLayer, sound: Sound, from: DVec3, now: u64) {
    let seed = now as i64;
    crate::world::sound::play(chunks, sound, SoundCategory::Player, from, (1.0, 1.0), seed);
}

/// The hurt effect of a player's blow on `zombie`, shown to everyone who sees it.
fn show_hurt(entities: &mut Query<&mut EntityLayer>, zombie: &StruckZombieItem<'_>, by: i32) {
    if let Ok(mut layer) = entities.get_mut(zombie.layer.0) {
        hurt_effect(
            &mut layer,
            zombie.pos.0,
            zombie.id.get(),
            PLAYER_ATTACK,
            Some(by),
        );
    }
}

/// Takes `amount` of a zombie's health; at none left it plays the death animation and is
/// marked dying, by `killer` if a player struck the blow. Returns whether this blow killed it.
pub fn wound(
    commands: &mut Commands,
    zombie: Entity,
    vitality: &mut Vitality,
    statuses: &mut EntityStatuses,
    (amount, killer): (f32, Option<Entity>),
    now: u64,
) -> bool {
    if vitality.0 <= 0.0 {
        return false;
    }
    vitality.0 -= amount;
    if vitality.0 > 0.0 {
        return false;
    }
    statuses.trigger(EntityStatus::PlayDeathSoundOrAddProjectileHitParticles);
    commands.entity(zombie).insert(Dying {
        until: now + DEATH_TICKS,
        killer,
    });
    true
}

/// Shows the hurt effect of entity `id` at `pos` to everyone who sees it; `source` is the
/// attacker's entity id, if any.
pub fn hurt_effect(
    layer: &mut EntityLayer,
    pos: DVec3,
    id: i32,
    damage_type: i32,
    source: Option<i32>,
) {
    let source = VarInt(source.map_or(0, |s| s + 1));
    layer
        .view_writer(ChunkPos::from_pos(pos))
        .write_packet(&EntityDamageS2c {
            entity_id: VarInt(id),
            source_type_id: VarInt(damage_type),
            source_cause_id: source,
            source_direct_id: source,
            source_pos: None,
        });
}

pub(super) fn remove_the_dead(
    mut commands: Commands,
    dying: Query<(Entity, &Dying), With<LivingEntity>>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for (entity, dying) in &dying {
        if now >= dying.until {
            commands.entity(entity).insert(Despawned);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_is_flat_distance_with_a_height_limit() {
        let z = DVec3::new(0.0, 64.0, 0.0);
        assert!(in_reach(z, DVec3::new(1.5, 64.0, 1.0), 2.0));
        assert!(!in_reach(z, DVec3::new(2.5, 64.0, 0.0), 2.0));
        assert!(!in_reach(z, DVec3::new(0.5, 67.0, 0.0), 2.0));
    }

    #[test]
    fn box_distance() {
        let feet = DVec3::new(0.0, 0.0, 0.0);
        assert_eq!(distance_to_box(DVec3::new(0.0, 1.0, 0.0), feet), 0.0);
        assert!((distance_to_box(DVec3::new(3.3, 1.0, 0.0), feet) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn a_players_blow_keeps_the_zombie_theirs_for_100_ticks() {
        let player = Entity::from_raw(7);
        let mut frames = Frames::default();
        assert_eq!(frames.credited(0), None);
        assert!(frames.take_from(player, 5.0, 1000) > 0.0);
        assert_eq!(frames.credited(1099), Some(player));
        assert_eq!(frames.credited(1100), None);
        // A blow the frames hold off does not renew it.
        assert_eq!(frames.take_from(player, 1.0, 1005), 0.0);
        assert_eq!(frames.credited(1100), None);
    }
}
