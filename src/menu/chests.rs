//! Chests, trapped chests, barrels and furnaces: one window for everyone looking in (so each
//! sees the others' moves), the items kept as vanilla's block entity (`Items`) by the world,
//! the lid opening and closing with vanilla's block event and sound, a barrel's `open` state.
//!
//! A double chest is one window of 54 slots: the right half's 27 first, as vanilla's
//! `CompoundContainer` puts them.

use rustc_hash::FxHashMap;
use valence::layer::Layer;
use valence::nbt::Compound;
use valence::prelude::*;
use valence::protocol::packets::play::BlockEventS2c;
use valence::protocol::sound::SoundCategory;
use valence::protocol::{Direction, Sound, VarInt, WritePacket};

use super::smelting::Oven;
use crate::world::block_entities::{items_of, with_items, BlockEntities};
use crate::world::sound::play;

/// A block that holds items behind a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    Chest,
    TrappedChest,
    Barrel,
    Oven(Oven),
}

impl Container {
    pub fn of(kind: BlockKind) -> Option<Self> {
        match kind {
            BlockKind::Chest => Some(Self::Chest),
            BlockKind::TrappedChest => Some(Self::TrappedChest),
            BlockKind::Barrel => Some(Self::Barrel),
            _ => Oven::of(kind).map(Self::Oven),
        }
    }

    /// The block entity's id.
    pub fn id(self) -> &'static str {
        match self {
            Self::Chest => "chest",
            Self::TrappedChest => "trapped_chest",
            Self::Barrel => "barrel",
            Self::Oven(oven) => oven.id(),
        }
    }

    /// Slots a block holds.
    pub fn slots(self) -> usize {
        match self {
            Self::Oven(_) => 3,
            _ => 27,
        }
    }

    /// Whether it has a lid, which a solid block above holds shut.
    pub fn is_chest(self) -> bool {
        matches!(self, Self::Chest | Self::TrappedChest)
    }

    /// The window Valence opens for it.
    pub fn window(self, halves: usize) -> InventoryKind {
        match self {
            Self::Oven(Oven::Furnace) => InventoryKind::Furnace,
            Self::Oven(Oven::Smoker) => InventoryKind::Smoker,
            Self::Oven(Oven::BlastFurnace) => InventoryKind::BlastFurnace,
            _ if halves == 2 => InventoryKind::Generic9x6,
            _ => InventoryKind::Generic9x3,
        }
    }

    fn sounds(self) -> Option<(Sound, Sound)> {
        match self {
            Self::Chest | Self::TrappedChest => {
                Some((Sound::BlockChestOpen, Sound::BlockChestClose))
            }
            Self::Barrel => Some((Sound::BlockBarrelOpen, Sound::BlockBarrelClose)),
            Self::Oven(_) => None,
        }
    }
}

/// An open container's window: the entity every viewer's `OpenInventory` names.
#[derive(Component, Debug)]
pub(super) struct ContainerWindow {
    pub kind: Container,
    /// The blocks whose items it shows, 27 slots each, in the window's order.
    pub halves: Vec<BlockPos>,
}

/// The windows open on containers, by the container's first block, and how many look in.
#[derive(Resource, Debug, Default)]
pub(super) struct OpenContainers(pub FxHashMap<BlockPos, (Entity, u32)>);

/// A player looking into a container.
#[derive(Component, Debug, Clone, Copy)]
pub(super) struct AtContainer {
    pub window: Entity,
}

fn offset(d: Direction) -> (i32, i32) {
    match d {
        Direction::North => (0, -1),
        Direction::South => (0, 1),
        Direction::West => (-1, 0),
        Direction::East => (1, 0),
        _ => (0, 0),
    }
}

fn facing(state: BlockState) -> Option<Direction> {
    Some(match state.get(PropName::Facing)? {
        PropValue::North => Direction::North,
        PropValue::South => Direction::South,
        PropValue::West => Direction::West,
        PropValue::East => Direction::East,
        PropValue::Up => Direction::Up,
        PropValue::Down => Direction::Down,
        _ => return None,
    })
}

/// The blocks a container at `at` shows, first half first: a double chest's right half, then
/// its left (`ChestBlock.getBlockType`).
pub(super) fn halves(at: BlockPos, state: BlockState, layer: &ChunkLayer) -> Vec<BlockPos> {
    let kind = state.to_kind();
    let Some(facing) = facing(state) else {
        return vec![at];
    };
    let turn = |d: Direction| match d {
        Direction::North => Direction::East,
        Direction::East => Direction::South,
        Direction::South => Direction::West,
        _ => Direction::North,
    };
    let partner = match state.get(PropName::Type) {
        // A left half's partner is clockwise of its facing, a right half's the other way.
        Some(PropValue::Left) => Some((turn(facing), false)),
        Some(PropValue::Right) => Some((turn(turn(turn(facing))), true)),
        _ => None,
    };
    let Some((d, right)) = partner else {
        return vec![at];
    };
    let (dx, dz) = offset(d);
    let other = BlockPos::new(at.x + dx, at.y, at.z + dz);
    let paired = layer
        .block(other)
        .is_some_and(|b| b.state.to_kind() == kind);
    match (paired, right) {
        (false, _) => vec![at],
        (true, true) => vec![at, other],
        (true, false) => vec![other, at],
    }
}

