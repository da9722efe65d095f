//! Windows as vanilla's server plays them: the player's own inventory with its 2x2 crafting
//! grid, and the crafting table's 3x3. Every click is computed here from the server's slots
//! ([`click`]), never taken from the client's guess; a client whose guess differs is sent the
//! whole window back, as vanilla does.
//!
//! Valence's inventory plugin stays in charge of sending slots and of opening and closing
//! screens, but it applies a click the client describes when the click looks harmless, and
//! refuses any that changes several slots at once (every craft). So the window each player
//! sees is kept here as it stood before the tick's packets (the shadow), the click is played
//! on that, and the outcome is written over whatever Valence did.
//!
//! Items left in a crafting grid or on the cursor go back into the inventory when the window
//! closes, or fall in front of the player when there is no room (`clearContainer`).

pub mod chests;
pub mod click;
pub mod furnaces;
mod recipe_data;
pub mod recipes;
pub mod smelting;

use std::borrow::Cow;

use bevy_ecs::query::Has;
use valence::event_loop::{EventLoopUpdate, PacketEvent};
use valence::interact_block::InteractBlockEvent;
use valence::inventory::{
    ClientInventoryState, CursorItem, DropItemStackEvent, HeldItem, OpenInventory,
};
use valence::prelude::*;
use valence::protocol::packets::play::{
    ClickSlotC2s, CloseHandledScreenC2s, InventoryS2c, ScreenHandlerPropertyUpdateS2c,
    ScreenHandlerSlotUpdateS2c,
};
use valence::protocol::{VarInt, WritePacket};

use crate::common::body::Dead;
use crate::common::events::Thrown;
use crate::player::holds_anything;
use crate::world::block_entities::BlockEntities;
use chests::{AtContainer, Container, ContainerWindow, OpenContainers};
use click::{Clicker, Drag, MenuKind, Window};

pub struct MenuPlugin;

impl Plugin for MenuPlugin {
    fn build(&self, app: &mut App) {
        let seed = app.world.resource::<crate::config::Config>().server.seed as u64;
        app.add_systems(
            PreUpdate,
            (start_shadows, show_results, refresh_shadows).chain(),
        )
        .init_resource::<OpenContainers>()
        .init_resource::<furnaces::Burning>()
        .insert_resource(furnaces::PayRng(crate::random::generator(
            seed ^ 0xf0_12ace,
        )))
        .add_systems(EventLoopUpdate, play_clicks)
        .add_systems(
            PostUpdate,
            show_furnace_arrows.after(valence::client::FlushPacketsSet),
        )
        .add_systems(
            valence::event_loop::EventLoopPostUpdate,
            (show_results, refresh_shadows).chain(),
        )
        .add_systems(
            Update,
            (
                (give_back_on_leave, furnaces::wake_arrivals, furnaces::work)
                    .chain()
                    .in_set(crate::schedule::TickSet::World),
                (
                    close_tables,
                    close_containers,
                    apply_deferred,
                    open_tables,
                    open_containers,
                    apply_deferred,
                    show_whole_windows,
                )
                    .chain()
                    .in_set(crate::schedule::TickSet::Players),
            ),
        );
    }
}

/// Vanilla's reach for keeping a window open: 8 blocks from the block's centre
/// (`ContainerLevelAccess.stillValid`, distance squared 64).
const STILL_VALID: f64 = 8.0;

/// The window a player saw before this tick's clicks: their inventory, the cursor and the
/// open window's own slots.
#[derive(Component, Default)]
struct Shadow {
    player: Vec<Option<ItemStack>>,
    cursor: Option<ItemStack>,
    open: Vec<Option<ItemStack>>,
}

/// A drag in progress, between its packets.
#[derive(Component, Default)]
struct Dragging(Drag);

/// A player at a crafting table: the grid's entity and the table.
#[derive(Component, Debug, Clone, Copy)]
struct AtTable {
    grid: Entity,
    at: BlockPos,
}

/// The 3x3 grid of a crafting table a player uses (its `Inventory`), gone when they close it.
#[derive(Component)]
struct TableGrid;

