//! The terrain under the map: each chunk's surface as 256 colour indices, rendered on the map's
//! thread from the top blocks the tick passes on, and kept with a version so that a page asks
//! only for what changed.

use std::collections::HashMap;

use serde::Serialize;
use valence::prelude::*;

/// The colours a tile is drawn in; a tile is a string of indices into it (`'0' + i`).
pub const PALETTE: [&str; 12] = [
    "#000000", // 0: nothing seen (void)
    "#7f7f7f", // 1: stone and most solid blocks
    "#5d9e3c", // 2: grass
    "#3f76e4", // 3: water
    "#d9cf9a", // 4: sand
    "#2f6b1f", // 5: leaves
    "#8a6339", // 6: dirt, wood
    "#f4f8f8", // 7: snow
    "#a3c7f0", // 8: ice
    "#d85a13", // 9: lava
    "#4a4a4f", // 10: deepslate, bedrock, dark stone
    "#b4684d", // 11: clay, terracotta, bricks
];

/// The palette index a block is drawn in.
pub fn colour(block: BlockState) -> u8 {
    let name = block.to_kind().to_str();
    let has = |part: &str| name.contains(part);
    if block.is_air() {
        0
    } else if has("water") || has("kelp") || has("seagrass") {
        3
    } else if has("lava") || has("magma") {
        9
    } else if has("leaves") {
        5
    } else if has("grass") || has("moss") || has("lily") {
        2
    } else if has("sand") {
        4
    } else if has("snow") || has("powder") {
        7
    } else if has("ice") {
        8
    } else if has("dirt")
        || has("mud")
        || has("log")
        || has("wood")
        || has("plank")
        || has("podzol")
        || has("farmland")
        || has("path")
    {
        6
    } else if has("deepslate")
        || has("bedrock")
        || has("basalt")
        || has("blackstone")
        || has("obsidian")
    {
        10
    } else if has("clay") || has("terracotta") || has("brick") {
        11
    } else {
        1
    }
}

/// What the tick hands over: a new chunk's surface, or one column after an edit.
#[derive(Debug, Clone)]
pub enum TileUpdate {
    Chunk(ChunkPos, crate::world::surface::Surface),
    Column { x: i32, z: i32, top: BlockState },
}

#[derive(Serialize, Debug, Clone)]
pub struct TileView {
    pub x: i32,
    pub z: i32,
    /// 256 palette indices, `x + 16 * z`, each as the character `'0' + index`.
    pub c: String,
}

#[derive(Serialize, Debug)]
pub struct TerrainView {
    pub version: u64,
    pub palette: &'static [&'static str],
    pub tiles: Vec<TileView>,
}

/// Tiles kept at most (about 20 MB of JSON for a page that asks for all): past it the oldest
/// tenth goes.
const KEPT: usize = 65_536;

/// The tiles of the chunks seen, each with the version it last changed at.
#[derive(Debug, Default)]
pub struct Tiles {
    tiles: HashMap<(i32, i32), ([u8; 256], u64)>,
    version: u64,
    colours: Colours,
}

/// Palette indices by block kind, each worked out once: [`colour`] matches names, and a
/// traveller brings hundreds of chunks a second.
#[derive(Debug, Default)]
struct Colours(Vec<u8>);

impl Colours {
    const UNKNOWN: u8 = u8::MAX;

    fn of(&mut self, block: BlockState) -> u8 {
        let kind = block.to_kind().to_raw() as usize;
        if kind >= self.0.len() {
            self.0.resize(kind + 1, Self::UNKNOWN);
        }
        if self.0[kind] == Self::UNKNOWN {
            self.0[kind] = colour(block);
        }
        self.0[kind]
    }
}

impl Tiles {
    pub fn apply(&mut self, update: TileUpdate) {
        self.version += 1;
        if self.tiles.len() >= KEPT {
            let mut versions: Vec<u64> = self.tiles.values().map(|(_, v)| *v).collect();
            let cut = *versions.select_nth_unstable(KEPT / 10).1;
            self.tiles.retain(|_, (_, v)| *v > cut);
        }
        match update {
            TileUpdate::Chunk(pos, surface) => {
                let mut colours = [0; 256];
                for (c, block) in colours.iter_mut().zip(surface.iter()) {
                    *c = self.colours.of(*block);
                }
                self.tiles.insert((pos.x, pos.z), (colours, self.version));
            }
            TileUpdate::Column { x, z, top } => {
                let key = (x.div_euclid(16), z.div_euclid(16));
                let colour = self.colours.of(top);
                let tile = self.tiles.entry(key).or_insert(([0; 256], 0));
                tile.0[(x.rem_euclid(16) + 16 * z.rem_euclid(16)) as usize] = colour;
                tile.1 = self.version;
            }
        }
    }

    /// Tiles changed after version `since`.
    pub fn since(&self, since: u64) -> TerrainView {
        let tiles = self
            .tiles
            .iter()
            .filter(|(_, (_, v))| *v > since)
            .map(|(&(x, z), (colours, _))| TileView {
                x,
                z,
                c: colours.iter().map(|&i| (b'0' + i) as char).collect(),
            })
            .collect();
        TerrainView {
            version: self.version,
            palette: &PALETTE,
            tiles,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_take_the_colours_a_map_reader_expects() {
        assert_eq!(colour(BlockState::GRASS_BLOCK), 2);
        assert_eq!(colour(BlockState::WATER), 3);
        assert_eq!(colour(BlockState::OAK_LEAVES), 5);
        assert_eq!(colour(BlockState::STONE), 1);
        assert_eq!(colour(BlockState::SAND), 4);
        assert!(PALETTE.len() < 40, "one printable character per colour");
    }

    #[test]
    fn every_kind_keeps_its_colour_once_worked_out() {
        let mut colours = Colours::default();
        for _ in 0..2 {
            for kind in BlockKind::ALL {
                assert_eq!(
                    colours.of(kind.to_state()),
                    colour(kind.to_state()),
                    "{kind:?}"
                );
            }
        }
    }

    #[test]
    fn a_page_gets_only_what_changed_since_it_last_asked() {
        let mut tiles = Tiles::default();
        let surface: crate::world::surface::Surface = vec![BlockState::GRASS_BLOCK; 256].into();
        tiles.apply(TileUpdate::Chunk(ChunkPos::new(-1, 2), surface));
        let first = tiles.since(0);
        assert_eq!(first.tiles.len(), 1);
        assert_eq!(first.tiles[0].c, "2".repeat(256));
        assert!(tiles.since(first.version).tiles.is_empty());
        tiles.apply(TileUpdate::Column {
            x: -16,
            z: 33,
            top: BlockState::WATER,
        });
        let next = tiles.since(first.version);
        assert_eq!((next.tiles[0].x, next.tiles[0].z), (-1, 2));
        assert_eq!(&next.tiles[0].c[16..18], "32");
    }
}
