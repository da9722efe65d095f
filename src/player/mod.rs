//! Players: joining the overworld at the spawn point, their body (`damage`: what a blow takes;
//! `armour`; `charge`: the attack cooldown; `hotbar`: the slot held; `effects`; `hazards`: falls,
//! drowning, fire, suffocation, the void; `hunger`: food, healing
//! and starving), health and food and their packets, death, the respawn screen. As in
//! vanilla, a player who has just joined or respawned cannot be hurt by mobs for
//! `server.spawn_invulnerable_ticks`, so zombies camping the spawn cannot kill them again and
//! again.
//!
//! Valence has no health logic at all, and real clients (mineflayer included) only consider a
//! player spawned after the first health update, so health is sent on join and on every change.

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::entity::entity::Air;
use valence::log::info;
use valence::prelude::*;
use valence::protocol::packets::play::game_state_change_s2c::GameEventKind;
use valence::protocol::packets::play::{
    DifficultyS2c, GameStateChangeS2c, HealthUpdateS2c, UpdateSelectedSlotS2c,
};
use valence::protocol::{VarInt, WritePacket};
use valence::status::RequestRespawnEvent;

use crate::common::body::{Dead, RespawnPoint};
use crate::common::events::{DamageCause, DamagePlayer, PlayerKill};
use crate::common::stacks::HOTBAR;
use crate::config::{Config, GameModeSetting};
use crate::world::{Overworld, WorldSpawn, MIN_Y};

pub mod armour;
pub mod charge;
pub mod commands;
pub mod damage;
pub mod eating;
pub mod effects;
pub mod hazards;
mod hotbar;
pub mod hunger;
pub mod save;
pub mod stand_up;
pub mod wear;

use damage::LastBlow;
use hazards::{Exposure, MAX_AIR};
use hunger::{Exhaust, Food};

pub struct PlayerPlugin;

impl Plugin for PlayerPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<DamagePlayer>()
            .add_event::<PlayerKill>()
            .add_event::<Exhaust>()
            .add_event::<wear::WearItem>()
            .add_systems(
                Update,
                (
                    join_players,
                    place_waiting_players,
                    limit_view_distance,
                    hazards::falls,
                    hazards::hazards,
                    damage::apply_damage,
                    wear::wear_items,
                    eating::start_and_stop,
                    eating::eat,
                    hunger::tire_by_moving,
                    hunger::tick_food,
                    armour::show_equipment,
                    armour::equip_sounds,
                    effects::tick_effects,
                    charge::recharge_on_switch,
                    count_kills,
                    respawn_players,
                    resend_kept_belongings,
                    despawn_disconnected_clients,
                    show_difficulty,
                )
                    .chain()
                    .in_set(crate::schedule::TickSet::Players),
            )
            .add_systems(EventLoopPreUpdate, hotbar::reread_selected_slot)
            // After Valence's respawn packet: a client resets its health when it respawns.
            .add_systems(
                PostUpdate,
                send_health.after(UpdateClientsSet).before(FlushPacketsSet),
            );
        save::register(app);
        effects::register(app);
    }
}

/// The off-hand slot of a player's inventory.
pub const OFF_HAND: u16 = 45;

/// Whether a player has something in either hand: a right-click while sneaking then places it
/// rather than using the block clicked.
pub fn holds_anything(inventory: &Inventory, held: &valence::inventory::HeldItem) -> bool {
    inventory.slot(held.slot()).is_some() || inventory.slot(OFF_HAND).is_some()
}

/// Full health, as vanilla.
pub const MAX_HEALTH: f32 = 20.0;
/// A player's health in half hearts.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Health(pub f32);

/// What a player has killed, for `list`.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kills(pub u32);

/// Mobs cannot hurt the player before this tick (vanilla's `spawnInvulnerableTime`).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnProtection {
    pub until: u64,
}

impl SpawnProtection {
    fn from(now: u64, config: &Config) -> Self {
        Self {
            until: now + config.server.spawn_invulnerable_ticks,
        }
    }

    /// Whether `cause` is kept off at `now`. The void and operators' commands bypass it, as
    /// vanilla's `bypasses_invulnerability` damage types do.
    pub fn shields(&self, cause: DamageCause, now: u64) -> bool {
        now < self.until && matches!(cause, DamageCause::Mob(_))
    }
}

/// Joined before the spawn point was known; placed as soon as it is.
#[derive(Component, Debug)]
pub(crate) struct AwaitingSpawn;