fn start_shadows(mut commands: Commands, joined: Query<Entity, Added<Client>>) {
    for player in &joined {
        commands
            .entity(player)
            .insert((Shadow::default(), Dragging::default()));
    }
}

/// A grid filled other than by a click (a creative player's slot, `give`) shows what it makes.
fn show_results(
    mut players: Query<&mut Inventory, (Changed<Inventory>, With<Client>)>,
    mut grids: Query<&mut Inventory, (Changed<Inventory>, With<TableGrid>, Without<Client>)>,
) {
    let kinds = players
        .iter_mut()
        .map(|i| (i, MenuKind::Inventory))
        .chain(grids.iter_mut().map(|i| (i, MenuKind::Crafting)));
    for (mut inventory, kind) in kinds {
        let mut window = Window::new(kind);
        let own = if kind == MenuKind::Inventory { 5 } else { 10 };
        for (i, slot) in window.slots[..own].iter_mut().enumerate() {
            *slot = inventory.slot(i as u16).cloned();
        }
        window.refresh_result();
        if inventory.slot(0) != window.slots[0].as_ref() {
            inventory.set_slot(0, window.slots[0].clone());
        }
    }
}

fn slots_of(inventory: &Inventory) -> Vec<Option<ItemStack>> {
    inventory.slots().map(|s| s.cloned()).collect()
}

/// Copies what changed since the last look into each player's shadow: in the tick's first
/// stage (what the last tick did), and after each round of packets (what Valence did with a
/// packet horde does not play, such as a creative slot or an item dropped with `Q`).
fn refresh_shadows(
    mut players: Query<(
        Ref<Inventory>,
        Ref<CursorItem>,
        Option<Ref<OpenInventory>>,
        &mut Shadow,
    )>,
    windows: Query<Ref<Inventory>, Without<Client>>,
) {
    for (inventory, cursor, open, mut shadow) in &mut players {
        let window = open.as_ref().and_then(|o| windows.get(o.entity).ok());
        let open_changed = open.as_ref().is_some_and(|o| o.is_changed())
            || window.as_ref().is_some_and(|w| w.is_changed());
        if inventory.is_changed() || cursor.is_changed() || open_changed || shadow.is_added() {
            shadow.player = slots_of(&inventory);
            shadow.cursor = cursor.0.clone();
            shadow.open = window.map(|w| slots_of(&w)).unwrap_or_default();
        }
    }
}

/// The window as the engine sees it, from a player's inventory slots, the open window's own
/// slots and the cursor.
fn window_of(
    kind: MenuKind,
    player: &[Option<ItemStack>],
    open: &[Option<ItemStack>],
    cursor: &Option<ItemStack>,
) -> Window {
    let mut window = Window::new(kind);
    if kind == MenuKind::Inventory {
        window.slots.clone_from_slice(&player[..46]);
    } else {
        let own = kind.own();
        window.slots[..own].clone_from_slice(&open[..own]);
        window.slots[own..].clone_from_slice(&player[9..45]);
        window.off_hand = player[45].clone();
    }
    window.carried = cursor.clone();
    window
}

/// Writes `window` back: into the player's inventory, the open window's slots, the cursor.
fn write_back(
    window: &Window,
    player: &mut Inventory,
    open: Option<&mut Inventory>,
    cursor: &mut CursorItem,
) {
    let put = |inventory: &mut Inventory, slot: usize, stack: &Option<ItemStack>| {
        if inventory.slot(slot as u16) != stack.as_ref() {
            inventory.set_slot(slot as u16, stack.clone());
        }
    };
    if window.kind == MenuKind::Inventory {
        for (i, stack) in window.slots.iter().enumerate() {
            put(player, i, stack);
        }
    } else {
        let own = window.kind.own();
        if let Some(open) = open {
            for (i, stack) in window.slots[..own].iter().enumerate() {
                put(open, i, stack);
            }
        }
        for (i, stack) in window.slots[own..].iter().enumerate() {
            put(player, 9 + i, stack);
        }
        put(player, 45, &window.off_hand);
    }
    if cursor.0 != window.carried {
        cursor.0 = window.carried.clone();
    }
}

