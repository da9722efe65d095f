//! One chunk's NBT as Minecraft 1.18 and later keep it in a region file (`sections` of paletted
//! `block_states` and `biomes`, `block_entities` beside them), to and from Valence's chunks.
//!
//! Writing patches: a chunk that came from the region folder keeps everything horde does not
//! model (structures, ticks, block entities of untouched blocks, entities, other mods' keys);
//! only the changed sections' blocks are replaced, and the heightmaps and light are written as
//! they are now.

use std::collections::HashMap;

use anyhow::{bail, ensure, Context};
use valence::layer::chunk::{Chunk, UnloadedChunk};
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;
use valence::registry::biome::BiomeId;
use valence::registry::RegistryIdx;

use super::DATA_VERSION;
use crate::light::{self, ChunkLight, Kind, Nibbles, SECTION_BYTES};
use crate::world::block_entities::{self, client_view, id_of, upgraded};
use crate::world::{HEIGHT, MIN_Y};

const BLOCKS_PER_SECTION: usize = 16 * 16 * 16;
const BIOMES_PER_SECTION: usize = 4 * 4 * 4;
/// Sections in a column, and the `Y` of the lowest.
pub const SECTIONS: u32 = HEIGHT / 16;
const BOTTOM_SECTION: i32 = MIN_Y.div_euclid(16);
/// The `Y` of the lowest light section, below the world.
const LIGHT_BOTTOM_SECTION: i32 = light::LOW_Y.div_euclid(16);

/// Biome names by registry id and back, for reading and writing `biomes` palettes.
#[derive(Resource, Debug, Clone, Default)]
pub struct BiomeNames {
    names: Vec<String>,
    ids: HashMap<String, BiomeId>,
}

impl BiomeNames {
    pub fn new(registry: &BiomeRegistry) -> Self {
        let mut names = Vec::new();
        let mut ids = HashMap::new();
        for (id, name, _) in registry.iter() {
            let index = id.to_index();
            if names.len() <= index {
                names.resize(index + 1, String::new());
            }
            names[index] = name.to_string();
            ids.insert(name.to_string(), id);
        }
        Self { names, ids }
    }

    /// An unknown biome reads as the registry's first (vanilla would drop the chunk's biome
    /// data too, so this is only ever a world from a newer version).
    fn id(&self, name: &str) -> BiomeId {
        self.ids.get(name).copied().unwrap_or_default()
    }

    fn name(&self, id: BiomeId) -> &str {
        match self.names.get(id.to_index()) {
            Some(name) if !name.is_empty() => name,
            _ => "minecraft:plains",
        }
    }
}

/// The `DataVersion` (a 1.20 snapshot) from which vanilla keeps a chunk's saved light: its
/// light engine changed there, and it deletes older chunks' light to compute it again
/// (`ChunkDeleteLightFix`).
const LIGHT_ENGINE_VERSION: i32 = 3451;

/// A chunk as its region file holds it.
pub(super) struct Decoded {
    pub chunk: UnloadedChunk,
    /// The block entities the server keeps (`block_entities::kept`), whole.
    pub kept: Vec<Compound>,
    /// The light saved with it, when it was finished and lit (else it is lit from its blocks).
    pub light: Option<SavedLight>,
}

/// Each light section's saved sky and block arrays, where the chunk has one.
pub(super) type SavedLight = [[Option<Nibbles>; light::SECTIONS]; 2];

