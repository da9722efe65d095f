//! Players change the world: survival players dig blocks (within reach, no sooner than the
//! block's hardness and their tool allow, the drop falling on the ground as an item), place blocks turned as vanilla turns them, and open and close
//! doors; creative players break at once and lose no items. An edit reaches every client
//! through the layer and is announced with [`BlocksChanged`], so that zombies' paths and the
//! light see it the tick it happens. A refused action sends the player the true blocks
//! (Valence acknowledges the action's sequence), so no client keeps a block the server lacks.
//!
//! The rules are in `rules`; the block facts they need (hardness, tools, drops) are
//! [`crate::blocks`]'.

pub mod rules;

use bevy_ecs::event::ManualEventReader;
use bevy_ecs::query::Has;
use bevy_ecs::system::SystemParam;
use valence::entity::entity::Flags;
use valence::interact_block::InteractBlockEvent;
use valence::inventory::HeldItem;
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::BlockUpdateS2c;
use valence::protocol::{Direction, Hand, VarInt, WritePacket};

use crate::access::{Kicked, Operator};
use crate::blocks::support::{other_part, stays};
use crate::blocks::{breakable, centre, dig_progress, drop, hardness, is_sign, used_on_click};
use crate::common::body::Dead;
use crate::common::events::{DropExperience, DropItem};
use crate::common::events::{Noise, NoiseKind};
use crate::common::stacks::ItemRecord;
use crate::items::rules::{popped, DIG_PICKUP_DELAY};
use crate::menu::furnaces::owed;
use crate::menu::smelting::payout;
use crate::player::wear::{from_digging, WearItem};
use crate::player::OFF_HAND;
use crate::random::{generator, mix};
use crate::sign::EditSign;
use crate::world::block_entities::{client_view, fresh, items_of, kept, BlockEntities};
use crate::world::door::{is_door, other_half};
use crate::world::sound::{block_sounds, door_sound, level_event, play_except, BLOCK_BROKEN};
use crate::world::{BlocksChanged, Overworld, SpawnGuard, HEIGHT, MIN_Y};
use crate::zombie::body::{BODY_HEIGHT, HALF_WIDTH};
use crate::zombie::Zombie;
use rules::{
    attach, chest_partner, chest_placed, dig_done, door_hinge, eyes, in_reach, looking,
    nearest_looking, placed_state, second_half, tool_use,
};
use valence::nbt::Compound;

pub struct BuildingPlugin;

impl Plugin for BuildingPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            (dig, place, pop_unsupported)
                .chain()
                .after(crate::sign::SignSet::Use)
                .before(crate::sign::SignSet::Edit)
                .in_set(crate::schedule::TickSet::Players),
        );
    }
}

/// A survival player digging the block at `at` since tick `since`.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[component(storage = "SparseSet")] // comes and goes: kept apart, so the row stays put
struct Digging {
    at: BlockPos,
    since: u64,
}

/// A player's box, for not placing a block inside someone.
const PLAYER_HALF_WIDTH: f64 = 0.3;
const PLAYER_HEIGHT: f64 = 1.8;

/// The overworld as players change it: its blocks, and what each edit tells the rest of the
/// game (the edit, for zombies' paths and the light; the noise, for zombies near).
#[derive(SystemParam)]
struct Edits<'w, 's> {
    layers: Query<'w, 's, &'static mut ChunkLayer, With<Overworld>>,
    entities: ResMut<'w, BlockEntities>,
    changed: EventWriter<'w, BlocksChanged>,
    noises: EventWriter<'w, Noise>,
    /// A sign placed is written on by its placer.
    signs: EventWriter<'w, EditSign>,
}

/// What a broken block leaves behind: its items, and a furnace's experience.
#[derive(SystemParam)]
struct Spills<'w> {
    items: EventWriter<'w, DropItem>,
    experience: EventWriter<'w, DropExperience>,
}

/// What a player's edit is judged by: spawn protection and the tick, which dig times are
/// counted in.
#[derive(SystemParam)]
struct Judge<'w> {
    guard: SpawnGuard<'w>,
    server: Res<'w, Server>,
}

impl Judge<'_> {
    /// The tick being played.
    fn now(&self) -> u64 {
        self.server.current_tick() as u64
    }

    /// Whether `at` is under spawn protection (for players who are not operators).
    fn guarded(&self, at: BlockPos) -> bool {
        self.guard.protects(at)
    }
}