/// Plays each click of this round of packets on the window as it stood, and closes the
/// player's own window (its 2x2 grid) when the client says so. Valence's drop events for a
/// click are dropped: the click's own outcome says what falls. A container's window is kept
/// as its blocks' items, and everyone else looking in is sent it.
#[allow(clippy::type_complexity)]
fn play_clicks(
    mut packets: EventReader<PacketEvent>,
    mut players: Query<(
        Entity,
        &Position,
        &mut Client,
        &mut Inventory,
        &mut CursorItem,
        &ClientInventoryState,
        Option<&OpenInventory>,
        Option<&AtTable>,
        &mut Shadow,
        &mut Dragging,
        &GameMode,
        &HeldItem,
    )>,
    mut windows: Query<
        (&mut Inventory, Option<&ContainerWindow>),
        (
            Or<(With<TableGrid>, With<ContainerWindow>)>,
            Without<Client>,
        ),
    >,
    mut ovens: furnaces::Ovens,
    mut dropped: EventReader<DropItemStackEvent>,
    mut thrown: EventWriter<Thrown>,
) {
    let mut clicked = Vec::new();
    for packet in packets.iter() {
        let click = packet.decode::<ClickSlotC2s>();
        let close = packet.decode::<CloseHandledScreenC2s>();
        if click.is_none() && close.is_none() {
            continue;
        }
        let Ok((
            _,
            pos,
            mut client,
            mut inventory,
            mut cursor,
            state,
            open,
            table,
            mut shadow,
            mut drag,
            mode,
            held,
        )) = players.get_mut(packet.client)
        else {
            continue;
        };
        let who = Clicker {
            creative: *mode == GameMode::Creative,
            selected: usize::from(held.slot().saturating_sub(36)),
        };
        if let Some(close) = close {
            if close.window_id == 0 && open.is_none() {
                // The player's own window: its grid and cursor go back.
                let mut window =
                    window_of(MenuKind::Inventory, &slots_of(&inventory), &[], &cursor.0);
                let out = window.close(who);
                write_back(&window, &mut inventory, None, &mut cursor);
                thrown.send_batch(out.into_iter().map(|stack| Thrown {
                    client: packet.client,
                    stack,
                }));
            }
            continue;
        }
        let Some(click) = click else {
            continue;
        };
        let opened = open.map(|o| o.entity);
        let kind = match (click.window_id, opened) {
            (0, None) => MenuKind::Inventory,
            (id, Some(e)) if id == state.window_id() => match windows.get(e) {
                Ok((shown, Some(container))) => menu_kind(shown, Some(container)),
                Ok((_, None)) if table.is_some_and(|t| t.grid == e) => MenuKind::Crafting,
                _ => continue,
            },
            _ => continue, // A window horde did not open: Valence's.
        };
        clicked.push(packet.client);
        let own = if kind == MenuKind::Inventory {
            0
        } else {
            kind.own()
        };
        if shadow.player.len() != 46 || shadow.open.len() != own {
            continue; // Not seen yet: nothing to play the click on.
        }
        let before = window_of(kind, &shadow.player, &shadow.open, &shadow.cursor);
        let before_click = before.clone();
        let mut window = before.clone();
        let out = window.click(&mut drag.0, click.slot_idx, click.button, click.mode, who);
        // What the client believes now, and what it was last sent.
        let mut guessed = before;
        for change in click.slot_changes.iter() {
            if let Some(slot) = usize::try_from(change.idx)
                .ok()
                .filter(|&i| i < guessed.slots.len())
            {
                guessed.slots[slot] = change.item.clone();
            }
        }
        guessed.carried = click.carried_item.clone();
        let mut shown = opened.and_then(|e| windows.get_mut(e).ok());
        let live = window_of(
            kind,
            &slots_of(&inventory),
            &shown.as_ref().map(|(w, _)| slots_of(w)).unwrap_or_default(),
            &cursor.0,
        );
        write_back(
            &window,
            &mut inventory,
            shown.as_mut().map(|(w, _)| &mut **w),
            &mut cursor,
        );
        if window.slots != guessed.slots || window.carried != guessed.carried || live != guessed {
            client.write_packet(&InventoryS2c {
                window_id: click.window_id,
                state_id: VarInt(state.state_id().0),
                slots: Cow::Borrowed(&window.slots),
                carried_item: Cow::Borrowed(&window.carried),
            });
        } else if window.grid_changed(&before_click) {
            // Vanilla sends the result whenever the grid changes, even unchanged
            // (`CraftingMenu.slotChangedCraftingGrid`); clients wait for it.
            client.write_packet(&ScreenHandlerSlotUpdateS2c {
                window_id: click.window_id as i8,
                state_id: VarInt(state.state_id().0),
                slot_idx: 0,
                slot_data: Cow::Borrowed(&window.slots[0]),
            });
        }
        shadow.player = slots_of(&inventory);
        shadow.open = window.slots[..own].to_vec();
        shadow.cursor = cursor.0.clone();
        thrown.send_batch(out.thrown.into_iter().map(|stack| Thrown {
            client: packet.client,
            stack,
        }));
        let Some((_, Some(container))) = shown else {
            continue;
        };
        chests::keep(container, &window.slots[..own], &mut ovens.entities);
        if let Container::Oven(_) = container.kind {
            ovens.clicked(container.halves[0], container.kind.id(), out.smelted, pos.0);
        }
        // Everyone else looking in sees the move, and plays their next click on it.
        let (shared, by) = (opened, packet.client);
        let contents = window.slots[..own].to_vec();
        for (viewer, _, mut client, inventory, cursor, state, open, _, mut shadow, ..) in
            &mut players
        {
            if viewer == by || open.map(|o| o.entity) != shared {
                continue;
            }
            shadow.open = contents.clone();
            let theirs = window_of(kind, &slots_of(&inventory), &contents, &cursor.0);
            client.write_packet(&InventoryS2c {
                window_id: state.window_id(),
                state_id: VarInt(state.state_id().0),
                slots: Cow::Borrowed(&theirs.slots),
                carried_item: Cow::Borrowed(&theirs.carried),
            });
        }
    }
    for event in dropped.iter() {
        if !clicked.contains(&event.client) {
            thrown.send(Thrown {
                client: event.client,
                stack: event.stack.clone(),
            });
        }
    }
}

