//! Items on the ground, as vanilla's item entities: what a player digs, throws with `Q` or
//! leaves at death and what a zombie drops lies in the world, falls, floats, merges with its
//! like, is picked up on touch (with the pick-up animation and sound) and despawns after 6000
//! ticks in a loaded chunk. Every drop comes through [`DropItem`]; the rules are in `rules`.

pub mod rules;
pub mod save;

use rand::Rng;
use valence::entity::item::{ItemEntityBundle, Stack};
use valence::entity::{EntityId, OnGround, Velocity};
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::ItemPickupAnimationS2c;
use valence::protocol::{VarInt, WritePacket};

use crate::common::body::Dying;
use crate::common::body::{Dead, EYE_HEIGHT};
use crate::common::events::{DropItem, Thrown};
use crate::common::stacks::{insert, ItemRecord};
use crate::config::Config;
use crate::random::generator;
use crate::world::{LayerVoxels, Overworld, Voxels};
use crate::zombie::gear::EQUIPMENT_DROP_CHANCE;
use crate::zombie::{Equipment, Zombie};
use rules::{LIFETIME, THROWN_PICKUP_DELAY};

pub struct ItemsPlugin;

impl Plugin for ItemsPlugin {
    fn build(&self, app: &mut App) {
        let seed = app.world.resource::<Config>().server.seed;
        app.insert_resource(ItemRng(generator(seed as u64 ^ 0x1732_17e3)))
            .add_event::<DropItem>()
            .add_event::<Thrown>()
            .add_systems(
                Update,
                (
                    throw_from_inventory,
                    drop_the_dead_players_things,
                    drop_zombie_loot,
                    spawn_drops,
                    move_items,
                    merge_items,
                    pick_up,
                )
                    .chain()
                    .in_set(crate::schedule::TickSet::Hunts),
            );
        save::register(app);
    }
}

/// An item lying in the world; its stack is Valence's [`Stack`], shown to every client.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct GroundItem {
    /// Blocks a tick.
    pub velocity: DVec3,
    pub age: u32,
    pub pickup_delay: u32,
}

/// The draws behind every drop's toss.
#[derive(Resource)]
struct ItemRng(rand_pcg::Pcg32);

/// A stack thrown out of an inventory window or with `Q` lands in front of the player.
fn throw_from_inventory(
    mut thrown: EventReader<Thrown>,
    players: Query<(&Position, &Look)>,
    mut drops: EventWriter<DropItem>,
    mut rng: ResMut<ItemRng>,
) {
    for event in thrown.iter() {
        let Ok((pos, look)) = players.get(event.client) else {
            continue;
        };
        let eyes = pos.0 + DVec3::new(0.0, EYE_HEIGHT, 0.0);
        let (at, velocity) = rules::thrown(eyes, look.yaw, look.pitch, &mut rng.0);
        drops.send(DropItem(ItemRecord {
            stack: event.stack.clone(),
            pos: at,
            velocity,
            age: 0,
            pickup_delay: THROWN_PICKUP_DELAY,
        }));
    }
}

/// A player who dies drops everything they carried, flung around them, unless
/// `survival.keep_inventory` (vanilla's `keepInventory`).
fn drop_the_dead_players_things(
    mut dead: Query<(&Position, &mut Inventory), Added<Dead>>,
    mut drops: EventWriter<DropItem>,
    mut rng: ResMut<ItemRng>,
    config: Res<Config>,
) {
    if config.survival.keep_inventory {
        return;
    }
    for (pos, mut inventory) in &mut dead {
        let eyes = pos.0 + DVec3::new(0.0, EYE_HEIGHT, 0.0);
        for slot in 0..inventory.slot_count() {
            let Some(stack) = inventory.replace_slot(slot, None) else {
                continue;
            };
            let (at, velocity) = rules::scattered(eyes, &mut rng.0);
            drops.send(DropItem(ItemRecord {
                stack,
                pos: at,
                velocity,
                age: 0,
                pickup_delay: THROWN_PICKUP_DELAY,
            }));
        }
    }
}