fn dig(
    mut commands: Commands,
    mut events: EventReader<DiggingEvent>,
    mut players: Query<
        (
            &mut Client,
            &Position,
            &GameMode,
            &Inventory,
            &HeldItem,
            Option<&Digging>,
            Has<Operator>,
        ),
        (Without<Dead>, Without<Kicked>),
    >,
    mut edits: Edits,
    mut spills: Spills,
    mut wears: EventWriter<WearItem>,
    judge: Judge,
) {
    let Ok(mut layer) = edits.layers.get_single_mut() else {
        return;
    };
    let now = judge.now();
    for event in events.iter() {
        let Ok((mut client, pos, mode, inventory, held, digging, op)) =
            players.get_mut(event.client)
        else {
            continue;
        };
        let at = event.position;
        let guarded = !op && judge.guarded(at);
        let Some(state) = layer.block(at).map(|b| b.state) else {
            continue; // Not loaded: nothing to dig or to show.
        };
        let kind = state.to_kind();
        let tool = inventory
            .slot(held.slot())
            .map_or(ItemKind::Air, |stack| stack.item);
        // Within spawn protection a dig is refused as one out of reach is.
        let reach = in_reach(eyes(pos.0), at) && !guarded;
        let broken = match (event.state, *mode) {
            (DiggingState::Start, GameMode::Creative) => reach && !state.is_air(),
            (DiggingState::Start, GameMode::Survival) if reach && breakable(kind) => {
                edits.noises.send(Noise {
                    at: centre(at),
                    kind: NoiseKind::Dig,
                });
                if dig_progress(kind, tool) >= 1.0 {
                    true
                } else {
                    commands
                        .entity(event.client)
                        .insert(Digging { at, since: now });
                    continue;
                }
            }
            (DiggingState::Abort, _) => {
                commands.entity(event.client).remove::<Digging>();
                continue;
            }
            (DiggingState::Stop, GameMode::Survival) => {
                commands.entity(event.client).remove::<Digging>();
                let ticks = digging
                    .filter(|d| d.at == at)
                    .map(|d| now.saturating_sub(d.since));
                reach
                    && breakable(kind)
                    && ticks.is_some_and(|t| dig_done(dig_progress(kind, tool), t))
            }
            _ => false,
        };
        if !broken {
            // Refused (out of reach, too soon, unbreakable, adventure): the true block back.
            resend(&mut client, at, state);
            continue;
        }
        // What a container held falls where it stood, whoever broke it
        // (`Containers.dropContents`); the other half of a double chest is a chest alone.
        if let Some(stored) = edits.entities.remove(at) {
            let mut draws = draws_at(at, now);
            for (_, stack) in items_of(&stored) {
                pop_out(&mut spills.items, at, stack, &mut draws);
            }
            // A furnace pays what it owes when broken, as when its output is taken.
            let amount = payout(owed(&stored), &mut draws);
            if amount > 0 {
                let at = centre(at);
                spills.experience.send(DropExperience { at, amount });
            }
        }
        if let Some(d) = chest_partner(state) {
            let other = at.get_in_direction(d);
            if let Some(theirs) = layer.block(other).map(|b| b.state) {
                if theirs.to_kind() == kind {
                    let alone = theirs.set(PropName::Type, PropValue::Single);
                    layer.set_block(other, with_entity(alone));
                    edits.changed.send(BlocksChanged::between(other, other));
                }
            }
        }
        layer.set_block(at, BlockState::AIR);
        edits.noises.send(Noise {
            at: centre(at),
            kind: NoiseKind::Dig,
        });
        // Everyone else hears it break and sees it crumble; the digger's client already did.
        level_event(
            layer.view_except_writer(ChunkPos::from_block_pos(at), event.client),
            BLOCK_BROKEN,
            at,
            state.to_raw() as i32,
        );
        let mut change = BlocksChanged::between(at, at);
        if let Some(other) = other_part(at, state) {
            // The other half of a door or a bed goes with it.
            if layer
                .block(other)
                .is_some_and(|b| b.state.to_kind() == kind)
            {
                layer.set_block(other, BlockState::AIR);
                change = BlocksChanged::between(at, other);
            }
        }
        edits.changed.send(change);
        if *mode == GameMode::Survival {
            let amount = from_digging(tool, hardness(kind));
            if amount > 0 {
                wears.send(WearItem {
                    player: event.client,
                    slot: held.slot(),
                    item: tool,
                    amount,
                });
            }
            if let Some(item) = drop(kind, tool) {
                let stack = ItemStack::new(item, 1, None);
                pop_out(&mut spills.items, at, stack, &mut draws_at(at, now));
            }
        }
    }
}