/// A window horde opens is sent whole (its own slots, the inventory below them and the
/// cursor) just before Valence opens it, under the id Valence is about to give it. Valence
/// sends only the window's own slots; a client that keeps a window's contents apart from its
/// inventory (mineflayer) takes that first packet as the whole window and would see an empty
/// inventory below it. Vanilla's client ignores contents for a window it has not opened yet,
/// and its own inventory is already right.
#[allow(clippy::type_complexity)]
fn show_whole_windows(
    mut opened: Query<
        (
            &mut Client,
            &Inventory,
            &CursorItem,
            &ClientInventoryState,
            &OpenInventory,
        ),
        Added<OpenInventory>,
    >,
    windows: Query<
        (&Inventory, Option<&ContainerWindow>),
        (
            Or<(With<TableGrid>, With<ContainerWindow>)>,
            Without<Client>,
        ),
    >,
) {
    for (mut client, inventory, cursor, state, open) in &mut opened {
        let Ok((shown, container)) = windows.get(open.entity) else {
            continue;
        };
        let kind = menu_kind(shown, container);
        let window = window_of(kind, &slots_of(inventory), &slots_of(shown), &cursor.0);
        // Valence's `update_open_inventories` numbers windows 1..=100 in turn.
        client.write_packet(&InventoryS2c {
            window_id: state.window_id() % 100 + 1,
            state_id: VarInt(state.state_id().0),
            slots: Cow::Borrowed(&window.slots),
            carried_item: Cow::Borrowed(&window.carried),
        });
    }
}

fn menu_kind(shown: &Inventory, container: Option<&ContainerWindow>) -> MenuKind {
    match container.map(|c| c.kind) {
        None => MenuKind::Crafting,
        Some(Container::Oven(oven)) => MenuKind::Furnace(oven),
        Some(_) => MenuKind::Chest {
            rows: (shown.slot_count() / 9) as u8,
        },
    }
}

