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

pub mod click;
mod recipe_data;
pub mod recipes;

use std::borrow::Cow;

use bevy_ecs::query::Has;
use valence::event_loop::{EventLoopUpdate, PacketEvent};
use valence::interact_block::InteractBlockEvent;
use valence::inventory::{
    ClientInventoryState, CursorItem, DropItemStackEvent, HeldItem, OpenInventory,
};
use valence::prelude::*;
use valence::protocol::packets::play::{ClickSlotC2s, CloseHandledScreenC2s, InventoryS2c};
use valence::protocol::{VarInt, WritePacket};

use crate::common::body::Dead;
use crate::common::events::Thrown;
use click::{Clicker, Drag, MenuKind, Window};

pub struct MenuPlugin;

impl Plugin for MenuPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            PreUpdate,
            (start_shadows, show_results, refresh_shadows).chain(),
        )
        .add_systems(EventLoopUpdate, play_clicks)
        .add_systems(
            valence::event_loop::EventLoopPostUpdate,
            (show_results, refresh_shadows).chain(),
        )
        .add_systems(
            Update,
            (
                give_back_on_leave.in_set(crate::schedule::TickSet::World),
                (open_tables, close_tables)
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
/// click are dropped: the click's own outcome says what falls.
#[allow(clippy::type_complexity)]
fn play_clicks(
    mut packets: EventReader<PacketEvent>,
    mut players: Query<(
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
    mut grids: Query<&mut Inventory, (With<TableGrid>, Without<Client>)>,
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
        let kind = match (click.window_id, open, table) {
            (0, None, _) => MenuKind::Inventory,
            (id, Some(o), Some(t)) if id == state.window_id() && o.entity == t.grid => {
                MenuKind::Crafting
            }
            _ => continue, // A window horde did not open: Valence's.
        };
        clicked.push(packet.client);
        if shadow.player.len() != 46 || (kind == MenuKind::Crafting && shadow.open.len() != 10) {
            continue; // Not seen yet: nothing to play the click on.
        }
        let before = window_of(kind, &shadow.player, &shadow.open, &shadow.cursor);
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
        let mut grid = table.and_then(|t| grids.get_mut(t.grid).ok());
        let live = window_of(
            kind,
            &slots_of(&inventory),
            &grid.as_deref().map(slots_of).unwrap_or_default(),
            &cursor.0,
        );
        write_back(&window, &mut inventory, grid.as_deref_mut(), &mut cursor);
        if window.slots != guessed.slots || window.carried != guessed.carried || live != guessed {
            client.write_packet(&InventoryS2c {
                window_id: click.window_id,
                state_id: VarInt(state.state_id().0),
                slots: Cow::Borrowed(&window.slots),
                carried_item: Cow::Borrowed(&window.carried),
            });
        }
        shadow.player = slots_of(&inventory);
        shadow.open = grid.as_deref().map(slots_of).unwrap_or_default();
        shadow.cursor = cursor.0.clone();
        thrown.send_batch(out.thrown.into_iter().map(|stack| Thrown {
            client: packet.client,
            stack,
        }));
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

/// A right-click on a crafting table opens its 3x3 grid, as vanilla's `CraftingTableBlock.use`
/// does, unless the player sneaks with something in hand (then building places it).
fn open_tables(
    mut commands: Commands,
    mut clicks: EventReader<InteractBlockEvent>,
    players: Query<
        (
            &Inventory,
            &HeldItem,
            Option<&valence::entity::entity::Flags>,
            Option<&AtTable>,
        ),
        Without<Dead>,
    >,
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
        let Ok((inventory, held, flags, table)) = players.get(click.client) else {
            continue;
        };
        if !crate::blocks::used_on_click(
            block.state.to_kind(),
            flags.is_some_and(|f| f.sneaking()),
            holds_anything(inventory, held),
        ) {
            continue;
        }
        if table.is_some() {
            continue; // One at a time; the client asks again once this one is shut.
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

fn holds_anything(inventory: &Inventory, held: &HeldItem) -> bool {
    inventory.slot(held.slot()).is_some() || inventory.slot(crate::player::OFF_HAND).is_some()
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
