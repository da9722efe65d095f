//! Experience, as vanilla's: a zombie a player kills and a player who dies drop orbs, orbs
//! fall, drift to the nearest player within 8 blocks and are taken one every 2 ticks, and the
//! points fill the bar by vanilla's level costs, with the chime every fifth level. The rules
//! are in `rules`; a player's levels are saved with their playerdata.

pub mod commands;
pub mod record;
pub mod rules;
pub mod save;

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::entity::experience_orb::ExperienceOrbEntityBundle;
use valence::entity::{EntityId, ObjectData, OnGround, Velocity};
use valence::prelude::*;
use valence::protocol::packets::play::ExperienceBarUpdateS2c;
use valence::protocol::sound::SoundCategory;
use valence::protocol::{Sound, VarInt, WritePacket};

use crate::common::body::Dying;
use crate::common::body::{Dead, EYE_HEIGHT};
use crate::common::events::DropExperience;
use crate::config::Config;
use crate::random::generator;
use crate::world::{LayerVoxels, Overworld};
use crate::zombie::{Equipment, Zombie};
pub use record::OrbRecord;
pub use rules::Levels;
use rules::{FOLLOW_RANGE, LIFETIME, ORB, SCAN_EVERY, TAKE_DELAY};

pub struct ExperiencePlugin;

impl Plugin for ExperiencePlugin {
    fn build(&self, app: &mut App) {
        let seed = app.world.resource::<Config>().server.seed;
        app.insert_resource(OrbRng(generator(seed as u64 ^ 0x0e4b_0a11)))
            .add_event::<DropExperience>()
            .add_event::<PlaceOrb>()
            .add_systems(
                Update,
                (bar_for_joining_players, show_kept_bar).in_set(crate::schedule::TickSet::Players),
            )
            .add_systems(
                Update,
                (
                    reward_zombie_kills,
                    drop_the_dead_players_experience,
                    spawn_orbs,
                    move_orbs,
                    collect_orbs,
                )
                    .chain()
                    .in_set(crate::schedule::TickSet::Hunts),
            )
            // After Valence's join and respawn packets, which reset the client's bar.
            .add_systems(
                PostUpdate,
                send_bar.after(UpdateClientsSet).before(FlushPacketsSet),
            );
        save::register(app);
    }
}

/// A player's experience; shown in their bar whenever it changes.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Experience(pub Levels);

/// When a player may take the next orb, and when their chime last rang (vanilla rings it at
/// most every 100 ticks).
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Collector {
    delay: u32,
    chimed_at: Option<i64>,
}

/// Puts back an orb as it was saved.
#[derive(Event, Debug, Clone, Copy)]
pub struct PlaceOrb(pub OrbRecord);

/// An orb in the world, worth `value` points.
#[derive(Component, Debug, Clone, Copy)]
pub struct Orb {
    pub value: u32,
    /// Blocks a tick.
    pub velocity: DVec3,
    pub age: u32,
    following: Option<Entity>,
}

#[derive(Resource)]
struct OrbRng(rand_pcg::Pcg32);

/// A player who joins starts with an empty bar, and collects orbs; the save fills the bar
/// later in the tick for a player it knows.
fn bar_for_joining_players(mut commands: Commands, joined: Query<Entity, Added<Client>>) {
    for player in &joined {
        commands
            .entity(player)
            .insert((Experience::default(), Collector::default()));
    }
}

/// A zombie a player killed gives its reward where it fell.
fn reward_zombie_kills(
    died: Query<(&Position, &Equipment, &Dying), (With<Zombie>, Added<Dying>)>,
    mut drops: EventWriter<DropExperience>,
    mut rng: ResMut<OrbRng>,
) {
    for (pos, equipment, _) in died.iter().filter(|(.., d)| d.killer.is_some()) {
        let worn = equipment.stacks().iter().flatten().count();
        drops.send(DropExperience {
            at: pos.0,
            amount: rules::zombie_reward(worn, &mut rng.0),
        });
    }
}

/// A player who dies drops seven points a level, up to 100, and loses the rest, unless
/// `survival.keep_inventory` (vanilla's `keepInventory` keeps both).
fn drop_the_dead_players_experience(
    mut dead: Query<(&Position, &mut Experience), Added<Dead>>,
    mut drops: EventWriter<DropExperience>,
    config: Res<Config>,
) {
    if config.survival.keep_inventory {
        return;
    }
    for (pos, mut experience) in &mut dead {
        let amount = experience.0.death_drop();
        if amount > 0 {
            drops.send(DropExperience { at: pos.0, amount });
        }
        if experience.0 != Levels::default() {
            experience.0 = Levels::default();
        }
    }
}