/// A furnace's arrows are shown as its window opens, once Valence has opened it.
fn show_furnace_arrows(
    mut opened: Query<(&mut Client, &ClientInventoryState, &OpenInventory), Added<OpenInventory>>,
    windows: Query<&ContainerWindow>,
    burning: Res<furnaces::Burning>,
    entities: Res<BlockEntities>,
) {
    for (mut client, state, open) in &mut opened {
        let Some(at) = windows
            .get(open.entity)
            .ok()
            .filter(|c| matches!(c.kind, Container::Oven(_)))
            .map(|c| c.halves[0])
        else {
            continue;
        };
        let fire = burning
            .0
            .get(&at)
            .copied()
            .or_else(|| entities.get(at).map(furnaces::fire_of))
            .unwrap_or_default();
        let values = [fire.burning, fire.fuel_ticks, fire.progress, fire.total];
        for (property, value) in values.iter().enumerate() {
            client.write_packet(&ScreenHandlerPropertyUpdateS2c {
                window_id: state.window_id(),
                property: property as i16,
                value: *value as i16,
            });
        }
        // Valence has flushed the tick's packets already; these follow at once.
        let _ = client.flush_packets();
    }
}

/// Vanilla's reach for using a block: 6 blocks from the eyes to its centre
/// (`ServerGamePacketListenerImpl.MAX_INTERACTION_DISTANCE`).
fn reaches(feet: &Position, at: BlockPos) -> bool {
    let eyes = feet.0 + DVec3::new(0.0, crate::common::body::EYE_HEIGHT, 0.0);
    let centre = DVec3::new(at.x as f64 + 0.5, at.y as f64 + 0.5, at.z as f64 + 0.5);
    eyes.distance_squared(centre) <= 36.0
}

/// The living players who may open a block's window: where they stand, what they hold,
/// whether they sneak, and whether a window of horde's is open already.
type Openers<'w, 's> = Query<
    'w,
    's,
    (
        &'static Position,
        &'static Inventory,
        &'static HeldItem,
        Option<&'static valence::entity::entity::Flags>,
        Has<AtTable>,
        Has<AtContainer>,
    ),
    Without<Dead>,
>;

/// Whether `click` on a block of `kind` opens its window: the player is alive and within
/// reach, does not sneak with something in hand (then the click places it), and has no window
/// of horde's open (one at a time; the client asks again once that one is shut).
fn opens(players: &Openers, click: &InteractBlockEvent, kind: BlockKind) -> bool {
    let Ok((pos, inventory, held, flags, at_table, at_container)) = players.get(click.client)
    else {
        return false;
    };
    let sneaking = flags.is_some_and(|f| f.sneaking());
    crate::blocks::used_on_click(kind, sneaking, holds_anything(inventory, held))
        && reaches(pos, click.position)
        && !at_table
        && !at_container
}

/// A right-click on a chest, trapped chest or barrel opens it into the window everyone
/// looking in shares (`ChestBlock.use`); a chest under a solid block stays shut.
#[allow(clippy::type_complexity)]
fn open_containers(
    mut commands: Commands,
    mut clicks: EventReader<InteractBlockEvent>,
    players: Openers,
    mut open: ResMut<OpenContainers>,
    entities: Res<BlockEntities>,
    mut layers: Query<&mut ChunkLayer, With<crate::world::Overworld>>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    for click in clicks.iter() {
        let Some(state) = layer.block(click.position).map(|b| b.state) else {
            continue;
        };
        let Some(kind) = Container::of(state.to_kind()) else {
            continue;
        };
        if !opens(&players, click, state.to_kind()) {
            continue;
        }
        let halves = chests::halves(click.position, state, &layer);
        if kind.is_chest() && chests::blocked(&halves, &layer) {
            continue;
        }
        let (window, viewers) = match open.0.get(&halves[0]) {
            Some(&(window, viewers)) => (window, viewers),
            None => {
                let slots = chests::window_slots(kind, &halves, &entities);
                let shape = kind.window(halves.len());
                let mut inventory =
                    Inventory::with_title(shape, chests::title(kind, &halves, &entities));
                for (i, stack) in slots.into_iter().enumerate() {
                    inventory.set_slot(i as u16, stack);
                }
                let window = ContainerWindow {
                    kind,
                    halves: halves.clone(),
                };
                (commands.spawn((inventory, window)).id(), 0)
            }
        };
        open.0.insert(halves[0], (window, viewers + 1));
        let shown = ContainerWindow { kind, halves };
        let seed = server.current_tick();
        chests::show_viewers(&shown, (viewers, viewers + 1), &mut layer, seed);
        commands
            .entity(click.client)
            .insert((OpenInventory::new(window), AtContainer { window }));
    }
}

