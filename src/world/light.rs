//! The light of the loaded chunks, kept beside the layer and sent to clients as vanilla sends
//! it. A chunk comes lit from its own blocks off the tick (by the terrain worker, or as
//! vanilla saved it); on the tick it is joined to its loaded neighbours, announced edits are
//! relit, and the sections that changed go to the clients viewing them. A client that starts
//! viewing a chunk gets its whole light just after Valence sends its blocks (Valence sends
//! chunks without light).
//!
//! Valence also raises every dimension's ambient light to full to hide the missing light;
//! the dimensions' own values are put back before anyone joins, so night is dark.

use rustc_hash::{FxHashMap, FxHashSet};
use valence::client::{FlushPacketsSet, UpdateClientsSet, View};
use valence::layer::chunk::{Chunk, LoadedChunk};
use valence::layer::Layer;
use valence::nbt::Value;
use valence::prelude::*;
use valence::protocol::encode::{PacketWriter, WritePacket};
use valence::protocol::packets::play::LightUpdateS2c;
use valence::protocol::CompressionThreshold;
use valence::protocol::{LengthPrefixedArray, VarInt};
use valence::registry::RegistryCodec;

use super::{BlocksChanged, Overworld, MIN_Y};
use crate::blocks::{light_facts, LightFacts};
use crate::light::{self, Access, ChunkLight, ChunkMap, Kind, SECTIONS};
use crate::schedule::BeforeLayersSet;

pub(super) struct LightPlugin;

impl Plugin for LightPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Light>()
            .add_systems(Startup, restore_ambient_light)
            .add_systems(PostUpdate, update_light.in_set(BeforeLayersSet))
            .add_systems(
                PostUpdate,
                send_light_to_new_viewers
                    .after(UpdateClientsSet)
                    .before(FlushPacketsSet),
            );
    }
}

/// The loaded chunks' light.
#[derive(Resource, Debug, Default)]
pub struct Light {
    chunks: ChunkMap<ChunkLight>,
    /// Chunks put in since the last update, lit from their own blocks alone: to be joined to
    /// their neighbours and sent whole to their viewers.
    arrived: Vec<ChunkPos>,
    /// Those of this tick, once joined: sent whole even to clients that viewed them before.
    sent_whole: Vec<ChunkPos>,
    /// Each chunk's whole light as clients are sent it, encoded (and compressed) where it was
    /// lit, off the tick, or on the tick for the first viewer after a change; gone when its
    /// light changes.
    packets: FxHashMap<ChunkPos, Vec<u8>>,
    /// The sections joining this tick's arrivals to their neighbours changed: sent after the
    /// packet encoded before the join.
    joined_since_lit: FxHashMap<ChunkPos, [u32; 2]>,
    /// Chunks whose light edits changed since the edits' record last took them: the light a
    /// save wrote for them is stale.
    relit: FxHashSet<ChunkPos>,
}

impl Light {
    /// The light of `kind` at `pos`, if its chunk is loaded.
    pub fn level(&self, kind: Kind, pos: BlockPos) -> Option<u8> {
        let chunk = self.chunks.get(ChunkPos::from_block_pos(pos))?;
        Some(chunk.get(kind, (pos.x & 15) as u32, pos.y, (pos.z & 15) as u32))
    }

    /// The sky light at `pos` (15 under the open sky, by day or night: the sky's darkening is
    /// the game's to apply).
    pub fn sky(&self, pos: BlockPos) -> Option<u8> {
        self.level(Kind::Sky, pos)
    }

    /// The block light at `pos`.
    pub fn block(&self, pos: BlockPos) -> Option<u8> {
        self.level(Kind::Block, pos)
    }

    /// The brightness at `pos` with the sky darkened by `darken` (vanilla's
    /// `getMaxLocalRawBrightness`): what mobs go by, spawning and burning.
    pub fn brightness(&self, pos: BlockPos, darken: i32) -> Option<u8> {
        Some(light::raw_brightness(
            self.sky(pos)?,
            self.block(pos)?,
            darken,
        ))
    }

    /// Whether the block at `pos` sees the sky straight up (vanilla's `canSeeSky`).
    pub fn sees_sky(&self, pos: BlockPos) -> Option<bool> {
        let chunk = self.chunks.get(ChunkPos::from_block_pos(pos))?;
        Some(pos.y >= chunk.source_y((pos.x & 15) as u32, (pos.z & 15) as u32))
    }

    /// A loaded chunk's light.
    pub fn chunk(&self, pos: ChunkPos) -> Option<&ChunkLight> {
        self.chunks.get(pos)
    }

    /// Takes in chunk `pos`, lit from its own blocks, with that light encoded as clients are
    /// sent it; it is joined at the next update.
    pub(super) fn insert(&mut self, pos: ChunkPos, light: ChunkLight, packet: Vec<u8>) {
        self.chunks.insert(pos, light);
        self.packets.insert(pos, packet);
        self.arrived.push(pos);
    }