fn spawn_orbs(
    mut commands: Commands,
    mut drops: EventReader<DropExperience>,
    mut saved: EventReader<PlaceOrb>,
    layers: Query<Entity, (With<Overworld>, With<EntityLayer>)>,
    mut rng: ResMut<OrbRng>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let dropped: Vec<OrbRecord> = drops
        .iter()
        .flat_map(|drop| {
            rules::orbs(drop.amount)
                .into_iter()
                .map(move |v| (drop.at, v))
        })
        .map(|(pos, value)| OrbRecord {
            value,
            pos,
            velocity: rules::toss(&mut rng.0),
            age: 0,
        })
        .collect();
    for orb in dropped.into_iter().chain(saved.iter().map(|p| p.0)) {
        commands.spawn((
            ExperienceOrbEntityBundle {
                layer: EntityLayerId(layer),
                position: Position(orb.pos),
                // The orb's size on the client.
                object_data: ObjectData(orb.value as i32),
                velocity: Velocity((orb.velocity * 20.0).as_vec3()),
                ..Default::default()
            },
            Orb {
                value: orb.value,
                velocity: orb.velocity,
                age: orb.age,
                following: None,
            },
        ));
    }
}

/// Each tick in a loaded chunk: an orb ages and despawns at its lifetime, looks for the
/// nearest player now and then, is drawn to them, falls and slides.
fn move_orbs(
    mut commands: Commands,
    mut orbs: Query<(Entity, &mut Position, &mut Orb, &mut OnGround), Without<Client>>,
    players: Query<(Entity, &Position, &GameMode), (With<Client>, Without<Dead>)>,
    layers: Query<&ChunkLayer, With<Overworld>>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let world = LayerVoxels::new(layer);
    for (entity, mut pos, mut orb, mut on_ground) in &mut orbs {
        if layer.chunk(ChunkPos::from_pos(pos.0)).is_none() {
            continue;
        }
        orb.age += 1;
        if orb.age >= LIFETIME {
            commands.entity(entity).insert(Despawned);
            continue;
        }
        // A player it follows is kept while within 8 blocks (`scanForEntities`).
        let near = |p: Entity| {
            players
                .get(p)
                .is_ok_and(|(_, at, _)| at.0.distance_squared(pos.0) <= FOLLOW_RANGE * FOLLOW_RANGE)
        };
        if orb.age % SCAN_EVERY == 1 && !orb.following.is_some_and(near) {
            orb.following = players
                .iter()
                .filter(|(_, _, mode)| **mode != GameMode::Spectator)
                .map(|(player, at, _)| (player, at.0.distance_squared(pos.0)))
                .filter(|(_, d2)| *d2 < FOLLOW_RANGE * FOLLOW_RANGE)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(player, _)| player);
        }
        let pull = orb
            .following
            .and_then(|p| players.get(p).ok())
            .filter(|(_, _, mode)| **mode != GameMode::Spectator)
            .map_or(DVec3::ZERO, |(_, feet, _)| {
                rules::pull(pos.0, feet.0, EYE_HEIGHT)
            });
        let velocity = orb.velocity + pull;
        orb.velocity = crate::items::fall(&world, ORB, velocity, &mut pos, &mut on_ground);
    }
}

/// A living player touching an orb takes it, one every 2 ticks, with the pick-up animation
/// (each client plays the orb's pick-up sound itself on that packet).
fn collect_orbs(
    mut commands: Commands,
    orbs: Query<(Entity, &EntityId, &Position, &Orb), Without<Despawned>>,
    mut players: Query<
        (
            Entity,
            &mut Client,
            &EntityId,
            &Position,
            &GameMode,
            &mut Experience,
            &mut Collector,
        ),
        Without<Dead>,
    >,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let now = server.current_tick();
    for (.., mut collector) in &mut players {
        if collector.delay > 0 {
            collector.delay -= 1;
        }
    }
    for (orb, orb_id, orb_pos, value) in &orbs {
        for (player, mut client, player_id, pos, mode, mut experience, mut collector) in
            &mut players
        {
            if collector.delay > 0
                || *mode == GameMode::Spectator
                || !crate::items::rules::within_reach(pos.0, ORB, orb_pos.0)
            {
                continue;
            }
            collector.delay = TAKE_DELAY;
            crate::items::show_pick_up(
                &mut client,
                &mut layer,
                (player, player_id, pos.0),
                orb_id,
                1,
            );
            let before = experience.0.level;
            if experience.0.add(value.value) > 0 {
                let recent = collector.chimed_at.is_some_and(|t| now - t < 100);
                let chime = rules::chime(before, experience.0.level);
                if let Some(volume) = chime.filter(|_| !recent) {
                    collector.chimed_at = Some(now);
                    crate::world::sound::play(
                        &mut layer,
                        Sound::EntityPlayerLevelup,
                        SoundCategory::Player,
                        pos.0,
                        (volume, 1.0),
                        now,
                    );
                }
            }
            commands.entity(orb).insert(Despawned);
            break;
        }
    }
}

/// A client that respawns starts with an empty bar: what the player kept (`keepInventory`)
/// is shown again.
fn show_kept_bar(mut revived: RemovedComponents<Dead>, mut players: Query<&mut Experience>) {
    for entity in revived.iter() {
        if let Ok(mut experience) = players.get_mut(entity) {
            experience.set_changed();
        }
    }
}

fn send_bar(mut players: Query<(&mut Client, Ref<Experience>)>) {
    for (mut client, experience) in &mut players {
        if !experience.is_changed() {
            continue;
        }
        let Levels {
            level,
            progress,
            total,
        } = experience.0;
        client.write_packet(&ExperienceBarUpdateS2c {
            bar: progress,
            level: VarInt(level as i32),
            total_xp: VarInt(total as i32),
        });
    }
}