/// Shuts a container's window for a player who closed it, walked more than 8 blocks away,
/// died or left, or whose container was broken: their cursor goes back into the inventory
/// (or falls, for the dead). The last to leave shuts the lid; a broken container's window
/// goes at once.
#[allow(clippy::type_complexity)]
fn close_containers(
    mut commands: Commands,
    mut players: Query<(
        Entity,
        &Position,
        &mut Inventory,
        &mut CursorItem,
        &HeldItem,
        &AtContainer,
        Option<&OpenInventory>,
        Has<Dead>,
        Has<Client>,
    )>,
    windows: Query<&ContainerWindow>,
    mut open: ResMut<OpenContainers>,
    mut layers: Query<&mut ChunkLayer, With<crate::world::Overworld>>,
    mut thrown: EventWriter<Thrown>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    for (player, pos, mut inventory, mut cursor, held, at, shown, dead, online) in &mut players {
        let window = windows.get(at.window).ok();
        let standing = window.is_some_and(|w| {
            w.halves.iter().all(|h| {
                layer
                    .block(*h)
                    .is_some_and(|b| Container::of(b.state.to_kind()) == Some(w.kind))
            })
        });
        let near = window.is_some_and(|w| {
            let at = w.halves[0];
            let centre = DVec3::new(at.x as f64 + 0.5, at.y as f64 + 0.5, at.z as f64 + 0.5);
            pos.0.distance_squared(centre) <= STILL_VALID * STILL_VALID
        });
        let still_open = shown.is_some_and(|o| o.entity == at.window);
        if still_open && standing && near && !dead && online {
            continue;
        }
        let who = Clicker {
            creative: false,
            selected: usize::from(held.slot().saturating_sub(36)),
        };
        let mut own = window_of(MenuKind::Inventory, &slots_of(&inventory), &[], &None);
        let falls: Vec<ItemStack> = match cursor.0.take() {
            Some(stack) if dead => vec![stack],
            Some(stack) => own.give_back(stack, who).into_iter().collect(),
            None => Vec::new(),
        };
        write_back(&own, &mut inventory, None, &mut cursor);
        thrown.send_batch(falls.into_iter().map(|stack| Thrown {
            client: player,
            stack,
        }));
        let mut leaving = commands.entity(player);
        leaving.remove::<AtContainer>();
        if still_open {
            leaving.remove::<OpenInventory>();
        }
        let Some(window) = window else {
            continue;
        };
        let Some(&(entity, viewers)) = open.0.get(&window.halves[0]) else {
            continue;
        };
        let left = viewers.saturating_sub(1);
        let seed = server.current_tick();
        if standing {
            chests::show_viewers(window, (viewers, left), &mut layer, seed);
        }
        if left == 0 || !standing {
            open.0.remove(&window.halves[0]);
            commands.entity(entity).despawn();
        } else {
            open.0.insert(window.halves[0], (entity, left));
        }
    }
}

/// A right-click on a crafting table opens its 3x3 grid, as vanilla's `CraftingTableBlock.use`
/// does, unless the player sneaks with something in hand (then building places it).
fn open_tables(
    mut commands: Commands,
    mut clicks: EventReader<InteractBlockEvent>,
    players: Openers,
    layers: Query<&ChunkLayer, With<crate::world::Overworld>>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for click in clicks.iter() {
        let Some(block) = layer.block(click.position) else {
            continue;
        };
        if block.state.to_kind() != BlockKind::CraftingTable {
            continue;
        }
        if !opens(&players, click, BlockKind::CraftingTable) {
            continue;
        }
        let grid = commands
            .spawn((
                Inventory::with_title(
                    InventoryKind::Crafting,
                    Text::translate("container.crafting", Vec::new()),
                ),
                TableGrid,
            ))
            .id();
        commands.entity(click.client).insert((
            OpenInventory::new(grid),
            AtTable {
                grid,
                at: click.position,
            },
        ));
    }
}

