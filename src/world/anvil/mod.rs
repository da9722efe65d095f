//! The world folder's terrain in Minecraft's Anvil format: chunks are read from `region/` on a
//! worker thread, and chunks players changed are written back at every save.
//!
//! Valence's own Anvil reader caches region headers for good, so it could never see what horde
//! writes; one [`RegionFolder`] behind a lock serves both the reader and the saves instead.

mod chunk;
mod entities;
pub mod heightmap;
mod region;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use valence::layer::chunk::UnloadedChunk;
use valence::nbt::Compound;
use valence::prelude::*;
use valence::protocol::CompressionThreshold;

use super::light::whole_light_packet;
use super::nav::NavChunk;
use super::surface::{surface, Surface};
use super::HEIGHT;
use crate::light::{light_chunk, saved_light, ChunkLight};

pub use chunk::{encode_biomes, encode_blocks, BiomeNames, ChunkEdit, SectionEdit, SECTIONS};
pub use entities::EntityRegions;
use region::RegionFolder;
pub use region::Written;

/// Minecraft 1.20.1's data version, stamped on every file horde writes, as vanilla does.
pub const DATA_VERSION: i32 = 3465;

/// The region folder, shared by the chunk loader's thread and whichever thread saves.
#[derive(Resource, Debug, Clone)]
pub struct Regions(Arc<Mutex<RegionFolder>>);

impl Regions {
    pub fn new(world_dir: &std::path::Path) -> Self {
        Self(Arc::new(Mutex::new(RegionFolder::new(
            world_dir.join("region"),
        ))))
    }

    fn lock(&self) -> MutexGuard<'_, RegionFolder> {
        // A thread that panicked mid-write left the files as they were (writes are renames).
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes changed chunks, one region file at a time.
    pub fn write(&self, edits: &[ChunkEdit]) -> SaveOutcome {
        let mut by_region: BTreeMap<_, Vec<&ChunkEdit>> = BTreeMap::new();
        for edit in edits {
            by_region
                .entry(region::region_of(edit.pos).0)
                .or_default()
                .push(edit);
        }
        let mut outcome = SaveOutcome::default();
        for (region, edits) in by_region {
            let positions: Vec<ChunkPos> = edits.iter().map(|e| e.pos).collect();
            let mut needs_whole = Vec::new();
            // A damaged file must cost its own chunks, not the server: the writer's parsing is
            // fastanvil's, and a panic there is an error here.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.lock().write(region, &positions, |pos, original| {
                    let edit = edits.iter().find(|e| e.pos == pos)?;
                    let chunk = chunk::written(original, edit);
                    if chunk.is_none() {
                        needs_whole.push(pos);
                    }
                    chunk
                })
            }))
            .unwrap_or_else(|_| {
                Err(anyhow::anyhow!(
                    "writing r.{}.{}.mca failed unexpectedly",
                    region.0,
                    region.1
                ))
            });
            match result {
                Ok(written) => {
                    outcome.written.chunks += written.chunks;
                    outcome.written.bytes += written.bytes;
                    outcome
                        .saved
                        .extend(positions.into_iter().filter(|p| !needs_whole.contains(p)));
                    outcome.needs_whole.extend(needs_whole);
                }
                Err(e) => {
                    outcome.error.get_or_insert(format!("{e:#}"));
                    outcome.failed.extend(positions);
                }
            }
        }
        outcome
    }
}

/// What a terrain save did, reported back to the tick.
#[derive(Debug, Clone, Default)]
pub struct SaveOutcome {
    pub written: Written,
    pub saved: Vec<ChunkPos>,
    /// Not written: to be tried again at the next save.
    pub failed: Vec<ChunkPos>,
    /// Only some sections changed but the region no longer had the chunk to patch.
    pub needs_whole: Vec<ChunkPos>,
    /// The first error, if any region failed.
    pub error: Option<String>,
}