/// The chunk a region file holds, or `None` when vanilla had not yet finished its terrain
/// (proto chunks at the edge of the explored world, still being shaped), which horde's
/// generator then supplies.
pub(super) fn decode(root: &Compound, biomes: &BiomeNames) -> anyhow::Result<Option<Decoded>> {
    let version = match root.get("DataVersion") {
        Some(Value::Int(version)) => *version,
        _ => 0,
    };
    // Newer blocks would be misread, and a patch would stamp 1.20.1 names on them.
    ensure!(
        version <= DATA_VERSION,
        "chunk from a newer Minecraft (DataVersion {version})"
    );
    let finished = match root.get("Status") {
        Some(Value::String(status)) if has_its_blocks(status) => {
            status.strip_prefix("minecraft:").unwrap_or(status) == "full"
        }
        Some(Value::String(_)) => return Ok(None),
        _ if root.contains_key("Level") => bail!("chunk from before Minecraft 1.18"),
        _ => bail!("chunk without a Status"),
    };
    let lit = finished
        && version >= LIGHT_ENGINE_VERSION
        && matches!(root.get("isLightOn"), Some(Value::Byte(b)) if *b != 0);
    let mut saved: Option<SavedLight> = lit.then(Default::default);
    let mut chunk = UnloadedChunk::with_height(HEIGHT);
    let mut states = Vec::new();
    let mut cells = Vec::new();
    for section in compounds(root.get("sections")).context("sections")? {
        let Some(Value::Byte(y)) = section.get("Y") else {
            bail!("a section without Y");
        };
        if let Some(light) = &mut saved {
            if !read_light(section, *y, light) {
                // Vanilla would refuse the chunk; its light is found from its blocks instead.
                saved = None;
            }
        }
        // Vanilla adds light-only sections above and below the world.
        let Some(sy) = section_index(*y as i32) else {
            continue;
        };
        if let Some(Value::Compound(blocks)) = section.get("block_states") {
            states.clear();
            for entry in compounds(blocks.get("palette")).context("block palette")? {
                states.push(block_state(entry)?);
            }
            if let [only] = states[..] {
                chunk.fill_block_state_section(sy, only);
            } else {
                unpack(
                    blocks.get("data"),
                    states.len(),
                    BLOCKS_PER_SECTION,
                    4,
                    |i, p| {
                        let (x, y, z) = block_xyz(i);
                        chunk.set_block_state(x, sy * 16 + y, z, states[p]);
                    },
                )
                .context("block states")?;
            }
        }
        if let Some(Value::Compound(section_biomes)) = section.get("biomes") {
            let Some(Value::List(List::String(names))) = section_biomes.get("palette") else {
                bail!("biomes without a palette");
            };
            cells.clear();
            cells.extend(names.iter().map(|n| biomes.id(n)));
            if let [only] = cells[..] {
                chunk.fill_biome_section(sy, only);
            } else {
                unpack(
                    section_biomes.get("data"),
                    cells.len(),
                    BIOMES_PER_SECTION,
                    1,
                    |i, p| {
                        let (x, y, z) = (i % 4, i / 16, i / 4 % 4);
                        chunk.set_biome(x as u32, sy * 4 + y as u32, z as u32, cells[p]);
                    },
                )
                .context("biomes")?;
            }
        }
    }
    let mut kept = Vec::new();
    for entity in compounds(root.get("block_entities")).unwrap_or_default() {
        let Some((x, y, z)) = block_entity_pos(entity) else {
            continue;
        };
        let Some(y) = y.checked_sub(MIN_Y).filter(|y| (*y as u32) < HEIGHT) else {
            continue;
        };
        let (x, y, z) = (x.rem_euclid(16) as u32, y as u32, z.rem_euclid(16) as u32);
        if chunk.block_state(x, y, z).block_entity_kind().is_none() {
            continue;
        }
        let entity = upgraded(entity.clone());
        chunk.set_block_entity(x, y, z, Some(client_view(&entity)));
        if id_of(&entity).is_some_and(block_entities::kept) {
            kept.push(entity);
        }
    }
    Ok(Some(Decoded {
        chunk,
        kept,
        light: saved,
    }))
}

/// Takes section `y`'s saved light arrays into `light`; false if one is not a section's length.
fn read_light(section: &Compound, y: i8, light: &mut SavedLight) -> bool {
    let Some(s) = usize::try_from(i32::from(y) - LIGHT_BOTTOM_SECTION)
        .ok()
        .filter(|&s| s < light::SECTIONS)
    else {
        return true;
    };
    for (kind, key) in [(Kind::Sky, "SkyLight"), (Kind::Block, "BlockLight")] {
        if let Some(Value::ByteArray(bytes)) = section.get(key) {
            let Ok(bytes) = <&[i8; SECTION_BYTES]>::try_from(&bytes[..]) else {
                return false;
            };
            light[kind as usize][s] = Nibbles::from_bytes(&bytes.map(|b| b as u8));
        }
    }
    true
}

/// Whether a chunk of generation status `status` holds its terrain. Vanilla shapes a chunk's
/// stone (noise), then gives it its surface (grass, sand) and carves its caves, and at
/// `features` places its trees, ores and structure pieces; the steps after change no block of
/// its own. A chunk from `surface` on is served as saved (lit by horde, without the features
/// vanilla had yet to place): making it anew with horde's generator would replace vanilla's
/// terrain and leave a seam against its neighbours, and cut the trees that reach into it from
/// them.
fn has_its_blocks(status: &str) -> bool {
    matches!(
        status.strip_prefix("minecraft:").unwrap_or(status),
        "surface"
            | "carvers"
            | "liquid_carvers"
            | "features"
            | "initialize_light"
            | "light"
            | "spawn"
            | "heightmaps"
            | "full"
    )
}

/// Whether vanilla has lit a chunk of status `status`. Before, it takes no light from the file
/// and lights the chunk itself once it has placed the rest of its blocks.
fn is_lit(status: &str) -> bool {
    matches!(
        status.strip_prefix("minecraft:").unwrap_or(status),
        "light" | "spawn" | "heightmaps" | "full"
    )
}