/// Shuts a crafting table's window when the client closed it, the player walked more than 8
/// blocks away, the table is gone or the player died: the grid and the cursor go back into the
/// inventory, or fall when there is no room or no one alive to take them.
#[allow(clippy::type_complexity)]
fn close_tables(
    mut commands: Commands,
    mut players: Query<(
        Entity,
        &Position,
        &mut Inventory,
        &mut CursorItem,
        &HeldItem,
        &GameMode,
        &AtTable,
        Option<&OpenInventory>,
        Has<Dead>,
    )>,
    mut grids: Query<&mut Inventory, (With<TableGrid>, Without<AtTable>)>,
    layers: Query<&ChunkLayer, With<crate::world::Overworld>>,
    mut thrown: EventWriter<Thrown>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for (player, pos, mut inventory, mut cursor, held, mode, table, open, dead) in &mut players {
        let centre = DVec3::new(
            table.at.x as f64 + 0.5,
            table.at.y as f64 + 0.5,
            table.at.z as f64 + 0.5,
        );
        let standing = layer
            .block(table.at)
            .is_some_and(|b| b.state.to_kind() == BlockKind::CraftingTable);
        let still_open = open.is_some_and(|o| o.entity == table.grid);
        if still_open
            && standing
            && !dead
            && pos.0.distance_squared(centre) <= STILL_VALID * STILL_VALID
        {
            continue;
        }
        let who = Clicker {
            creative: *mode == GameMode::Creative,
            selected: usize::from(held.slot().saturating_sub(36)),
        };
        if let Ok(mut grid) = grids.get_mut(table.grid) {
            let mut window = window_of(
                MenuKind::Crafting,
                &slots_of(&inventory),
                &slots_of(&grid),
                &cursor.0,
            );
            let mut out = if dead {
                window.spill()
            } else {
                window.close(who)
            };
            write_back(&window, &mut inventory, Some(&mut grid), &mut cursor);
            thrown.send_batch(out.drain(..).map(|stack| Thrown {
                client: player,
                stack,
            }));
        }
        commands.entity(table.grid).despawn();
        let mut player = commands.entity(player);
        player.remove::<AtTable>();
        if still_open {
            player.remove::<OpenInventory>();
        }
    }
}

/// A player who leaves takes what lay in their 2x2 grid and on their cursor home in their
/// inventory, before the save writes it (what does not fit is lost with the grid, as the
/// save has no slot for it).
fn give_back_on_leave(
    mut left: RemovedComponents<Client>,
    mut players: Query<(&mut Inventory, &mut CursorItem, &HeldItem, Option<&AtTable>)>,
    mut grids: Query<&mut Inventory, (With<TableGrid>, Without<CursorItem>)>,
    mut commands: Commands,
) {
    for player in left.iter() {
        let Ok((mut inventory, mut cursor, held, table)) = players.get_mut(player) else {
            continue;
        };
        let who = Clicker {
            creative: false,
            selected: usize::from(held.slot().saturating_sub(36)),
        };
        let mut window = window_of(MenuKind::Inventory, &slots_of(&inventory), &[], &cursor.0);
        window.close(who);
        write_back(&window, &mut inventory, None, &mut cursor);
        if let Some(table) = table {
            if let Ok(mut grid) = grids.get_mut(table.grid) {
                let mut window = window_of(
                    MenuKind::Crafting,
                    &slots_of(&inventory),
                    &slots_of(&grid),
                    &None,
                );
                window.close(who);
                write_back(&window, &mut inventory, Some(&mut grid), &mut cursor);
            }
            commands.entity(table.grid).despawn();
        }
    }
}
