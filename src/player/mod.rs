//! Players: joining the overworld at the spawn point, health and its packets, damage with the
//! hurt effect, death, the respawn screen and the void. As in vanilla, a player who has just
//! joined or respawned cannot be hurt by mobs for `server.spawn_invulnerable_ticks`, so
//! zombies camping the spawn cannot kill them again and again.
//!
//! Valence has no health logic at all, and real clients (mineflayer included) only consider a
//! player spawned after the first health update, so health is sent on join and on every change.

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::entity::EntityId;
use valence::layer::Layer;
use valence::log::info;
use valence::prelude::*;
use valence::protocol::packets::play::{EntityDamageS2c, HealthUpdateS2c};
use valence::protocol::{VarInt, WritePacket};
use valence::status::RequestRespawnEvent;

use crate::config::{Config, GameModeSetting};
use crate::world::{Overworld, WorldSpawn, MIN_Y};

pub mod commands;

pub struct PlayerPlugin;

impl Plugin for PlayerPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<DamagePlayer>()
            .add_event::<PlayerKill>()
            .add_systems(
                Update,
                (
                    join_players,
                    place_waiting_players,
                    limit_view_distance,
                    void_damage,
                    apply_damage,
                    count_kills,
                    respawn_players,
                    despawn_disconnected_clients,
                )
                    .chain()
                    .in_set(crate::TickSet::Players),
            )
            // After Valence's respawn packet: a client resets its health when it respawns.
            .add_systems(
                PostUpdate,
                send_health.after(UpdateClientsSet).before(FlushPacketsSet),
            );
    }
}

/// Full health, as vanilla.
pub const MAX_HEALTH: f32 = 20.0;
/// A standing player's eyes above their feet: where they reach from and are seen at.
pub const EYE_HEIGHT: f64 = 1.62;
/// Vanilla's void: 4 damage each tick below `MIN_Y - 64`.
const VOID_DEPTH: f64 = 64.0;
const VOID_DAMAGE: f32 = 4.0;

/// Players zombies may hunt: alive and in survival or adventure.
pub fn huntable(mode: &GameMode) -> bool {
    matches!(mode, GameMode::Survival | GameMode::Adventure)
}

/// A player's health in half hearts.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Health(pub f32);

/// A player's blow killed `victim`. Announced by whoever resolves the blow (the zombie
/// attack); players count their kills from it, hunts their round's.
#[derive(Event, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerKill {
    pub player: Entity,
    pub victim: Entity,
}

/// What a player has killed, for `list`.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kills(pub u32);

/// The player is on the death screen.
#[derive(Component, Debug)]
pub struct Dead;

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
struct AwaitingSpawn;

/// Hurts a player; death follows at zero health.
#[derive(Event, Debug, Clone, Copy)]
pub struct DamagePlayer {
    pub player: Entity,
    pub amount: f32,
    pub cause: DamageCause,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DamageCause {
    /// Fell below the world.
    Void,
    /// An operator's `damage` or `kill` command.
    Command,
    /// Struck by an entity (its raw entity id).
    Mob(i32),
}

impl DamageCause {
    /// Index in the 1.20.1 `damage_type` registry, which picks the client's effect.
    fn type_id(self) -> i32 {
        match self {
            DamageCause::Void => 29,
            DamageCause::Command => 16,
            DamageCause::Mob(_) => 25,
        }
    }

    fn death_message(self, name: &str) -> String {
        match self {
            DamageCause::Void => format!("{name} fell out of the world"),
            DamageCause::Command => format!("{name} died"),
            DamageCause::Mob(_) => format!("{name} was slain by a zombie"),
        }
    }
}

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

fn void_damage(
    players: Query<(Entity, &Position), (Without<Dead>, Without<AwaitingSpawn>, With<Health>)>,
    mut damage: EventWriter<DamagePlayer>,
) {
    for (player, pos) in &players {
        if pos.0.y < MIN_Y as f64 - VOID_DEPTH {
            damage.send(DamagePlayer {
                player,
                amount: VOID_DAMAGE,
                cause: DamageCause::Void,
            });
        }
    }
}

fn apply_damage(
    mut commands: Commands,
    mut events: EventReader<DamagePlayer>,
    mut players: Query<
        (
            &mut Client,
            &mut Health,
            &EntityId,
            &Position,
            &Username,
            Option<&SpawnProtection>,
        ),
        Without<Dead>,
    >,
    mut layers: Query<&mut EntityLayer, With<Overworld>>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for event in events.iter() {
        let Ok((mut client, mut health, id, pos, name, protection)) = players.get_mut(event.player)
        else {
            continue;
        };
        if health.0 <= 0.0 || protection.is_some_and(|p| p.shields(event.cause, now)) {
            continue;
        }
        health.0 = (health.0 - event.amount).max(0.0);
        let source = match event.cause {
            DamageCause::Mob(attacker) => attacker + 1,
            _ => 0,
        };
        let hurt = |entity_id: i32| EntityDamageS2c {
            entity_id: VarInt(entity_id),
            source_type_id: VarInt(event.cause.type_id()),
            source_cause_id: VarInt(source),
            source_direct_id: VarInt(source),
            source_pos: None,
        };
        // The client knows its own entity as id 0; everyone else sees the real id.
        client.write_packet(&hurt(0));
        if let Ok(mut layer) = layers.get_single_mut() {
            layer
                .view_except_writer(ChunkPos::from_pos(pos.0), event.player)
                .write_packet(&hurt(id.get()));
        }
        if health.0 <= 0.0 {
            let message = event.cause.death_message(&name.0);
            info!("{message}");
            client.kill(message);
            commands.entity(event.player).insert(Dead);
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

fn respawn_players(
    mut commands: Commands,
    mut events: EventReader<RequestRespawnEvent>,
    mut players: Query<(&mut Health, &mut Position, &mut VisibleChunkLayer), With<Dead>>,
    spawn: Res<WorldSpawn>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for event in events.iter() {
        let Ok((mut health, mut pos, mut chunks)) = players.get_mut(event.client) else {
            continue;
        };
        let at = spawn.pos.unwrap_or(pos.0);
        // A teleport to the very same spot is not sent, and the respawned client needs one.
        pos.0 = if pos.0 == at {
            at + DVec3::new(0.0, 0.01, 0.0)
        } else {
            at
        };
        health.0 = MAX_HEALTH;
        // Marking the layer changed makes Valence send the respawn packet that closes the
        // death screen; the chunks stay, since the layer is the same.
        chunks.set_changed();
        commands
            .entity(event.client)
            .remove::<Dead>()
            .insert(SpawnProtection::from(now, &config));
    }
}

fn send_health(mut players: Query<(&mut Client, &Health), Changed<Health>>) {
    for (mut client, health) in &mut players {
        client.write_packet(&HealthUpdateS2c {
            health: health.0,
            food: VarInt(20),
            food_saturation: 5.0,
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