/// A zombie that dies drops its loot where it fell, the rare part and what it wore or held only
/// when a player killed it.
fn drop_zombie_loot(
    died: Query<(&Position, &Equipment, &Dying), (With<Zombie>, Added<Dying>)>,
    mut drops: EventWriter<DropItem>,
    mut rng: ResMut<ItemRng>,
) {
    for (pos, equipment, dying) in &died {
        let by_player = dying.killer.is_some();
        let mut loot = rules::zombie_loot(by_player, &mut rng.0);
        for worn in equipment.stacks().into_iter().flatten() {
            if let Some(damage) =
                rules::equipment_drop(worn.item, by_player, EQUIPMENT_DROP_CHANCE, &mut rng.0)
            {
                let fresh = ItemStack::new(worn.item, 1, None);
                loot.push(crate::player::armour::with_damage(fresh, damage));
            }
        }
        for stack in loot {
            let velocity = DVec3::new(rng.0.gen_range(-0.1..0.1), 0.2, rng.0.gen_range(-0.1..0.1));
            drops.send(DropItem(ItemRecord {
                stack,
                pos: pos.0 + DVec3::new(0.0, 0.5, 0.0),
                velocity,
                age: 0,
                pickup_delay: rules::DIG_PICKUP_DELAY,
            }));
        }
    }
}

fn spawn_drops(
    mut commands: Commands,
    mut drops: EventReader<DropItem>,
    layers: Query<Entity, (With<Overworld>, With<EntityLayer>)>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for DropItem(record) in drops.iter() {
        if record.stack.count() == 0 || record.stack.item == ItemKind::Air {
            continue;
        }
        commands.spawn((
            ItemEntityBundle {
                item_stack: Stack(record.stack.clone()),
                layer: EntityLayerId(layer),
                position: Position(record.pos),
                // Blocks a tick to Valence's blocks a second: the client tosses it as it
                // appears, then follows the server's positions.
                velocity: Velocity((record.velocity * 20.0).as_vec3()),
                ..Default::default()
            },
            GroundItem {
                velocity: record.velocity,
                age: record.age,
                pickup_delay: record.pickup_delay,
            },
        ));
    }
}

/// Each tick in a loaded chunk: an item falls and slides, ages, and despawns at its lifetime.
/// An item in an unloaded chunk waits, as vanilla's does.
fn move_items(
    mut commands: Commands,
    mut items: Query<(Entity, &mut Position, &mut GroundItem, &mut OnGround)>,
    layers: Query<&ChunkLayer, With<Overworld>>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let world = LayerVoxels::new(layer);
    for (entity, mut pos, mut item, mut on_ground) in &mut items {
        if layer.chunk(ChunkPos::from_pos(pos.0)).is_none() {
            continue;
        }
        item.age += 1;
        item.pickup_delay = item.pickup_delay.saturating_sub(1);
        if item.age >= LIFETIME {
            commands.entity(entity).insert(Despawned);
            continue;
        }
        let velocity = item.velocity;
        item.velocity = fall(&world, rules::ITEM, velocity, &mut pos, &mut on_ground);
    }
}

/// One tick of a dropped thing's fall at `velocity` (blocks a tick), for items and orbs:
/// moves `pos` and `on_ground` only when they change, and returns the new velocity, zero once
/// it lies still. A thing at rest on something still there is left as it is.
pub fn fall(
    world: &impl Voxels,
    body: rules::Body,
    velocity: DVec3,
    pos: &mut Mut<Position>,
    on_ground: &mut Mut<OnGround>,
) -> DVec3 {
    let below = BlockPos::from_pos(pos.0 - DVec3::new(0.0, 0.01, 0.0));
    if velocity == DVec3::ZERO && on_ground.0 && world.solid(below) {
        return velocity;
    }
    let (at, velocity, grounded) = rules::step(world, body, pos.0, velocity);
    if pos.0 != at {
        pos.0 = at;
    }
    if on_ground.0 != grounded {
        on_ground.0 = grounded;
    }
    if grounded && velocity.length_squared() < 1e-6 {
        DVec3::ZERO
    } else {
        velocity
    }
}