    /// The chunks whose light edits changed since last asked.
    pub(super) fn take_relit(&mut self) -> FxHashSet<ChunkPos> {
        std::mem::take(&mut self.relit)
    }

    pub(super) fn remove(&mut self, pos: ChunkPos) {
        self.chunks.remove(pos);
        self.packets.remove(&pos);
    }

    /// Bytes held for light and its encoded packets, for the memory figures.
    pub fn heap_bytes(&self) -> usize {
        let packets: usize = self.packets.values().map(Vec::capacity).sum();
        self.chunks
            .values()
            .map(ChunkLight::heap_bytes)
            .sum::<usize>()
            + packets
    }
}

/// The blocks of the layer and the light beside them, as the engine reads them on the tick.
struct OnTick<'a> {
    layer: &'a ChunkLayer,
    light: &'a mut ChunkMap<ChunkLight>,
    /// The chunk last read, which the next read most likely wants again.
    last: Option<(ChunkPos, &'a LoadedChunk)>,
    /// Chunks whose light may have changed, and the last of them.
    touched: FxHashSet<ChunkPos>,
    last_touched: Option<ChunkPos>,
}

impl Access for OnTick<'_> {
    fn facts(&mut self, x: i32, y: i32, z: i32) -> Option<LightFacts> {
        let pos = ChunkPos::new(x >> 4, z >> 4);
        let chunk = match self.last {
            Some((at, chunk)) if at == pos => chunk,
            _ => {
                if !self.light.contains(pos) {
                    return None;
                }
                let chunk = self.layer.chunk(pos)?;
                self.last = Some((pos, chunk));
                chunk
            }
        };
        let from_bottom = y - MIN_Y;
        if from_bottom < 0 || from_bottom >= chunk.height() as i32 {
            return Some(LightFacts::AIR);
        }
        let state = chunk.block_state((x & 15) as u32, from_bottom as u32, (z & 15) as u32);
        Some(light_facts(state))
    }

    fn chunk(&mut self, cx: i32, cz: i32) -> Option<&mut ChunkLight> {
        let pos = ChunkPos::new(cx, cz);
        let chunk = self.light.get_mut(pos)?;
        if self.last_touched != Some(pos) {
            self.last_touched = Some(pos);
            self.touched.insert(pos);
        }
        Some(chunk)
    }

    fn chunk_ref(&self, cx: i32, cz: i32) -> Option<&ChunkLight> {
        self.light.get(ChunkPos::new(cx, cz))
    }
}

/// Joins the chunks that arrived to their neighbours, relights this tick's edits, and sends
/// the sections that changed to the clients viewing them. Chunks that arrived are sent whole
/// after Valence has sent their blocks.
fn update_light(
    mut light: ResMut<Light>,
    mut edits: EventReader<BlocksChanged>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let light = &mut *light;
    let arrived = std::mem::take(&mut light.arrived);
    let (joined, relit) = {
        let mut access = OnTick {
            layer: &layer,
            light: &mut light.chunks,
            last: None,
            touched: FxHashSet::default(),
            last_touched: None,
        };
        for &pos in &arrived {
            if access.light.contains(pos) {
                light::join(&mut access, pos);
            }
        }
        let joined = std::mem::take(&mut access.touched);
        access.last_touched = None;
        let changed = edits.iter().flat_map(|edit| {
            let (min, max) = (edit.min, edit.max);
            (min.x..=max.x).flat_map(move |x| {
                (min.y..=max.y).flat_map(move |y| (min.z..=max.z).map(move |z| [x, y, z]))
            })
        });
        light::relight(&mut access, changed);
        (joined, access.touched)
    };
    // Whole chunks go to their viewers after Valence sends the blocks, then what the join
    // changed in them; the rest as updates now.
    for &pos in &arrived {
        if let Some(chunk) = light.chunks.get_mut(pos) {
            let sections = chunk.take_changed();
            if sections != [0, 0] {
                light.joined_since_lit.insert(pos, sections);
            }
        }
    }
    for &pos in joined.iter().chain(&relit) {
        let Some(chunk) = light.chunks.get_mut(pos) else {
            continue;
        };
        let sections = chunk.take_changed();
        if sections != [0, 0] {
            let packet = light_packet(pos, chunk, sections, false);
            layer.view_writer(pos).write_packet(&packet);
            light.packets.remove(&pos);
            if relit.contains(&pos) {
                light.relit.insert(pos);
            }
        }
    }
    light.sent_whole = arrived;
}

/// The view each client has been sent the light of.
#[derive(Component, Debug)]
pub struct LitView(ChunkView);