/// Whether a chest cannot open: a block that conducts redstone stands on a half
/// (`ChestBlock.isChestBlockedAt`; opaque full blocks, nearly).
pub(super) fn blocked(halves: &[BlockPos], layer: &ChunkLayer) -> bool {
    halves.iter().any(|at| {
        layer
            .block(BlockPos::new(at.x, at.y + 1, at.z))
            .is_some_and(|b| b.state.is_opaque() && b.state.collision_shapes().count() == 1)
    })
}

/// The window's slots from the blocks' saved items.
pub(super) fn window_slots(
    kind: Container,
    halves: &[BlockPos],
    entities: &BlockEntities,
) -> Vec<Option<ItemStack>> {
    let each = kind.slots();
    let mut slots = vec![None; halves.len() * each];
    for (h, at) in halves.iter().enumerate() {
        let Some(entity) = entities.get(*at) else {
            continue;
        };
        for (slot, stack) in items_of(entity) {
            if usize::from(slot) < each {
                slots[h * each + usize::from(slot)] = Some(stack);
            }
        }
    }
    slots
}

/// Keeps the window's slots as the blocks' items, each half its own.
pub(super) fn keep(
    window: &ContainerWindow,
    slots: &[Option<ItemStack>],
    entities: &mut BlockEntities,
) {
    let each = window.kind.slots();
    for (h, at) in window.halves.iter().enumerate() {
        let Some(part) = slots.get(h * each..(h + 1) * each) else {
            continue;
        };
        let entity = entities.get(*at).cloned().unwrap_or_else(Compound::new);
        entities.set(*at, window.kind.id(), with_items(entity, part));
    }
}

/// The window's title: a custom name given in an anvil, or vanilla's.
pub(super) fn title(kind: Container, halves: &[BlockPos], entities: &BlockEntities) -> Text {
    let named = halves
        .iter()
        .find_map(|at| match entities.get(*at)?.get("CustomName") {
            Some(valence::nbt::Value::String(json)) => serde_json::from_str::<Text>(json).ok(),
            _ => None,
        });
    named.unwrap_or_else(|| {
        let key = match (kind, halves.len()) {
            (Container::Barrel, _) => "container.barrel",
            (Container::Oven(Oven::Furnace), _) => "container.furnace",
            (Container::Oven(Oven::Smoker), _) => "container.smoker",
            (Container::Oven(Oven::BlastFurnace), _) => "container.blast_furnace",
            (_, 2) => "container.chestDouble",
            _ => "container.chest",
        };
        Text::translate(key, Vec::new())
    })
}

/// The lid (a chest's block event 1 with the number looking in) and, on the first opening and
/// the last closing, the sound, vanilla's `ContainerOpenersCounter`; a barrel shows `open`.
pub(super) fn show_viewers(
    window: &ContainerWindow,
    (before, now): (u32, u32),
    layer: &mut ChunkLayer,
    seed: i64,
) {
    for at in &window.halves {
        let Some(state) = layer.block(*at).map(|b| b.state) else {
            continue;
        };
        match window.kind {
            Container::Barrel => {
                let open = if now > 0 {
                    PropValue::True
                } else {
                    PropValue::False
                };
                if state.get(PropName::Open) != Some(open) {
                    layer.set_block(
                        *at,
                        Block {
                            state: state.set(PropName::Open, open),
                            nbt: Some(Compound::new()),
                        },
                    );
                }
            }
            Container::Oven(_) => {}
            _ => {
                layer
                    .view_writer(ChunkPos::from_block_pos(*at))
                    .write_packet(&BlockEventS2c {
                        position: *at,
                        action_id: 1,
                        action_parameter: now.min(255) as u8,
                        block_type: VarInt(state.to_kind().to_raw() as i32),
                    });
            }
        }
    }
    let Some((open, close)) = window.kind.sounds() else {
        return;
    };
    let sound = match (before, now) {
        (0, n) if n > 0 => open,
        (b, 0) if b > 0 => close,
        _ => return,
    };
    // Between the halves of a double chest, at the middle of a single one or barrel; pitch
    // 0.9 to 1.
    let centre = window
        .halves
        .iter()
        .map(|at| DVec3::new(at.x as f64 + 0.5, at.y as f64 + 0.5, at.z as f64 + 0.5))
        .sum::<DVec3>()
        / window.halves.len() as f64;
    let pitch = 0.9 + (seed.unsigned_abs() % 100) as f32 / 1000.0;
    play(
        layer,
        sound,
        SoundCategory::Block,
        centre,
        (0.5, pitch),
        seed,
    );
}