/// Items of one kind lying together become one stack: a moving item looks every 2 ticks, a
/// resting one every 40 (`ItemEntity.tick`). The larger takes the smaller; the result keeps
/// the younger age and the longer pick-up delay.
fn merge_items(
    mut commands: Commands,
    mut items: Query<(Entity, &Position, &mut Stack, &mut GroundItem), Without<Despawned>>,
) {
    let mut looking: Vec<(Entity, DVec3)> = items
        .iter()
        .filter(|(_, _, _, item)| {
            let every = if item.velocity == DVec3::ZERO { 40 } else { 2 };
            item.age % every == 0
        })
        .map(|(e, pos, _, _)| (e, pos.0))
        .collect();
    if looking.is_empty() {
        return;
    }
    let all: Vec<(Entity, DVec3)> = items.iter().map(|(e, p, _, _)| (e, p.0)).collect();
    let mut gone = Vec::new();
    for (a, a_pos) in looking.drain(..) {
        if gone.contains(&a) {
            continue;
        }
        for &(b, b_pos) in &all {
            if a == b || gone.contains(&b) || !rules::close_enough_to_merge(a_pos, b_pos) {
                continue;
            }
            let Ok([mut one, mut other]) = items.get_many_mut([a, b]) else {
                continue;
            };
            if !rules::mergeable(&one.2 .0, &other.2 .0) {
                continue;
            }
            // The larger stack takes the smaller.
            if one.2 .0.count() < other.2 .0.count() {
                std::mem::swap(&mut one, &mut other);
            }
            let total = one.2 .0.count() + other.2 .0.count();
            one.2 .0.set_count(total);
            one.3.age = one.3.age.min(other.3.age);
            one.3.pickup_delay = one.3.pickup_delay.max(other.3.pickup_delay);
            gone.push(other.0);
            commands.entity(other.0).insert(Despawned);
            if other.0 == a {
                break;
            }
        }
    }
}

/// A living player (not a spectator) touching an item takes what fits in their inventory,
/// with the pick-up animation for everyone around; each client plays the pick-up sound itself
/// on that packet (`ClientPacketListener.handleTakeItemEntity`).
fn pick_up(
    mut commands: Commands,
    mut items: Query<(Entity, &EntityId, &Position, &mut Stack, &GroundItem), Without<Despawned>>,
    mut players: Query<
        (
            Entity,
            &mut Client,
            &EntityId,
            &Position,
            &GameMode,
            &mut Inventory,
        ),
        Without<Dead>,
    >,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    for (item, item_id, item_pos, mut stack, ground) in &mut items {
        if ground.pickup_delay > 0 {
            continue;
        }
        for (player, mut client, player_id, pos, mode, mut inventory) in &mut players {
            if *mode == GameMode::Spectator || !rules::within_reach(pos.0, rules::ITEM, item_pos.0)
            {
                continue;
            }
            let before = stack.0.count();
            let left = insert(&mut inventory, &stack.0);
            if left == before {
                continue;
            }
            show_pick_up(
                &mut client,
                &mut layer,
                (player, player_id, pos.0),
                item_id,
                before - left,
            );
            if left == 0 {
                commands.entity(item).insert(Despawned);
                break;
            }
            stack.0.set_count(left);
        }
    }
}

/// The pick-up animation of `taken` flying into a player, for them and everyone around. The
/// client knows itself as entity 0, everyone else by its id.
pub fn show_pick_up(
    client: &mut Client,
    layer: &mut ChunkLayer,
    (player, player_id, at): (Entity, &EntityId, DVec3),
    taken: &EntityId,
    count: u8,
) {
    let animation = |collector: i32| ItemPickupAnimationS2c {
        collected_entity_id: VarInt(taken.get()),
        collector_entity_id: VarInt(collector),
        pickup_item_count: VarInt(count as i32),
    };
    client.write_packet(&animation(0));
    layer
        .view_except_writer(ChunkPos::from_pos(at), player)
        .write_packet(&animation(player_id.get()));
}
