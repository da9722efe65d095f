//! Beds, as vanilla 1.20.1's: a right-click on a bed sets the player's respawn point there and
//! lies them down when the sky is dark enough and no zombie is near, with vanilla's messages
//! when not; everyone's action bar counts the sleepers; once enough players
//! (`survival.players_sleeping_percentage` of those not spectating, the dead too, as vanilla
//! counts them) have slept for 100 ticks, the night is skipped ([`SkipNight`]: the clock and
//! the weather take it from there) and everyone wakes. A sleeper who gets up, is hurt, or
//! whose bed is broken, wakes.

pub mod rules;

use bevy_ecs::query::Has;
use bevy_ecs::system::SystemParam;
use valence::client_command::LeaveBedEvent;
use valence::entity::entity::{Flags, Pose};
use valence::entity::living::SleepingPosition;
use valence::entity::EntityId;
use valence::interact_block::InteractBlockEvent;
use valence::inventory::HeldItem;
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::EntityAnimationS2c;
use valence::protocol::{VarInt, WritePacket};

use crate::blocks::support::{horizontal, other_part};
use crate::common::body::{Dead, Dying, RespawnPoint};
use crate::common::events::{DamagePlayer, SkipNight};
use crate::config::Config;
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::Overworld;
use crate::zombie::Zombie;
use rules::{
    keeps_awake, may_sleep, reaches, sleep_status, sleepers_needed, SleepCount, SleepStatus,
    DEEP_SLEEP_TICKS,
};

pub struct SleepPlugin;

impl Plugin for SleepPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<SkipNight>().add_systems(
            Update,
            (use_beds, get_up, skip_the_night, announce_sleepers)
                .chain()
                .in_set(crate::schedule::TickSet::Players),
        );
    }
}

/// A player lying in the bed whose head is at `bed` since tick `since`.
#[derive(Component, Debug, Clone, Copy)]
#[component(storage = "SparseSet")] // comes and goes: kept apart, so the row stays put
pub struct Sleeping {
    pub bed: BlockPos,
    pub since: u64,
}

/// Whether `state` is a bed, and where its head is if it stands at `at`.
fn bed_head(at: BlockPos, state: BlockState) -> Option<BlockPos> {
    if !state.to_kind().to_str().ends_with("_bed") {
        return None;
    }
    let facing = horizontal(state.get(PropName::Facing)?)?;
    Some(match state.get(PropName::Part)? {
        PropValue::Head => at,
        _ => at.get_in_direction(facing),
    })
}

/// Marks both halves of the bed whose head is at `head` occupied or free.
fn occupy(layer: &mut ChunkLayer, head: BlockPos, occupied: bool) {
    let value = if occupied {
        PropValue::True
    } else {
        PropValue::False
    };
    let Some(state) = layer.block(head).map(|b| b.state) else {
        return;
    };
    for at in std::iter::once(head).chain(other_part(head, state)) {
        let half = layer.block(at).map(|b| b.state);
        if let Some(half) = half.filter(|s| bed_head(at, *s).is_some()) {
            let block = Block {
                state: half.set(PropName::Occupied, value),
                nbt: Some(Default::default()),
            };
            layer.set_block(at, block);
        }
    }
}

/// The hour and the weather a sleeper is judged by, and the tick.
#[derive(SystemParam)]
struct Sky<'w> {
    clock: Res<'w, WorldClock>,
    weather: Res<'w, Weather>,
    server: Res<'w, Server>,
}