/// Where in a block and how its items are tossed: drawn from the place and the tick.
fn draws_at(at: BlockPos, now: u64) -> rand_pcg::Pcg32 {
    generator(mix((at.x as u64)
        ^ ((at.z as u64) << 26)
        ^ ((at.y as u64) << 52)
        ^ now))
}

/// `stack` pops out of block `at` onto the ground (`Block.popResource`).
fn pop_out(
    drops: &mut EventWriter<DropItem>,
    at: BlockPos,
    stack: ItemStack,
    draws: &mut rand_pcg::Pcg32,
) {
    let (pos, velocity) = popped(at, draws);
    drops.send(DropItem(ItemRecord {
        stack,
        pos,
        velocity,
        age: 0,
        pickup_delay: DIG_PICKUP_DELAY,
    }));
}

/// `state` as a block for the layer: one that has a block entity gets an empty one, which is
/// all a client is told of it and what a chest needs to be drawn.
fn with_entity(state: BlockState) -> Block {
    Block {
        state,
        nbt: state.block_entity_kind().map(|_| Compound::new()),
    }
}

/// Sends one player the block the server has at `at`.
fn resend(client: &mut Client, at: BlockPos, state: BlockState) {
    client.write_packet(&BlockUpdateS2c {
        position: at,
        block_id: VarInt(state.to_raw() as i32),
    });
}