fn join_players(
    mut commands: Commands,
    mut clients: Query<
        (
            Entity,
            &Username,
            &mut EntityLayerId,
            &mut VisibleChunkLayer,
            &mut VisibleEntityLayers,
            &mut Position,
            &mut GameMode,
        ),
        Added<Client>,
    >,
    layers: Query<Entity, With<Overworld>>,
    spawn: Res<WorldSpawn>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let now = server.current_tick() as u64;
    for (entity, name, mut layer_id, mut chunks, mut entities, mut pos, mut mode) in &mut clients {
        layer_id.0 = layer;
        chunks.0 = layer;
        entities.0.insert(layer);
        *mode = match config.server.game_mode {
            GameModeSetting::Survival => GameMode::Survival,
            GameModeSetting::Adventure => GameMode::Adventure,
        };
        let mut player = commands.entity(entity);
        player.insert((
            Health(MAX_HEALTH),
            Food::default(),
            Exposure::default(),
            LastBlow::default(),
            charge::Charge::default(),
            armour::Worn::default(),
            effects::Effects::default(),
            Kills::default(),
            SpawnProtection::from(now, &config),
        ));
        match spawn.pos {
            Some(at) => pos.0 = at,
            None => {
                pos.0 = DVec3::new(0.5, (MIN_Y + 400) as f64, 0.5);
                player.insert(AwaitingSpawn);
            }
        }
        info!("{} joined", name.0);
    }
}

fn place_waiting_players(
    mut commands: Commands,
    mut waiting: Query<(Entity, &mut Position), With<AwaitingSpawn>>,
    spawn: Res<WorldSpawn>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let Some(at) = spawn.pos else {
        return;
    };
    let now = server.current_tick() as u64;
    for (entity, mut pos) in &mut waiting {
        pos.0 = at;
        // The protection counts from arriving at the spawn, not from waiting for it.
        commands
            .entity(entity)
            .remove::<AwaitingSpawn>()
            .insert(SpawnProtection::from(now, &config));
    }
}

/// Clients ask for up to 32 chunks; the server grants at most `server.view_distance`.
fn limit_view_distance(
    mut clients: Query<&mut ViewDistance, Changed<ViewDistance>>,
    config: Res<Config>,
) {
    for mut view in &mut clients {
        if view.get() > config.server.view_distance {
            view.set(config.server.view_distance);
        }
    }
}

fn count_kills(mut kills: EventReader<PlayerKill>, mut players: Query<&mut Kills>) {
    for kill in kills.iter() {
        if let Ok(mut count) = players.get_mut(kill.player) {
            count.0 += 1;
        }
    }
}

/// Where a player with this respawn point comes back: where they get up from the bed
/// ([`stand_up::spot`]; horde keeps vanilla's respawn angle at 0); `None` when the bed is gone
/// or walled in.
fn bed_spot(layer: &ChunkLayer, point: BlockPos) -> Option<DVec3> {
    let bed = layer.block(point)?.state;
    if !bed.to_kind().to_str().ends_with("_bed") {
        return None;
    }
    stand_up::spot(layer, point, 0.0)
}

/// Where a player whose point was set without a bed stands up: on it, if it and the block
/// above are free (vanilla's `isSpawnableSpace`), 0.1 above its floor.
fn free_spot(layer: &ChunkLayer, point: BlockPos) -> Option<DVec3> {
    let free = |y: i32| {
        layer
            .block(BlockPos::new(point.x, y, point.z))
            .is_some_and(|b| b.state.collision_shapes().len() == 0 && !b.state.is_liquid())
    };
    (free(point.y) && free(point.y + 1)).then(|| {
        DVec3::new(
            point.x as f64 + 0.5,
            point.y as f64 + 0.1,
            point.z as f64 + 0.5,
        )
    })
}

/// Tells each joining client the difficulty (which its options screen shows), and every
/// client when an operator changes it.
fn show_difficulty(
    mut changes: EventReader<crate::config::ConfigChanged>,
    config: Res<Config>,
    mut clients: Query<&mut Client>,
) {
    let changed = changes
        .iter()
        .any(|c| c.keys.iter().any(|k| k == "server.difficulty"));
    let difficulty = match config.server.difficulty {
        crate::config::Difficulty::Easy => valence::protocol::Difficulty::Easy,
        crate::config::Difficulty::Normal => valence::protocol::Difficulty::Normal,
        crate::config::Difficulty::Hard => valence::protocol::Difficulty::Hard,
    };
    for mut client in &mut clients {
        if changed || client.is_added() {
            client.write_packet(&DifficultyS2c {
                difficulty,
                locked: false,
            });
        }
    }
}