/// A right-click on a bed, as vanilla's `BedBlock.use` and `startSleepInBed` in their order:
/// too far, obstructed or taken, it refuses; otherwise the respawn point is set there (said in
/// chat when it moves); by day, or with a zombie near for a player not in creative, it
/// refuses with vanilla's message; otherwise the player lies down.
#[allow(clippy::type_complexity)]
fn use_beds(
    mut commands: Commands,
    mut clicks: EventReader<InteractBlockEvent>,
    mut players: Query<
        (
            &mut Client,
            &mut Position,
            &GameMode,
            &Inventory,
            &HeldItem,
            Option<&Flags>,
            Option<&RespawnPoint>,
            Has<Sleeping>,
        ),
        (Without<Dead>, Without<Zombie>),
    >,
    zombies: Query<&Position, (With<Zombie>, Without<Dying>, Without<Client>)>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    sky: Sky,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    for click in clicks.iter() {
        let Some(state) = layer.block(click.position).map(|b| b.state) else {
            continue;
        };
        let Some(head) = bed_head(click.position, state) else {
            continue;
        };
        let Ok((mut client, mut pos, mode, inventory, held, flags, point, asleep)) =
            players.get_mut(click.client)
        else {
            continue;
        };
        let sneaking = flags.is_some_and(|f| f.sneaking());
        let holding = crate::player::holds_anything(inventory, held);
        if !crate::blocks::used_on_click(state.to_kind(), sneaking, holding) || asleep {
            continue; // Sneaking with something in hand places it (`building`).
        }
        let foot = layer
            .block(head)
            .map(|b| b.state)
            .and_then(|s| other_part(head, s));
        let near = reaches(pos.0, head) || foot.is_some_and(|f| reaches(pos.0, f));
        let refuse = |client: &mut Client, key: &str| {
            client.send_action_bar_message(Text::translate(key.to_owned(), Vec::new()));
        };
        if !near {
            refuse(&mut client, "block.minecraft.bed.too_far_away");
            continue;
        }
        let above = layer
            .block(BlockPos::new(head.x, head.y + 1, head.z))
            .map(|b| b.state);
        if above.is_some_and(crate::blocks::support::full_block) {
            refuse(&mut client, "block.minecraft.bed.obstructed");
            continue;
        }
        if state.get(PropName::Occupied) == Some(PropValue::True) {
            refuse(&mut client, "block.minecraft.bed.occupied");
            continue;
        }
        if point != Some(&RespawnPoint::bed(head)) {
            commands
                .entity(click.client)
                .insert(RespawnPoint::bed(head));
            client.send_chat_message(Text::translate("block.minecraft.set_spawn", Vec::new()));
        }
        if !may_sleep(sky.weather.sky.sky_darken(sky.clock.vanilla_time())) {
            refuse(&mut client, "block.minecraft.bed.no_sleep");
            continue;
        }
        if *mode != GameMode::Creative && zombies.iter().any(|z| keeps_awake(head, z.0)) {
            refuse(&mut client, "block.minecraft.bed.not_safe");
            continue;
        }
        pos.0 = DVec3::new(
            head.x as f64 + 0.5,
            head.y as f64 + rules::LYING_HEIGHT,
            head.z as f64 + 0.5,
        );
        occupy(&mut layer, head, true);
        commands.entity(click.client).insert((
            Sleeping {
                bed: head,
                since: sky.server.current_tick() as u64,
            },
            Pose(valence::entity::Pose::Sleeping),
            SleepingPosition(Some(head)),
        ));
    }
}

/// A sleeper, as waking them needs them: their client, entity id, position and bed.
type Sleeper<'a> = (
    Entity,
    &'a mut Client,
    &'a EntityId,
    &'a mut Position,
    &'a Sleeping,
);

/// Wakes a sleeper: up beside the bed, standing, the bed free; their client and everyone near see
/// them get up (the animation vanilla's `stopSleepInBed` sends).
fn wake(
    commands: &mut Commands,
    layer: &mut ChunkLayer,
    (sleeper, client, id, pos, sleeping): Sleeper,
) {
    let bed = sleeping.bed;
    occupy(layer, bed, false);
    let getting_up = |entity_id: i32| EntityAnimationS2c {
        entity_id: VarInt(entity_id),
        animation: 2,
    };
    // The client knows itself as entity 0.
    client.write_packet(&getting_up(0));
    layer
        .view_except_writer(ChunkPos::from_block_pos(bed), sleeper)
        .write_packet(&getting_up(id.get()));
    // Beside the bed as vanilla's `stopSleepInBed` sets them, or on it when walled in.
    pos.0 = crate::player::stand_up::spot(layer, bed, 0.0).unwrap_or(DVec3::new(
        bed.x as f64 + 0.5,
        bed.y as f64 + 1.1,
        bed.z as f64 + 0.5,
    ));
    commands.entity(sleeper).remove::<Sleeping>().insert((
        Pose(valence::entity::Pose::Standing),
        SleepingPosition(None),
    ));
}