/// Sends the whole light of each chunk a client began viewing this tick, and of each chunk
/// that arrived in a client's view, after Valence has sent their blocks.
fn send_light_to_new_viewers(
    mut commands: Commands,
    mut clients: Query<(Entity, &mut Client, View, Option<&mut LitView>)>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut light: ResMut<Light>,
    server: Res<Server>,
    mut joins: Local<FxHashMap<ChunkPos, Vec<u8>>>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let threshold = server.compression_threshold();
    let light = &mut *light;
    let (chunks, packets, joined) = (&light.chunks, &mut light.packets, &light.joined_since_lit);
    // Each chunk's packet is encoded once, whoever else is sent it.
    let mut send = |client: &mut Client, pos: ChunkPos| {
        let (Some(_), Some(chunk)) = (layer.chunk(pos), chunks.get(pos)) else {
            return;
        };
        let whole = packets
            .entry(pos)
            .or_insert_with(|| whole_light_packet(pos, chunk, threshold));
        client.write_packet_bytes(whole);
        if let Some(&sections) = joined.get(&pos) {
            let update = joins.entry(pos).or_insert_with(|| {
                let mut bytes = Vec::new();
                let packet = light_packet(pos, chunk, sections, false);
                PacketWriter::new(&mut bytes, threshold).write_packet(&packet);
                bytes
            });
            client.write_packet_bytes(update);
        }
    };
    for (entity, mut client, view, lit) in &mut clients {
        let view = view.get();
        let old = lit.as_ref().map(|l| l.0);
        if old != Some(view) {
            let newly: Vec<ChunkPos> = match old {
                Some(old) => view.diff(old).collect(),
                None => view.iter().collect(),
            };
            for pos in newly {
                send(&mut client, pos);
            }
        }
        for &pos in &light.sent_whole {
            let seen_before = old.is_some_and(|old| old.contains(pos));
            if view.contains(pos) && seen_before {
                send(&mut client, pos);
            }
        }
        match lit {
            Some(mut lit) => lit.0 = view,
            None => {
                commands.entity(entity).insert(LitView(view));
            }
        }
    }
    // The packets encoded before a join are stale from now on.
    for (pos, _) in light.joined_since_lit.drain() {
        light.packets.remove(&pos);
    }
    joins.clear();
}

/// Chunk `pos`'s whole light as the packet clients are sent, encoded for a connection that
/// compresses past `threshold`: made where the chunk is lit, off the tick.
pub(crate) fn whole_light_packet(
    pos: ChunkPos,
    light: &ChunkLight,
    threshold: CompressionThreshold,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    let packet = light_packet(pos, light, [(1 << SECTIONS) - 1; 2], true);
    PacketWriter::new(&mut bytes, threshold).write_packet(&packet);
    // Kept while the chunk is loaded: only what it holds.
    bytes.shrink_to_fit();
    bytes
}

/// Vanilla's light update for chunk `pos`: the sections in `sections` (a bit a section, sky
/// then block). Sent `whole`, sections a client need not be told of are left out: block
/// sections all dark, and sky sections all lit from the second above the last one that is not
/// (the client takes the sky as full above the highest section it has; vanilla, too, keeps
/// one lit section above the terrain).
fn light_packet(
    pos: ChunkPos,
    chunk: &ChunkLight,
    sections: [u32; 2],
    whole: bool,
) -> LightUpdateS2c {
    let mut masks = [[0u64; 2]; 2];
    let mut arrays: [Vec<LengthPrefixedArray<u8, 2048>>; 2] = [Vec::new(), Vec::new()];
    for kind in [Kind::Sky, Kind::Block] {
        let k = kind as usize;
        let layer = chunk.layer(kind);
        let highest_unlit = (0..SECTIONS).rev().find(|&s| !layer[s].is_all(15));
        for (s, section) in layer.iter().enumerate() {
            if sections[k] & 1 << s == 0 {
                continue;
            }
            let skip = whole
                && match kind {
                    Kind::Sky => highest_unlit.map_or(s > 0, |h| s > h + 1),
                    Kind::Block => section.is_all(0),
                };
            if skip {
                continue;
            }
            if section.is_all(0) {
                masks[k][1] |= 1 << s;
            } else {
                masks[k][0] |= 1 << s;
                arrays[k].push(LengthPrefixedArray(section.to_bytes()));
            }
        }
    }
    let [sky, block] = arrays;
    LightUpdateS2c {
        chunk_x: VarInt(pos.x),
        chunk_z: VarInt(pos.z),
        sky_light_mask: vec![masks[0][0]],
        block_light_mask: vec![masks[1][0]],
        empty_sky_light_mask: vec![masks[0][1]],
        empty_block_light_mask: vec![masks[1][1]],
        sky_light_arrays: sky,
        block_light_arrays: block,
    }
}

/// Puts back each dimension's own ambient light, which Valence raised to full for want of a
/// light engine; its registry still holds vanilla's values until the first update.
fn restore_ambient_light(mut dimensions: ResMut<DimensionTypeRegistry>, codec: Res<RegistryCodec>) {
    for value in codec.registry(DimensionTypeRegistry::KEY) {
        let Some(Value::Float(ambient)) = value.element.get("ambient_light") else {
            continue;
        };
        if let Some(dimension) = dimensions.get_mut(value.name.as_str_ident()) {
            dimension.ambient_light = *ambient;
        }
    }
}