fn place(
    mut events: EventReader<InteractBlockEvent>,
    mut players: Query<
        (
            &mut Client,
            &Position,
            &Look,
            &GameMode,
            &mut Inventory,
            &HeldItem,
            Option<&Flags>,
            Has<Operator>,
        ),
        (Without<Dead>, Without<Kicked>),
    >,
    bodies: Query<&Position, Or<(With<Client>, With<Zombie>)>>,
    mut edits: Edits,
    mut spills: Spills,
    mut wears: EventWriter<WearItem>,
    judge: Judge,
) {
    let Ok(mut layer) = edits.layers.get_single_mut() else {
        return;
    };
    let now = judge.now();
    for event in events.iter() {
        let Ok((mut client, pos, look, mode, mut inventory, held, flags, op)) =
            players.get_mut(event.client)
        else {
            continue;
        };
        let Some(clicked) = layer.block(event.position).map(|b| b.state) else {
            continue;
        };
        let reach = in_reach(eyes(pos.0), event.position) && (op || !judge.guarded(event.position));
        let sneaking = flags.is_some_and(|f| f.sneaking());
        let may_edit = matches!(mode, GameMode::Survival | GameMode::Creative);

        // A right-click on a door opens or closes both halves, for everyone; iron doors only
        // open to redstone.
        if is_door(clicked) && clicked.to_kind() != BlockKind::IronDoor && !sneaking {
            if reach && may_edit {
                let (changed, noises) = (&mut edits.changed, &mut edits.noises);
                toggle_door(&mut layer, changed, noises, event, clicked, now);
            } else {
                resend(&mut client, event.position, clicked);
            }
            continue;
        }

        let slot = match event.hand {
            Hand::Main => held.slot(),
            Hand::Off => OFF_HAND,
        };
        let holding = crate::player::holds_anything(&inventory, held);
        if used_on_click(clicked.to_kind(), sneaking, holding) {
            continue; // Its window opens (`menu`); the client placed nothing.
        }
        let Some(stack) = inventory.slot(slot).cloned() else {
            continue;
        };
        let above = layer.block(event.position.get_in_direction(Direction::Up));
        let above = above.map_or(BlockState::AIR, |b| b.state);
        if let Some(reshaped) = tool_use(stack.item, clicked, event.face, above) {
            if !(reach && may_edit) {
                resend(&mut client, event.position, clicked);
                continue;
            }
            layer.set_block(event.position, reshaped.state);
            edits
                .changed
                .send(BlocksChanged::between(event.position, event.position));
            // Heard by all but the player, whose client played it (`HoeItem.useOn`).
            let at = centre(event.position);
            play_except(
                &mut layer,
                event.client,
                reshaped.sound,
                at,
                (1.0, 1.0),
                now as i64,
            );
            if let Some(item) = reshaped.pops {
                let stack = ItemStack::new(item, 1, None);
                let mut draws = draws_at(event.position, now);
                pop_out(&mut spills.items, event.position, stack, &mut draws);
            }
            wears.send(WearItem {
                player: event.client,
                slot,
                item: stack.item,
                amount: 1,
            });
            continue;
        }
        let Some(kind) = BlockKind::from_item_kind(stack.item) else {
            continue; // Not a block: nothing the client expects to appear.
        };
        let target = if clicked.is_replaceable() {
            event.position
        } else {
            event.position.get_in_direction(event.face)
        };
        let beside = |d: Direction| layer.block(target.get_in_direction(d)).map(|b| b.state);
        let turned = placed_state(kind, event.face, event.cursor_pos, look.yaw);
        let clicked_face = (target != event.position).then_some(event.face);
        let nearest = nearest_looking(look.yaw, look.pitch, clicked_face);
        let Some(mut state) = attach(turned, &nearest, event.face, (look.yaw, sneaking), beside)
        else {
            resend(
                &mut client,
                target,
                layer.block(target).map_or(BlockState::AIR, |b| b.state),
            );
            inventory.changed |= 1 << slot;
            continue; // Nothing around holds it.
        };
        if is_door(state) {
            let facing = looking(look.yaw);
            let clicked_at = event.position;
            let click = event.cursor_pos
                + Vec3::new(
                    (clicked_at.x - target.x) as f32,
                    (clicked_at.y - target.y) as f32,
                    (clicked_at.z - target.z) as f32,
                );
            let side = |d: Direction, above: bool| {
                let base = if above {
                    target.get_in_direction(Direction::Up)
                } else {
                    target
                };
                layer.block(base.get_in_direction(d)).map(|b| b.state)
            };
            state = state.set(PropName::Hinge, door_hinge(kind, facing, click, side));
        }
        let mut partner = None;
        if matches!(kind, BlockKind::Chest | BlockKind::TrappedChest) {
            let beside = |d| layer.block(target.get_in_direction(d)).map(|b| b.state);
            let (placed, joined) = chest_placed(state, event.face, sneaking, beside);
            state = placed;
            partner = joined.map(|(d, theirs)| (target.get_in_direction(d), theirs));
        }
        let second = second_half(state).map(|(d, half)| (target.get_in_direction(d), half));
        let spots: Vec<BlockPos> = std::iter::once(target)
            .chain(second.map(|(at, _)| at))
            .collect();
        let free = |at: BlockPos| {
            (MIN_Y..MIN_Y + HEIGHT as i32).contains(&at.y)
                && layer.block(at).is_some_and(|b| b.state.is_replaceable())
        };
        let solid = state.collision_shapes().len() > 0;
        let ok = may_edit
            && reach
            && spots.iter().all(|at| free(*at))
            && !(solid && spots.iter().any(|at| occupied(*at, &bodies)));
        if !ok {
            for at in spots {
                if let Some(b) = layer.block(at) {
                    resend(&mut client, at, b.state);
                }
            }
            // The client took the item from its stack already: show it back.
            inventory.changed |= 1 << slot;
            continue;
        }
        layer.set_block(target, with_entity(state));
        if let Some((at, half)) = second {
            layer.set_block(at, with_entity(half));
        }
        if let Some(id) = state
            .block_entity_kind()
            .map(|k| k.ident().path().to_owned())
            .filter(|id| kept(id))
        {
            let entity = fresh(&id);
            if let Some(shown) = layer.block_entity_mut(target) {
                *shown = client_view(&entity);
            }
            edits.entities.set(target, &id, entity);
        }
        if is_sign(state.to_kind()) {
            // Its placer writes on it (`SignItem.updateCustomBlockEntityTag`).
            edits.signs.send(EditSign {
                client: event.client,
                at: target,
                front: true,
            });
        }
        if let Some((at, theirs)) = partner {
            layer.set_block(at, with_entity(theirs));
            edits.changed.send(BlocksChanged::between(at, at));
        }
        edits.changed.send(BlocksChanged::between(
            target,
            second.map_or(target, |(at, _)| at),
        ));
        edits.noises.send(Noise {
            at: centre(target),
            kind: NoiseKind::Place,
        });
        // Vanilla's placing volume and pitch, (1 + 1) / 2 and 0.8 of the block's sound, heard
        // by all but the player (`BlockItem.place`).
        play_except(
            &mut layer,
            event.client,
            block_sounds(state).1,
            centre(target),
            (1.0, 0.8),
            now as i64,
        );
        if *mode == GameMode::Survival {
            let left = stack.count().saturating_sub(1);
            if left == 0 {
                inventory.set_slot(slot, None);
            } else {
                inventory.set_slot_amount(slot, left);
            }
        }
    }
}

/// The largest edit whose neighbours are looked at for blocks left unsupported: a player's or
/// a zombie's edit, a door, a small fill. An operator's large fill is left as filled.
const MOST_LOOKED_AT: i64 = 16 * 16 * 16;