/// A section's index from the bottom of the world, if `y` (in sections) is inside it.
fn section_index(y: i32) -> Option<u32> {
    let index = y - BOTTOM_SECTION;
    (0..SECTIONS as i32)
        .contains(&index)
        .then_some(index as u32)
}

/// Position of block `i` in a section's YZX order.
fn block_xyz(i: usize) -> (u32, u32, u32) {
    ((i % 16) as u32, (i / 256) as u32, (i / 16 % 16) as u32)
}

fn compounds(value: Option<&Value>) -> anyhow::Result<&[Compound]> {
    match value {
        Some(Value::List(List::Compound(list))) => Ok(list),
        // An empty list has no element type.
        Some(Value::List(List::End)) => Ok(&[]),
        Some(_) => bail!("not a list of compounds"),
        None => bail!("missing"),
    }
}

fn block_entity_pos(entity: &Compound) -> Option<(i32, i32, i32)> {
    let int = |key| match entity.get(key) {
        Some(Value::Int(v)) => Some(*v),
        _ => None,
    };
    Some((int("x")?, int("y")?, int("z")?))
}

/// A palette entry (`Name` and `Properties`) as a block state.
fn block_state(entry: &Compound) -> anyhow::Result<BlockState> {
    let Some(Value::String(name)) = entry.get("Name") else {
        bail!("a palette entry without a Name");
    };
    let Some(kind) = crate::blocks::block_kind(name) else {
        bail!("unknown block {name}");
    };
    let mut state = kind.to_state();
    if let Some(Value::Compound(props)) = entry.get("Properties") {
        for (key, value) in props {
            let (Some(prop), Value::String(value)) = (PropName::from_str(key), value) else {
                bail!("unknown property {key} of {name}");
            };
            let Some(value) = PropValue::from_str(value) else {
                bail!("unknown value {value} of {name}'s {key}");
            };
            state = state.set(prop, value);
        }
    }
    Ok(state)
}

fn state_entry(state: BlockState) -> Compound {
    let kind = state.to_kind();
    let mut entry = Compound::new();
    entry.insert("Name", format!("minecraft:{}", kind.to_str()));
    if !kind.props().is_empty() {
        let mut props = Compound::new();
        for &prop in kind.props() {
            if let Some(value) = state.get(prop) {
                props.insert(prop.to_str(), value.to_str());
            }
        }
        entry.insert("Properties", props);
    }
    entry
}

/// Bits per palette index for `palette_len` entries (at least `min_bits`).
fn bits_for(palette_len: usize, min_bits: usize) -> usize {
    let bits = (usize::BITS - (palette_len.max(2) - 1).leading_zeros()) as usize;
    bits.max(min_bits)
}

/// Calls `each(i, palette_index)` for the `len` indices packed in `data` as Minecraft 1.16 and
/// later pack them: no index spans two longs.
fn unpack(
    data: Option<&Value>,
    palette_len: usize,
    len: usize,
    min_bits: usize,
    mut each: impl FnMut(usize, usize),
) -> anyhow::Result<()> {
    ensure!(palette_len > 0, "empty palette");
    let Some(Value::LongArray(data)) = data else {
        bail!("a palette of {palette_len} without data");
    };
    let bits = bits_for(palette_len, min_bits);
    let per_long = 64 / bits;
    ensure!(
        data.len() == len.div_ceil(per_long),
        "{} longs for {len} indices of {bits} bits",
        data.len()
    );
    let mask = (1u64 << bits) - 1;
    for i in 0..len {
        let word = data[i / per_long] as u64;
        let index = ((word >> (i % per_long * bits)) & mask) as usize;
        ensure!(
            index < palette_len,
            "index {index} in a palette of {palette_len}"
        );
        each(i, index);
    }
    Ok(())
}

fn pack(indices: &[usize], palette_len: usize, min_bits: usize) -> Vec<i64> {
    let bits = bits_for(palette_len, min_bits);
    let per_long = 64 / bits;
    indices
        .chunks(per_long)
        .map(|group| {
            let word = group.iter().enumerate().fold(0u64, |word, (j, &index)| {
                word | (index as u64) << (j * bits)
            });
            word as i64
        })
        .collect()
}

/// Builds a palette and the index of each entry in it.
fn palettize<T: Copy + PartialEq>(entries: impl Iterator<Item = T>) -> (Vec<T>, Vec<usize>) {
    let mut palette: Vec<T> = Vec::new();
    let mut last = None;
    let indices = entries
        .map(|entry| match last {
            // Neighbouring blocks are mostly alike: try the last hit before searching.
            Some((seen, index)) if seen == entry => index,
            _ => {
                let index = palette.iter().position(|&p| p == entry).unwrap_or_else(|| {
                    palette.push(entry);
                    palette.len() - 1
                });
                last = Some((entry, index));
                index
            }
        })
        .collect();
    (palette, indices)
}