/// A sleeper gets up when their client asks ("Leave Bed"), when something hurts them (as
/// vanilla's `hurt` wakes them), when they die, or when their bed is gone.
fn get_up(
    mut commands: Commands,
    mut leaving: EventReader<LeaveBedEvent>,
    mut blows: EventReader<DamagePlayer>,
    mut sleepers: Query<(
        Entity,
        &mut Client,
        &EntityId,
        &mut Position,
        &Sleeping,
        Has<Dead>,
    )>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let asked: Vec<Entity> = leaving
        .iter()
        .map(|e| e.client)
        .chain(blows.iter().filter(|b| b.amount > 0.0).map(|b| b.player))
        .collect();
    for (sleeper, mut client, id, mut pos, sleeping, dead) in &mut sleepers {
        let bed = layer
            .block(sleeping.bed)
            .is_some_and(|b| bed_head(sleeping.bed, b.state).is_some());
        if asked.contains(&sleeper) || dead || !bed {
            let woken = (sleeper, &mut *client, id, &mut *pos, sleeping);
            wake(&mut commands, &mut layer, woken);
        }
    }
}

/// Once enough of the players not spectating have slept 100 ticks, the night is skipped and
/// every sleeper wakes (`ServerLevel.tick` with `SleepStatus`).
fn skip_the_night(
    mut commands: Commands,
    mut sleepers: Query<(Entity, &mut Client, &EntityId, &mut Position, &Sleeping)>,
    players: Query<&GameMode, With<Client>>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut skips: EventWriter<SkipNight>,
    config: Res<Config>,
    server: Res<Server>,
) {
    if sleepers.is_empty() {
        return;
    }
    let now = server.current_tick() as u64;
    let active = players
        .iter()
        .filter(|m| **m != GameMode::Spectator)
        .count() as u32;
    let needed = sleepers_needed(active, config.survival.players_sleeping_percentage);
    let deep = sleepers
        .iter()
        .filter(|(.., s)| now.saturating_sub(s.since) >= DEEP_SLEEP_TICKS)
        .count() as u32;
    if deep < needed {
        return;
    }
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    skips.send(SkipNight);
    for (sleeper, mut client, id, mut pos, sleeping) in &mut sleepers {
        let woken = (sleeper, &mut *client, id, &mut *pos, sleeping);
        wake(&mut commands, &mut layer, woken);
    }
}

/// Tells everyone on the action bar how many sleep of how many must, whenever that changes
/// while someone sleeps or just got up, as vanilla's multiplayer does.
fn announce_sleepers(
    mut players: Query<(&mut Client, &GameMode, Has<Sleeping>)>,
    mut skips: EventReader<SkipNight>,
    config: Res<Config>,
    mut last: Local<SleepCount>,
) {
    let mut now = SleepCount::default();
    for (_, mode, asleep) in &players {
        if *mode != GameMode::Spectator {
            now.active += 1;
            now.sleeping += u32::from(asleep);
        }
    }
    let was = std::mem::replace(&mut *last, now);
    if skips.iter().count() > 0 {
        // Everyone wakes with the night skipped, and vanilla says nothing of it
        // (`wakeUpAllPlayers`): the morning's count starts from nobody asleep.
        last.sleeping = 0;
        return;
    }
    let percentage = config.survival.players_sleeping_percentage;
    let text = match sleep_status(was, now, percentage) {
        None => return,
        Some(SleepStatus::SkippingNight) => Text::translate("sleep.skipping_night", []),
        Some(SleepStatus::Sleeping { sleeping, needed }) => Text::translate(
            "sleep.players_sleeping",
            [
                sleeping.to_string().into_text(),
                needed.to_string().into_text(),
            ],
        ),
    };
    for (mut client, ..) in &mut players {
        client.send_action_bar_message(text.clone());
    }
}