/// Blocks whose support went pop off as their item, whatever changed the world: a torch on a
/// dug wall, a door on dug ground, a flower whose dirt was dug (`updateShape` turning them to
/// air); what hung on those follows a tick later. Everyone sees them break.
fn pop_unsupported(
    mut changes: ResMut<Events<BlocksChanged>>,
    mut seen: Local<ManualEventReader<BlocksChanged>>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut drops: EventWriter<DropItem>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let mut loose = Vec::new();
    for change in seen.iter(&changes) {
        let (lo, hi) = (change.min, change.max);
        let volume =
            i64::from(hi.x - lo.x + 3) * i64::from(hi.y - lo.y + 3) * i64::from(hi.z - lo.z + 3);
        if volume > MOST_LOOKED_AT {
            continue;
        }
        for x in lo.x - 1..=hi.x + 1 {
            for y in lo.y - 1..=hi.y + 1 {
                for z in lo.z - 1..=hi.z + 1 {
                    let at = BlockPos::new(x, y, z);
                    let Some(state) = layer.block(at).map(|b| b.state) else {
                        continue;
                    };
                    let around = |d| layer.block(at.get_in_direction(d)).map(|b| b.state);
                    if !stays(state, around) && !loose.contains(&(at, state)) {
                        loose.push((at, state));
                    }
                }
            }
        }
    }
    let now = server.current_tick() as u64;
    for &(at, state) in &loose {
        layer.set_block(at, BlockState::AIR);
        level_event(
            layer.view_writer(ChunkPos::from_block_pos(at)),
            BLOCK_BROKEN,
            at,
            state.to_raw() as i32,
        );
        // A door or a tall plant drops once, from its lower half.
        let item = drop(state.to_kind(), ItemKind::Air)
            .filter(|_| state.get(PropName::Half) != Some(PropValue::Upper));
        if let Some(item) = item {
            let stack = ItemStack::new(item, 1, None);
            pop_out(&mut drops, at, stack, &mut draws_at(at, now));
        }
    }
    changes.extend(
        loose
            .into_iter()
            .map(|(at, _)| BlocksChanged::between(at, at)),
    );
}

/// Opens or closes the door `clicked` at the event's block, both halves, for everyone; heard
/// by all but the player.
fn toggle_door(
    layer: &mut ChunkLayer,
    changed: &mut EventWriter<BlocksChanged>,
    noises: &mut EventWriter<Noise>,
    event: &InteractBlockEvent,
    clicked: BlockState,
    now: u64,
) {
    let open = clicked.get(PropName::Open) == Some(PropValue::True);
    let value = if open {
        PropValue::False
    } else {
        PropValue::True
    };
    let other = other_half(event.position, clicked);
    layer.set_block(event.position, clicked.set(PropName::Open, value));
    if let Some(half) = layer.block(other).map(|b| b.state).filter(|s| is_door(*s)) {
        layer.set_block(other, half.set(PropName::Open, value));
    }
    changed.send(BlocksChanged::between(event.position, other));
    noises.send(Noise {
        at: centre(event.position),
        kind: NoiseKind::Door,
    });
    // Pitch 0.9 to 1 (`DoorBlock.use`), heard by all but the player.
    let draw = mix(now ^ (event.position.x as u64) ^ ((event.position.z as u64) << 32));
    let pitch = 0.9 + (draw % 1000) as f32 / 10_000.0;
    play_except(
        layer,
        event.client,
        door_sound(clicked, value == PropValue::True),
        centre(event.position),
        (1.0, pitch),
        now as i64,
    );
}

/// Whether a player's or a zombie's box overlaps block `at`: the larger of the two boxes
/// round each body, which never lets a block in anyone.
fn occupied(at: BlockPos, bodies: &Query<&Position, Or<(With<Client>, With<Zombie>)>>) -> bool {
    let (lo, hi) = (
        DVec3::new(at.x as f64, at.y as f64, at.z as f64),
        DVec3::new(at.x as f64 + 1.0, at.y as f64 + 1.0, at.z as f64 + 1.0),
    );
    let half = PLAYER_HALF_WIDTH.max(HALF_WIDTH);
    let height = PLAYER_HEIGHT.max(BODY_HEIGHT);
    bodies.iter().any(|p| {
        let feet = p.0;
        feet.x + half > lo.x
            && feet.x - half < hi.x
            && feet.z + half > lo.z
            && feet.z - half < hi.z
            && feet.y + height > lo.y
            && feet.y < hi.y
    })
}