/// Section `sy`'s `block_states` compound.
pub fn encode_blocks(chunk: &impl Chunk, sy: u32) -> Compound {
    let (palette, indices) = palettize((0..BLOCKS_PER_SECTION).map(|i| {
        let (x, y, z) = block_xyz(i);
        chunk.block_state(x, sy * 16 + y, z)
    }));
    let mut blocks = Compound::new();
    if palette.len() > 1 {
        blocks.insert("data", Value::LongArray(pack(&indices, palette.len(), 4)));
    }
    let entries = palette.into_iter().map(state_entry).collect();
    blocks.insert("palette", List::Compound(entries));
    blocks
}

/// Section `sy`'s `biomes` compound.
pub fn encode_biomes(chunk: &impl Chunk, sy: u32, names: &BiomeNames) -> Compound {
    let (palette, indices) = palettize(
        (0..BIOMES_PER_SECTION)
            .map(|i| chunk.biome((i % 4) as u32, sy * 4 + (i / 16) as u32, (i / 4 % 4) as u32)),
    );
    let mut biomes = Compound::new();
    if palette.len() > 1 {
        biomes.insert("data", Value::LongArray(pack(&indices, palette.len(), 1)));
    }
    let entries = palette
        .iter()
        .map(|&id| names.name(id).to_owned())
        .collect();
    biomes.insert("palette", List::String(entries));
    biomes
}

/// A changed chunk, encoded on the tick for the writer.
#[derive(Debug, Clone)]
pub struct ChunkEdit {
    pub pos: ChunkPos,
    /// The changed sections; for a chunk the region folder does not have, every section.
    pub sections: Vec<SectionEdit>,
    /// Whether this is the whole chunk (it came from the generator, not the region folder).
    pub whole: bool,
    /// Its `Heightmaps`, from all of its blocks as they are now.
    pub heightmaps: Compound,
    /// Its light as it is now, if known; without it, vanilla is left to light it again.
    pub light: Option<ChunkLight>,
    /// The block entities the server keeps to itself, all of the chunk's: they replace
    /// those of the same kinds the region file has.
    pub kept: Vec<Compound>,
}

#[derive(Debug, Clone)]
pub struct SectionEdit {
    /// Index from the bottom of the world.
    pub index: u32,
    pub block_states: Compound,
    /// Written with a whole chunk, or when the original lacks the section; a patched section
    /// keeps its own.
    pub biomes: Compound,
}

impl SectionEdit {
    fn section(&self) -> Compound {
        let mut section = Compound::new();
        section.insert("Y", (self.index as i32 + BOTTOM_SECTION) as i8);
        section.insert("block_states", self.block_states.clone());
        section.insert("biomes", self.biomes.clone());
        section
    }
}

/// The chunk's new NBT: the edit patched into `original`, or a whole new chunk. `None` when
/// only some sections changed but there is no `original` to patch (the region file was
/// replaced or damaged under a running server): the caller must send the whole chunk.
pub(super) fn written(original: Option<Compound>, edit: &ChunkEdit) -> Option<Compound> {
    if edit.whole {
        return Some(whole_chunk(edit));
    }
    let mut root = original?;
    let mut sections = match root.remove("sections") {
        Some(Value::List(List::Compound(sections))) => sections,
        Some(Value::List(List::End)) => Vec::new(),
        _ => return None,
    };
    for change in &edit.sections {
        let y = change.index as i32 + BOTTOM_SECTION;
        match sections
            .iter_mut()
            .find(|s| matches!(s.get("Y"), Some(Value::Byte(b)) if *b as i32 == y))
        {
            Some(section) => {
                section.insert("block_states", change.block_states.clone());
            }
            None => sections.push(change.section()),
        }
    }
    let lit = matches!(root.get("Status"), Some(Value::String(status)) if is_lit(status));
    let light = edit.light.as_ref().filter(|_| lit);
    put_light(&mut sections, light);
    root.insert("sections", List::Compound(sections));
    prune_block_entities(&mut root, edit);
    replace_kept(&mut root, &edit.kept);
    root.insert("Heightmaps", edit.heightmaps.clone());
    root.insert("isLightOn", light.is_some());
    Some(root)
}