/// A dead player who asks to respawn comes back at their bed, or at the world spawn when it
/// is gone or blocked (then told so, as vanilla tells it, and the point forgotten).
#[allow(clippy::type_complexity)]
fn respawn_players(
    mut commands: Commands,
    mut events: EventReader<RequestRespawnEvent>,
    mut players: Query<
        (
            &mut Client,
            &mut Health,
            &mut Food,
            &mut Exposure,
            &mut Air,
            &mut Position,
            &mut VisibleChunkLayer,
            Option<&RespawnPoint>,
        ),
        With<Dead>,
    >,
    layers: Query<&ChunkLayer, With<Overworld>>,
    spawn: Res<WorldSpawn>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for event in events.iter() {
        let Ok((
            mut client,
            mut health,
            mut food,
            mut exposure,
            mut air,
            mut pos,
            mut chunks,
            point,
        )) = players.get_mut(event.client)
        else {
            continue;
        };
        let bed = point.and_then(|p| {
            let layer = layers.get_single().ok()?;
            bed_spot(layer, p.at).or_else(|| p.forced.then(|| free_spot(layer, p.at)).flatten())
        });
        if point.is_some() && bed.is_none() {
            // The client says "You have no home bed..." itself (vanilla's `PlayerList.respawn`).
            client.write_packet(&GameStateChangeS2c {
                kind: GameEventKind::NoRespawnBlockAvailable,
                value: 0.0,
            });
            commands.entity(event.client).remove::<RespawnPoint>();
        }
        let at = bed.or(spawn.pos).unwrap_or(pos.0);
        // A teleport to the very same spot is not sent, and the respawned client needs one.
        pos.0 = if pos.0 == at {
            at + DVec3::new(0.0, 0.01, 0.0)
        } else {
            at
        };
        // A new body: full health, vanilla's fresh food, air, no fire.
        health.0 = MAX_HEALTH;
        *food = Food::default();
        *exposure = Exposure::default();
        air.0 = MAX_AIR;
        // Marking the layer changed makes Valence send the respawn packet that closes the
        // death screen; the chunks stay, since the layer is the same.
        chunks.set_changed();
        commands
            .entity(event.client)
            .remove::<Dead>()
            .insert(SpawnProtection::from(now, &config));
    }
}

/// A client that respawns starts with an empty inventory on its first hotbar slot (vanilla's
/// `PlayerList.respawn` sends them again): what the player kept (`keepInventory`) is sent
/// again, and the slot they hold.
fn resend_kept_belongings(
    mut revived: RemovedComponents<Dead>,
    mut players: Query<(&mut Client, &mut Inventory, &valence::inventory::HeldItem)>,
) {
    for entity in revived.iter() {
        let Ok((mut client, mut inventory, held)) = players.get_mut(entity) else {
            continue;
        };
        for slot in 0..inventory.slot_count() {
            // Taken out and put back: the slot is sent again as it is.
            if let Some(stack) = inventory.replace_slot(slot, None) {
                inventory.set_slot(slot, stack);
            }
        }
        client.write_packet(&UpdateSelectedSlotS2c {
            slot: held.slot().saturating_sub(HOTBAR.start) as u8,
        });
    }
}

fn send_health(
    mut players: Query<(&mut Client, &Health, Option<&Food>), Or<(Changed<Health>, Changed<Food>)>>,
) {
    for (mut client, health, food) in &mut players {
        let food = food.copied().unwrap_or_default();
        client.write_packet(&HealthUpdateS2c {
            health: health.0,
            food: VarInt(food.level as i32),
            food_saturation: food.saturation,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_protection_keeps_off_mobs_for_its_ticks_only() {
        let config = Config::default();
        let p = SpawnProtection::from(100, &config);
        assert!(p.shields(DamageCause::Mob(7), 100));
        assert!(p.shields(DamageCause::Mob(7), 159));
        assert!(!p.shields(DamageCause::Mob(7), 160), "60 ticks, as vanilla");
        assert!(!p.shields(DamageCause::Void, 120), "the void bypasses it");
        assert!(!p.shields(DamageCause::Command, 120), "so does an operator");
    }
}
