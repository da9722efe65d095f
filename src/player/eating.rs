//! Eating, as vanilla's: holding use with a food item eats it in its time (32 ticks for most,
//! 16 for dried kelp, 40 for honey), with the chewing sound every 4 ticks after the first 7;
//! letting go or switching items stops it. A hungry player eats anything, a full one only
//! what vanilla lets them (golden apples, chorus fruit, suspicious stew); creative players eat
//! without spending the item.

use rand::Rng;
use valence::event_loop::PacketEvent;
use valence::interact_item::InteractItemEvent;
use valence::inventory::HeldItem;
use valence::prelude::*;
use valence::protocol::packets::play::player_action_c2s::PlayerAction;
use valence::protocol::packets::play::{EntityStatusS2c, PlayerActionC2s};
use valence::protocol::sound::SoundCategory;
use valence::protocol::{Hand, Sound, WritePacket};

use super::effects::{self, Active, Effect, Effects};
use super::hunger::{food_of, rotten_flesh_hungers, Food, MAX_FOOD, ROTTEN_FLESH_HUNGER};
use super::OFF_HAND;
use crate::common::body::{Dead, EYE_HEIGHT};
use crate::random::{generator, mix};
use crate::world::Overworld;

/// The entity status that tells a client it finished using its item (`EntityEvent.USE_ITEM_COMPLETE`).
const USE_ITEM_COMPLETE: u8 = 9;
/// The chewing sound starts once this many ticks are left of a 32-tick meal and plays every
/// 4 ticks (`LivingEntity.shouldTriggerItemUseEffects`).
const CHEW_FROM: u32 = 25;

/// A player eating the item in `slot` until tick `done`.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[component(storage = "SparseSet")] // comes and goes: kept apart, so the row stays put
pub struct Eating {
    slot: u16,
    item: ItemKind,
    done: u64,
}

/// Use held with a food item starts a meal; a release stops it.
pub(super) fn start_and_stop(
    mut commands: Commands,
    mut uses: EventReader<InteractItemEvent>,
    mut packets: EventReader<PacketEvent>,
    players: Query<(&Inventory, &HeldItem, &Food, &GameMode), Without<Dead>>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for used in uses.iter() {
        let Ok((inventory, held, food, mode)) = players.get(used.client) else {
            continue;
        };
        let slot = match used.hand {
            Hand::Main => held.slot(),
            Hand::Off => OFF_HAND,
        };
        let Some(item) = inventory.slot(slot).map(|s| s.item) else {
            continue;
        };
        let Some((_, _, ticks, always)) = food_of(item) else {
            continue;
        };
        let hungry = food.level < MAX_FOOD || *mode == GameMode::Creative;
        if hungry || always {
            commands.entity(used.client).insert(Eating {
                slot,
                item,
                done: now + ticks as u64,
            });
        }
    }
    for packet in packets.iter() {
        if packet
            .decode::<PlayerActionC2s>()
            .is_some_and(|a| a.action == PlayerAction::ReleaseUseItem)
        {
            if let Some(mut player) = commands.get_entity(packet.client) {
                player.remove::<Eating>();
            }
        }
    }
}

/// Each tick of a meal: the chewing sound, and at its end the food, the item spent, the burp.
pub(super) fn eat(
    mut commands: Commands,
    mut eaters: Query<(
        Entity,
        &mut Client,
        &Position,
        &Eating,
        &HeldItem,
        &mut Inventory,
        &mut Food,
        &mut Effects,
        &GameMode,
    )>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let now = server.current_tick() as u64;
    for (player, mut client, pos, eating, held, mut inventory, mut food, mut effects, mode) in
        &mut eaters
    {
        let still_held = (eating.slot == held.slot() || eating.slot == OFF_HAND)
            && inventory
                .slot(eating.slot)
                .is_some_and(|s| s.item == eating.item);
        if !still_held {
            commands.entity(player).remove::<Eating>();
            continue;
        }
        let mut rng = generator(mix(now ^ player.to_bits()));
        let mouth = pos.0 + DVec3::new(0.0, EYE_HEIGHT, 0.0);
        let left = eating.done.saturating_sub(now) as u32;
        if left > 0 {
            if left <= CHEW_FROM && left.is_multiple_of(4) {
                // `LivingEntity.triggerItemUseEffects`: 0.5 + 0.5 * (0 or 1) loud.
                let volume = 0.5 + 0.5 * rng.gen_range(0..2) as f32;
                let pitch = (rng.gen::<f32>() - rng.gen::<f32>()) * 0.2 + 1.0;
                let seed = rng.gen();
                let sound = Sound::EntityGenericEat;
                let at = (volume, pitch);
                crate::world::sound::play(
                    &mut layer,
                    sound,
                    SoundCategory::Player,
                    mouth,
                    at,
                    seed,
                );
            }
            continue;
        }
        commands.entity(player).remove::<Eating>();
        let Some((points, modifier, _, _)) = food_of(eating.item) else {
            continue;
        };
        food.eat(points, modifier);
        if eating.item == ItemKind::RottenFlesh && rotten_flesh_hungers(&mut rng) {
            let hunger = Active {
                effect: Effect::Hunger,
                amplifier: 0,
                duration: ROTTEN_FLESH_HUNGER.1,
            };
            if effects.give(hunger) {
                effects::show(&mut client, hunger);
            }
        }
        if *mode != GameMode::Creative {
            let count = inventory.slot(eating.slot).map_or(0, |s| s.count());
            if count > 1 {
                inventory.set_slot_amount(eating.slot, count - 1);
            } else {
                inventory.set_slot(eating.slot, container(eating.item));
            }
        }
        finish(&mut client, &mut layer, mouth, &mut rng);
    }
}

/// What is left in the hand of a last one eaten: the bowl of a stew, the bottle of honey.
fn container(item: ItemKind) -> Option<ItemStack> {
    let left = match item {
        ItemKind::MushroomStew
        | ItemKind::BeetrootSoup
        | ItemKind::RabbitStew
        | ItemKind::SuspiciousStew => ItemKind::Bowl,
        ItemKind::HoneyBottle => ItemKind::GlassBottle,
        _ => return None,
    };
    Some(ItemStack::new(left, 1, None))
}

/// The end of a meal as every client hears and its eater sees it: the burp, and the status
/// that stops the eating animation (the client knows itself as entity 0).
fn finish(client: &mut Client, layer: &mut ChunkLayer, mouth: DVec3, rng: &mut impl Rng) {
    client.write_packet(&EntityStatusS2c {
        entity_id: 0,
        entity_status: USE_ITEM_COMPLETE,
    });
    // `Player.eat`: 0.5 loud, pitch 0.9-1.0.
    let pitch = rng.gen::<f32>() * 0.1 + 0.9;
    let seed = rng.gen();
    crate::world::sound::play(
        layer,
        Sound::EntityPlayerBurp,
        SoundCategory::Player,
        mouth,
        (0.5, pitch),
        seed,
    );
}