/// Replaces the sections' light with `light`, as vanilla saves it, in sections of their own
/// above and below the world. Without it none is left: the saved light would outlive a dug
/// torch, and vanilla lights a chunk not marked lit again.
fn put_light(sections: &mut Vec<Compound>, light: Option<&ChunkLight>) {
    let y_of = |s: &Compound| match s.get("Y") {
        Some(Value::Byte(y)) => *y,
        _ => i8::MIN,
    };
    for section in sections.iter_mut() {
        section.remove("BlockLight");
        section.remove("SkyLight");
    }
    for (kind, s, bytes) in light.map(ChunkLight::to_saved).unwrap_or_default() {
        let y = (s as i32 + LIGHT_BOTTOM_SECTION) as i8;
        let at = match sections.iter().position(|section| y_of(section) == y) {
            Some(at) => at,
            None => {
                let mut section = Compound::new();
                section.insert("Y", y);
                sections.push(section);
                sections.len() - 1
            }
        };
        let key = match kind {
            Kind::Sky => "SkyLight",
            Kind::Block => "BlockLight",
        };
        sections[at].insert(key, bytes.map(|b| b as i8).to_vec());
    }
    sections.retain(|s| {
        ["block_states", "SkyLight", "BlockLight"]
            .into_iter()
            .any(|k| s.contains_key(k))
    });
    sections.sort_by_key(y_of);
}

/// Drops the block entities of changed sections whose block no longer carries that entity (a
/// dug chest), so vanilla does not warn about them.
fn prune_block_entities(root: &mut Compound, edit: &ChunkEdit) {
    let Some(Value::List(List::Compound(entities))) = root.get_mut("block_entities") else {
        return;
    };
    entities.retain(|entity| {
        let Some((x, y, z)) = block_entity_pos(entity) else {
            return true;
        };
        let Some(section) = section_index(y.div_euclid(16))
            .and_then(|index| edit.sections.iter().find(|s| s.index == index))
        else {
            return true;
        };
        let i = (y.rem_euclid(16) * 256 + z.rem_euclid(16) * 16 + x.rem_euclid(16)) as usize;
        let id = match entity.get("id") {
            Some(Value::String(id)) => id.strip_prefix("minecraft:").unwrap_or(id),
            _ => return false,
        };
        block_at(&section.block_states, i)
            .and_then(|state| state.block_entity_kind())
            .is_some_and(|kind| kind.ident().path() == id)
    });
}

/// Puts the chunk's kept block entities in place of those of their kinds in the file.
fn replace_kept(root: &mut Compound, kept: &[Compound]) {
    let mut entities = match root.remove("block_entities") {
        Some(Value::List(List::Compound(entities))) => entities,
        _ => Vec::new(),
    };
    entities.retain(|e| !id_of(e).is_some_and(block_entities::kept));
    entities.extend(kept.iter().cloned());
    let list = if entities.is_empty() {
        List::End
    } else {
        List::Compound(entities)
    };
    root.insert("block_entities", list);
}

/// Block `i` of an encoded section.
fn block_at(blocks: &Compound, i: usize) -> Option<BlockState> {
    let palette = compounds(blocks.get("palette")).ok()?;
    let mut found = None;
    if palette.len() == 1 {
        found = Some(0);
    } else {
        unpack(
            blocks.get("data"),
            palette.len(),
            BLOCKS_PER_SECTION,
            4,
            |j, p| {
                if j == i {
                    found = Some(p);
                }
            },
        )
        .ok()?;
    }
    block_state(palette.get(found?)?).ok()
}