/// A chunk as the loader found it.
pub enum Loaded {
    /// The chunk with its surface, walkability and light, found on the reading thread.
    /// The chunk, with what the reading thread made of it.
    Chunk(Box<ReadChunk>),
    /// Not in the region folder (or not fully generated there): the generator makes it.
    Missing,
    /// Unreadable; its region file was copied to the path given (if it could be).
    Unreadable(anyhow::Error, Option<PathBuf>),
}

/// A chunk read from the region folder, and what the reading thread found out about it.
pub struct ReadChunk {
    pub blocks: UnloadedChunk,
    pub surface: Surface,
    pub nav: NavChunk,
    pub light: ChunkLight,
    /// Its whole light as clients are sent it, encoded off the tick.
    pub light_packet: Vec<u8>,
    /// The block entities the server keeps to itself.
    pub kept: Vec<Compound>,
}

/// The region reader's thread and the chunks handed to it.
#[derive(Resource)]
pub struct Loader {
    requests: flume::Sender<ChunkPos>,
    done: flume::Receiver<(ChunkPos, Loaded)>,
    in_flight: HashSet<ChunkPos>,
}

impl Loader {
    /// Starts the reading thread; light packets are encoded for a connection compressing past
    /// `threshold`.
    pub fn start(regions: Regions, biomes: BiomeNames, threshold: CompressionThreshold) -> Self {
        let (requests, todo) = flume::unbounded::<ChunkPos>();
        let (finished, done) = flume::unbounded();
        std::thread::Builder::new()
            .name("region reader".into())
            .spawn(move || {
                for pos in todo.iter() {
                    let loaded =
                        std::panic::catch_unwind(|| load(&regions, &biomes, pos, threshold))
                            .unwrap_or_else(|_| {
                                Loaded::Unreadable(
                                    anyhow::anyhow!("reading it failed unexpectedly"),
                                    None,
                                )
                            });
                    if finished.send((pos, loaded)).is_err() {
                        break;
                    }
                }
            })
            .expect("the OS refused to start the region reader thread");
        Self {
            requests,
            done,
            in_flight: HashSet::new(),
        }
    }

    pub fn request(&mut self, pos: ChunkPos) {
        if self.in_flight.insert(pos) {
            // The thread lives as long as the loader: a send cannot fail.
            let _ = self.requests.send(pos);
        }
    }

    /// Chunks read since the last call.
    pub fn finished(&mut self) -> Vec<(ChunkPos, Loaded)> {
        let done: Vec<_> = self.done.try_iter().collect();
        for (pos, _) in &done {
            self.in_flight.remove(pos);
        }
        done
    }
}

pub(crate) fn load(
    regions: &Regions,
    biomes: &BiomeNames,
    pos: ChunkPos,
    threshold: CompressionThreshold,
) -> Loaded {
    // Decoding happens outside the lock so a save waits only for file reads.
    let read = regions.lock().read(pos);
    let error = match read.map(|nbt| nbt.map(|nbt| chunk::decode(&nbt, biomes))) {
        Ok(Some(Ok(Some(chunk::Decoded { chunk, kept, light })))) => {
            let block = |x, y, z| chunk.block_state(x, y, z);
            let (surface, nav) = (surface(block, HEIGHT), NavChunk::of(block));
            let light = match light {
                Some([sky, block_light]) => saved_light(sky, block_light, block),
                None => light_chunk(block),
            };
            let light_packet = whole_light_packet(pos, &light, threshold);
            return Loaded::Chunk(Box::new(ReadChunk {
                blocks: chunk,
                surface,
                nav,
                light,
                light_packet,
                kept,
            }));
        }
        Ok(None) | Ok(Some(Ok(None))) => return Loaded::Missing,
        Ok(Some(Err(e))) | Err(e) => e,
    };
    let aside = regions.lock().keep_aside(region::region_of(pos).0);
    match aside {
        Ok(path) => Loaded::Unreadable(error, path),
        Err(e) => Loaded::Unreadable(error.context(format!("not kept aside: {e:#}")), None),
    }
}