/// A chunk horde generated, as vanilla writes a full chunk: blocks, biomes, light and
/// heightmaps, no block entities, ticks or structures.
fn whole_chunk(edit: &ChunkEdit) -> Compound {
    let mut root = Compound::new();
    root.insert("DataVersion", DATA_VERSION);
    root.insert("xPos", edit.pos.x);
    root.insert("zPos", edit.pos.z);
    root.insert("yPos", BOTTOM_SECTION);
    root.insert("Status", "minecraft:full");
    root.insert("LastUpdate", 0i64);
    root.insert("InhabitedTime", 0i64);
    root.insert("isLightOn", edit.light.is_some());
    let mut sections = edit.sections.iter().map(SectionEdit::section).collect();
    put_light(&mut sections, edit.light.as_ref());
    root.insert("sections", List::Compound(sections));
    let kept = if edit.kept.is_empty() {
        List::End
    } else {
        List::Compound(edit.kept.clone())
    };
    root.insert("block_entities", kept);
    root.insert("Heightmaps", edit.heightmaps.clone());
    root.insert("block_ticks", List::End);
    root.insert("fluid_ticks", List::End);
    // Vanilla's per-section lists of blocks to update after generation: none.
    let none = (0..SECTIONS).map(|_| List::End).collect();
    root.insert("PostProcessing", List::List(none));
    let mut structures = Compound::new();
    structures.insert("References", Compound::new());
    structures.insert("starts", Compound::new());
    root.insert("structures", structures);
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> BiomeNames {
        let mut names = BiomeNames::default();
        for (i, name) in ["minecraft:plains", "minecraft:desert"].iter().enumerate() {
            names.names.push(name.to_string());
            names.ids.insert(name.to_string(), BiomeId::from_index(i));
        }
        names
    }

    fn whole(chunk: &UnloadedChunk, pos: ChunkPos, names: &BiomeNames) -> ChunkEdit {
        ChunkEdit {
            pos,
            sections: (0..SECTIONS)
                .map(|index| SectionEdit {
                    index,
                    block_states: encode_blocks(chunk, index),
                    biomes: encode_biomes(chunk, index, names),
                })
                .collect(),
            whole: true,
            heightmaps: super::super::heightmap::encode(chunk),
            light: Some(lit(chunk)),
            kept: Vec::new(),
        }
    }

    fn lit(chunk: &UnloadedChunk) -> ChunkLight {
        light::light_chunk(|x, y, z| chunk.block_state(x, y, z))
    }

    /// The light a written chunk is read back with.
    fn light_read(root: &Compound, names: &BiomeNames) -> ChunkLight {
        let Decoded { chunk, light, .. } = decode(root, names).unwrap().unwrap();
        let [sky, block] = light.expect("the light is kept");
        light::saved_light(sky, block, |x, y, z| chunk.block_state(x, y, z))
    }

    fn assert_same_light(a: &ChunkLight, b: &ChunkLight) {
        for kind in [Kind::Sky, Kind::Block] {
            for (s, (p, q)) in a.layer(kind).iter().zip(b.layer(kind)).enumerate() {
                assert_eq!(p.to_bytes(), q.to_bytes(), "{kind:?} light of section {s}");
            }
        }
        for (x, z) in (0..16).flat_map(|x| (0..16).map(move |z| (x, z))) {
            assert_eq!(
                a.source_y(x, z),
                b.source_y(x, z),
                "the sky's reach at {x} {z}"
            );
        }
    }

    /// Section 4 of chunk 0 0 changed.
    fn section_four(chunk: &UnloadedChunk, names: &BiomeNames) -> ChunkEdit {
        ChunkEdit {
            pos: ChunkPos::new(0, 0),
            sections: vec![SectionEdit {
                index: 4,
                block_states: encode_blocks(chunk, 4),
                biomes: encode_biomes(chunk, 4, names),
            }],
            whole: false,
            heightmaps: super::super::heightmap::encode(chunk),
            light: Some(lit(chunk)),
            kept: Vec::new(),
        }
    }

    fn sample() -> UnloadedChunk {
        let mut chunk = UnloadedChunk::with_height(HEIGHT);
        chunk.fill_block_state_section(0, BlockState::BEDROCK);
        for x in 0..16 {
            for z in 0..16 {
                chunk.set_block_state(x, 70, z, BlockState::GRASS_BLOCK);
                chunk.set_block_state(x, 69, z, BlockState::DIRT);
            }
        }
        chunk.set_block_state(
            3,
            71,
            4,
            BlockState::OAK_STAIRS.set(PropName::Facing, PropValue::East),
        );
        chunk.set_block_state(5, 71, 5, BlockState::CHEST);
        chunk.set_block_state(8, 71, 8, BlockState::LANTERN);
        chunk.set_biome(1, 17, 2, BiomeId::from_index(1));
        chunk
    }

    #[test]
    fn a_whole_chunk_round_trips_blocks_and_biomes() {
        let names = names();
        let chunk = sample();
        let edit = whole(&chunk, ChunkPos::new(3, -2), &names);
        let root = written(None, &edit).unwrap();
        assert_eq!(
            root.get("Status"),
            Some(&Value::String("minecraft:full".into()))
        );
        let back = decode(&root, &names).unwrap().unwrap().chunk;
        for sy in 0..SECTIONS {
            for i in 0..BLOCKS_PER_SECTION {
                let (x, y, z) = block_xyz(i);
                assert_eq!(
                    back.block_state(x, sy * 16 + y, z),
                    chunk.block_state(x, sy * 16 + y, z)
                );
            }
        }
        assert_eq!(back.biome(1, 17, 2), BiomeId::from_index(1));
        assert_eq!(back.biome(0, 17, 2), BiomeId::from_index(0));
    }

    #[test]
    fn a_patch_replaces_only_changed_sections_and_keeps_the_rest() {
        let names = names();
        let mut chunk = sample();
        let mut original = written(None, &whole(&chunk, ChunkPos::new(0, 0), &names)).unwrap();
        original.insert("Heightmaps", Compound::new());
        original.insert("isLightOn", true);
        original.insert("CustomKey", 7i32);
        let mut chest = Compound::new();
        chest.insert("id", "minecraft:chest");
        for (key, v) in [("x", 5), ("y", 71 + MIN_Y), ("z", 5)] {
            chest.insert(key, v);
        }
        let mut banner = chest.clone();
        banner.insert("id", "minecraft:banner");
        banner.insert("y", MIN_Y + 1);
        original.insert("block_entities", List::Compound(vec![chest, banner]));
        if let Some(Value::List(List::Compound(sections))) = original.get_mut("sections") {
            for section in sections.iter_mut() {
                section.insert("SkyLight", Value::ByteArray(vec![0; 2048]));
            }
            let mut light_only = Compound::new();
            light_only.insert("Y", (BOTTOM_SECTION - 1) as i8);
            light_only.insert("SkyLight", Value::ByteArray(vec![0; 2048]));
            sections.push(light_only);
        }

        // The chest is dug; section 4 changes, the bedrock section does not.
        chunk.set_block_state(5, 71, 5, BlockState::AIR);
        let edit = section_four(&chunk, &names);
        let patched = written(Some(original), &edit).unwrap();
        assert_eq!(patched.get("CustomKey"), Some(&Value::Int(7)));
        let Some(Value::Compound(maps)) = patched.get("Heightmaps") else {
            panic!("no heightmaps");
        };
        assert_eq!(
            maps,
            &super::super::heightmap::encode(&chunk),
            "computed again"
        );
        assert_eq!(patched.get("isLightOn"), Some(&Value::Byte(1)));
        let sections = compounds(patched.get("sections")).unwrap();
        assert_eq!(
            sections.len(),
            SECTIONS as usize,
            "the stale light-only section goes"
        );
        assert_same_light(&light_read(&patched, &names), &lit(&chunk));
        let entities = compounds(patched.get("block_entities")).unwrap();
        assert_eq!(
            entities.len(),
            1,
            "the dug chest's entity goes, the other stays"
        );
        let back = decode(&patched, &names).unwrap().unwrap().chunk;
        assert_eq!(back.block_state(5, 71, 5), BlockState::AIR);
        assert_eq!(back.block_state(0, 0, 0), BlockState::BEDROCK);
        assert_eq!(back.biome(1, 17, 2), BiomeId::from_index(1));
    }

    #[test]
    fn a_section_the_original_lacks_is_added_with_its_biomes() {
        let names = names();
        let chunk = sample();
        let mut original = written(None, &whole(&chunk, ChunkPos::new(0, 0), &names)).unwrap();
        if let Some(Value::List(List::Compound(sections))) = original.get_mut("sections") {
            sections.retain(|s| s.get("Y") != Some(&Value::Byte((4 + BOTTOM_SECTION) as i8)));
        }
        let edit = section_four(&chunk, &names);
        let patched = written(Some(original), &edit).unwrap();
        let back = decode(&patched, &names).unwrap().unwrap().chunk;
        assert_eq!(back.block_state(5, 71, 5), BlockState::CHEST);
        assert_eq!(back.biome(1, 17, 2), BiomeId::from_index(1));
    }

    #[test]
    fn a_written_chunk_carries_its_light_as_vanilla_saves_it() {
        let names = names();
        let mut chunk = sample();
        // Open to the sky down to the bedrock at one column, so the sky reaches below the world.
        for y in 16..80 {
            chunk.set_block_state(0, y, 0, BlockState::AIR);
        }
        chunk.fill_block_state_section(0, BlockState::AIR);
        chunk.set_block_state(15, HEIGHT - 1, 15, BlockState::GLOWSTONE);
        let light = lit(&chunk);
        let mut edit = whole(&chunk, ChunkPos::new(0, 0), &names);
        edit.light = Some(light.clone());
        let root = written(None, &edit).unwrap();
        assert_eq!(root.get("isLightOn"), Some(&Value::Byte(1)));
        let ys: Vec<i8> = compounds(root.get("sections"))
            .unwrap()
            .iter()
            .filter_map(|s| match s.get("Y") {
                Some(Value::Byte(y)) => Some(*y),
                _ => None,
            })
            .collect();
        let low = LIGHT_BOTTOM_SECTION as i8;
        assert_eq!(ys.first(), Some(&low), "the sky's light below the world");
        assert_eq!(
            ys.last(),
            Some(&(low + 25)),
            "the glowstone's light above it"
        );
        assert!(ys.windows(2).all(|w| w[0] < w[1]), "{ys:?}");
        assert_same_light(&light_read(&root, &names), &light);

        edit.light = None;
        let root = written(None, &edit).unwrap();
        assert_eq!(root.get("isLightOn"), Some(&Value::Byte(0)));
        let sections = compounds(root.get("sections")).unwrap();
        assert_eq!(sections.len(), SECTIONS as usize);
        assert!(
            sections.iter().all(|s| s.len() == 3),
            "Y, blocks and biomes"
        );
    }

    #[test]
    fn saved_light_is_kept_for_finished_chunks_lit_since_1_20() {
        let mut edit = whole(&sample(), ChunkPos::new(0, 0), &names());
        edit.light = None;
        let mut root = written(None, &edit).unwrap();
        root.insert("isLightOn", true);
        if let Some(Value::List(List::Compound(sections))) = root.get_mut("sections") {
            sections[0].insert("SkyLight", vec![0x77u8 as i8; 2048]);
        }
        let light = |root: &Compound| decode(root, &names()).unwrap().unwrap().light;
        let [sky, block] = light(&root).expect("kept");
        assert_eq!(
            sky[1],
            Some(Nibbles::Uniform(7)),
            "the world's lowest section"
        );
        assert!(sky[0].is_none() && block.iter().all(Option::is_none));
        for (key, value) in [
            ("Status", Value::from("minecraft:spawn")),
            ("isLightOn", Value::from(false)),
            ("DataVersion", Value::from(LIGHT_ENGINE_VERSION - 1)),
        ] {
            let mut other = root.clone();
            other.insert(key, value);
            assert!(light(&other).is_none(), "{key}");
        }
        if let Some(Value::List(List::Compound(sections))) = root.get_mut("sections") {
            sections[3].insert("BlockLight", vec![0i8; 100]);
        }
        assert!(light(&root).is_none(), "an array cut short is not trusted");
    }

    #[test]
    fn a_chunk_from_a_newer_minecraft_is_not_read() {
        let mut root = written(None, &whole(&sample(), ChunkPos::new(0, 0), &names())).unwrap();
        root.insert("DataVersion", DATA_VERSION + 1);
        assert!(decode(&root, &names()).is_err());
    }

    #[test]
    fn a_partial_edit_without_its_original_asks_for_the_whole_chunk() {
        let edit = ChunkEdit {
            pos: ChunkPos::new(0, 0),
            sections: vec![],
            whole: false,
            heightmaps: Compound::new(),
            light: None,
            kept: Vec::new(),
        };
        assert!(written(None, &edit).is_none());
    }

    #[test]
    fn chunks_before_their_surface_are_left_to_the_generator_and_old_formats_are_errors() {
        for status in ["empty", "structure_starts", "biomes", "noise"] {
            let mut root = Compound::new();
            root.insert("Status", format!("minecraft:{status}"));
            assert!(decode(&root, &names()).unwrap().is_none(), "{status}");
        }
        let mut old = Compound::new();
        old.insert("Level", Compound::new());
        assert!(decode(&old, &names()).is_err());
    }

    #[test]
    fn a_chunk_with_its_terrain_is_served_and_left_for_vanilla_to_light() {
        let names = names();
        let chunk = sample();
        for status in ["surface", "carvers", "liquid_carvers", "features"] {
            let mut root = written(None, &whole(&chunk, ChunkPos::new(0, 0), &names)).unwrap();
            root.insert("Status", format!("minecraft:{status}"));
            let decoded = decode(&root, &names).unwrap().expect("served");
            assert!(decoded.light.is_none(), "{status}: lit by horde");
            assert_eq!(
                decoded.chunk.block_state(3, 71, 4),
                chunk.block_state(3, 71, 4)
            );
            // Vanilla lights it once it has placed its features.
            let patched = written(Some(root), &section_four(&chunk, &names)).unwrap();
            assert_eq!(patched.get("isLightOn"), Some(&Value::Byte(0)), "{status}");
            let sections = compounds(patched.get("sections")).unwrap();
            assert!(sections
                .iter()
                .all(|s| !s.contains_key("SkyLight") && !s.contains_key("BlockLight")));
        }
    }

    #[test]
    fn packing_matches_vanilla_bit_widths() {
        assert_eq!(bits_for(2, 4), 4);
        assert_eq!(bits_for(17, 4), 5);
        assert_eq!(bits_for(2, 1), 1);
        assert_eq!(bits_for(3, 1), 2);
        // 5 bits: 12 indices a long, 342 longs for a section, as vanilla writes.
        let indices: Vec<usize> = (0..BLOCKS_PER_SECTION).map(|i| i % 17).collect();
        let data = pack(&indices, 17, 4);
        assert_eq!(data.len(), 342);
        let mut back = vec![0; BLOCKS_PER_SECTION];
        unpack(
            Some(&Value::LongArray(data)),
            17,
            BLOCKS_PER_SECTION,
            4,
            |i, p| back[i] = p,
        )
        .unwrap();
        assert_eq!(back, indices);
    }
}
