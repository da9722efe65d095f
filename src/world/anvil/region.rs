//! The `region/` folder: `r.X.Z.mca` files of 32×32 chunks in 4 KiB sectors. Reads go through
//! a small cache of open files and inflate a chunk no further than [`CHUNK_CAP`]; a write
//! rebuilds the region in memory with `fastanvil` and renames it into place, so a crash
//! mid-save leaves the previous file whole.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{Cursor, Read, Seek};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use fastanvil::Region;
use valence::nbt::Compound;
use valence::prelude::ChunkPos;

/// X and Z of a region file.
pub(super) type RegionPos = (i32, i32);

/// Open region files kept at once; past it the cache starts over (vanilla keeps 256).
const OPEN_LIMIT: usize = 64;

/// Which region a chunk is in, and the chunk's slot inside it.
pub(super) fn region_of(pos: ChunkPos) -> (RegionPos, (usize, usize)) {
    (
        (pos.x.div_euclid(32), pos.z.div_euclid(32)),
        (pos.x.rem_euclid(32) as usize, pos.z.rem_euclid(32) as usize),
    )
}

/// What one region write did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    pub chunks: usize,
    pub bytes: u64,
}

/// Most bytes one chunk's NBT may inflate to, from its region or its `.mcc` file. A region
/// chunk is at most 1 MiB compressed (255 sectors), which deflate can inflate a thousandfold;
/// vanilla's largest chunks, full of block entities, stay within a few MiB. A chunk past the
/// cap is unreadable, as a damaged one is. A fuzz build caps at 1 MiB, so that a seed of a few
/// KiB holds a bomb and each of its runs stays quick.
#[cfg(not(fuzzing))]
const CHUNK_CAP: usize = 64 << 20;
#[cfg(fuzzing)]
const CHUNK_CAP: usize = 1 << 20;

/// A region file open for reading, and its length when opened.
struct OpenRegion {
    file: File,
    len: u64,
}

pub(super) struct RegionFolder {
    root: PathBuf,
    /// Open files, or `None` for a region that has no file.
    open: HashMap<RegionPos, Option<OpenRegion>>,
    /// Regions already copied aside this run.
    kept_aside: HashSet<RegionPos>,
}

impl std::fmt::Debug for RegionFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegionFolder")
            .field("root", &self.root)
            .field("open", &self.open.len())
            .finish()
    }
}

impl RegionFolder {
    pub(super) fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            open: HashMap::new(),
            kept_aside: HashSet::new(),
        }
    }

    fn path(&self, (x, z): RegionPos) -> PathBuf {
        self.root.join(format!("r.{x}.{z}.mca"))
    }

    /// A chunk's NBT, or `None` when its region has no such chunk.
    pub(super) fn read(&mut self, pos: ChunkPos) -> anyhow::Result<Option<Compound>> {
        let (region, _) = region_of(pos);
        if !self.open.contains_key(&region) {
            if self.open.len() >= OPEN_LIMIT {
                self.open.clear();
            }
            let file = match File::open(self.path(region)) {
                // Vanilla counts a file too short for its header as an empty region.
                Ok(file) if file.metadata()?.len() < HEADER_BYTES as u64 => None,
                Ok(file) => Some(OpenRegion {
                    len: file.metadata()?.len(),
                    file,
                }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(e.into()),
            };
            self.open.insert(region, file);
        }
        let Some(Some(open)) = self.open.get_mut(&region) else {
            return Ok(None);
        };
        let read_at = |at: u64, buf: &mut [u8]| open.file.read_exact_at(buf, at);
        if !slot_is_sound(open.len, slot(pos), read_at)? {
            anyhow::bail!(
                "chunk x={} z={}: its location or length in the region file is damaged",
                pos.x,
                pos.z
            );
        }
        read_chunk(read_at, &self.root, region, pos)
    }

    /// Copies a region file whose data cannot be read to `r.X.Z.mca.corrupt` (`.corrupt2`...)
    /// before horde writes over any of it: once a run, and not again while the file is what the
    /// last copy holds. Returns the copy's path when one was made.
    pub(super) fn keep_aside(&mut self, region: RegionPos) -> anyhow::Result<Option<PathBuf>> {
        let path = self.path(region);
        if !path.exists() || self.kept_aside.contains(&region) {
            return Ok(None);
        }
        let (last, free) = aside_paths(&path);
        let unchanged = match last {
            Some(last) => fs::read(&last).ok() == Some(fs::read(&path)?),
            None => false,
        };
        if !unchanged {
            fs::copy(&path, &free).with_context(|| format!("copying to {}", free.display()))?;
        }
        self.kept_aside.insert(region);
        Ok((!unchanged).then_some(free))
    }

    /// Rewrites one region with `chunks` replaced: `write(original)` returns each chunk's new
    /// NBT from what the file held (`None` skips the chunk). The new file is complete on disk
    /// before it replaces the old one.
    pub(super) fn write(
        &mut self,
        region: RegionPos,
        chunks: &[ChunkPos],
        mut write: impl FnMut(ChunkPos, Option<Compound>) -> Option<Compound>,
    ) -> anyhow::Result<Written> {
        let path = self.path(region);
        let old = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        // Each chunk as the file holds it, read before fastanvil takes the bytes over.
        let mut originals = Vec::with_capacity(chunks.len());
        for &pos in chunks {
            let original = if slot_is_sound_in(&old, slot(pos)) {
                read_chunk_in(&old, &self.root, region, pos)
            } else {
                Ok(None)
            };
            originals.push(original.or_else(|_| self.keep_aside(region).map(|_| None))?);
        }
        let mut file = if old.is_empty() || holds_no_chunk(&old) {
            Region::create(Cursor::new(Vec::new()))?
        } else if layout_is_sound(&old) {
            Region::from_stream(Cursor::new(old))?
        } else {
            // Locations fastanvil would write through: keep the file for the operator and
            // carry what can still be read into a new one.
            self.keep_aside(region)?;
            self.salvage(region, &old)?
        };
        let mut written = Written::default();
        for (&pos, original) in chunks.iter().zip(originals) {
            let Some(chunk) = write(pos, original) else {
                continue;
            };
            let mut bytes = Vec::new();
            chunk.to_binary(&mut bytes, "")?;
            let (_, (x, z)) = region_of(pos);
            file.write_chunk(x, z, &bytes)
                .with_context(|| format!("chunk x={} z={}", pos.x, pos.z))?;
            written.chunks += 1;
        }
        if written.chunks == 0 {
            return Ok(written);
        }
        let mut cursor = file.into_inner()?;
        let end = cursor.stream_position()? as usize;
        let mut bytes = cursor.into_inner();
        bytes.truncate(end);
        written.bytes = bytes.len() as u64;
        // Whatever happens next, the cached handle may read a replaced file.
        self.open.remove(&region);
        crate::files::replace(&path, &bytes)?;
        Ok(written)
    }

    /// A new region holding every chunk of a damaged one that still reads.
    fn salvage(&self, region: RegionPos, old: &[u8]) -> anyhow::Result<Region<Cursor<Vec<u8>>>> {
        let mut new = Region::create(Cursor::new(Vec::new()))?;
        for i in (0..1024).filter(|&i| slot_is_sound_in(old, i)) {
            let (x, z) = (i % 32, i / 32);
            let pos = ChunkPos::new(region.0 * 32 + x as i32, region.1 * 32 + z as i32);
            if let Ok(Some(chunk)) = read_chunk_in(old, &self.root, region, pos) {
                let mut bytes = Vec::new();
                chunk.to_binary(&mut bytes, "")?;
                new.write_chunk(x, z, &bytes)?;
            }
        }
        Ok(new)
    }
}

const SECTOR_BYTES: usize = 4096;
/// Locations and timestamps: two sectors.
const HEADER_BYTES: usize = 2 * SECTOR_BYTES;

/// Whether fastanvil may be given the chunk in `slot` (`z * 32 + x`) of a region file of `len`
/// bytes, read through `read_at`: its location (3 bytes of sector offset, 1 of sector count)
/// empty, or past the header and inside the file as vanilla checks, and the chunk's own length
/// prefix inside those sectors and the file. fastanvil trusts both: a location into the header
/// is written over it, a zero length underflows.
fn slot_is_sound(
    len: u64,
    slot: usize,
    mut read_at: impl FnMut(u64, &mut [u8]) -> std::io::Result<()>,
) -> std::io::Result<bool> {
    let sector = SECTOR_BYTES as u64;
    let mut entry = [0; 4];
    read_at(slot as u64 * 4, &mut entry)?;
    let offset = u64::from(u32::from_be_bytes([0, entry[0], entry[1], entry[2]]));
    let count = u64::from(entry[3]);
    if offset == 0 && count == 0 {
        return Ok(true);
    }
    if offset < 2
        || count == 0
        || offset + count > len.div_ceil(sector)
        || offset * sector + 4 > len
    {
        return Ok(false);
    }
    let mut prefix = [0; 4];
    read_at(offset * sector, &mut prefix)?;
    let length = u64::from(u32::from_be_bytes(prefix));
    Ok(length >= 1 && length + 4 <= count * sector && offset * sector + 4 + length <= len)
}

/// A chunk's slot in its region's header: `z * 32 + x`.
fn slot(pos: ChunkPos) -> usize {
    let (_, (x, z)) = region_of(pos);
    z * 32 + x
}

/// Reads `buf.len()` bytes at `at` of a region file in memory.
fn read_in(bytes: &[u8], at: u64, buf: &mut [u8]) -> std::io::Result<()> {
    let from = usize::try_from(at)
        .ok()
        .and_then(|at| bytes.get(at..at.checked_add(buf.len())?));
    buf.copy_from_slice(from.ok_or(std::io::ErrorKind::UnexpectedEof)?);
    Ok(())
}

/// [`slot_is_sound`] for a region file in memory; a file shorter than its header holds none.
fn slot_is_sound_in(bytes: &[u8], slot: usize) -> bool {
    bytes.len() >= HEADER_BYTES
        && slot_is_sound(bytes.len() as u64, slot, |at, buf| read_in(bytes, at, buf))
            .unwrap_or(false)
}

/// Sectors `offset..offset + count` of each chunk present.
fn chunk_sectors(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    bytes[..HEADER_BYTES / 2].chunks_exact(4).filter_map(|e| {
        let offset = u32::from_be_bytes([0, e[0], e[1], e[2]]) as usize;
        (offset != 0 || e[3] != 0).then_some((offset, e[3] as usize))
    })
}

/// A whole header that points at no chunk: fastanvil would write the first chunk over it.
fn holds_no_chunk(bytes: &[u8]) -> bool {
    bytes.len() >= HEADER_BYTES && chunk_sectors(bytes).next().is_none()
}

/// Whether fastanvil may rewrite the region in place: every chunk sound, and no two sharing a
/// sector (a chunk rewritten in place would overwrite the other).
fn layout_is_sound(bytes: &[u8]) -> bool {
    if bytes.len() < HEADER_BYTES || !(0..1024).all(|i| slot_is_sound_in(bytes, i)) {
        return false;
    }
    let mut spans: Vec<(usize, usize)> = chunk_sectors(bytes).collect();
    spans.sort_unstable();
    spans.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0)
}

/// A chunk's NBT from region file `region` read through `read_at`, its slot found sound; one
/// vanilla keeps in its own `c.X.Z.mcc` file because it outgrew the region's 1 MiB limit
/// (flagged by the compression byte's high bit) is read from there. Either inflates no
/// further than [`CHUNK_CAP`]; an error names the file.
fn read_chunk(
    mut read_at: impl FnMut(u64, &mut [u8]) -> std::io::Result<()>,
    dir: &Path,
    region: RegionPos,
    pos: ChunkPos,
) -> anyhow::Result<Option<Compound>> {
    let mut entry = [0; 4];
    read_at(slot(pos) as u64 * 4, &mut entry)?;
    let offset = u64::from(u32::from_be_bytes([0, entry[0], entry[1], entry[2]]));
    if offset == 0 && entry[3] == 0 {
        return Ok(None);
    }
    let mut head = [0; 5];
    read_at(offset * SECTOR_BYTES as u64, &mut head)?;
    let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let scheme = head[4];
    let bytes = if scheme & 0x80 != 0 {
        let path = dir.join(format!("c.{}.{}.mcc", pos.x, pos.z));
        let file = File::open(&path).with_context(|| format!("reading {}", path.display()))?;
        inflate(scheme & 0x7f, file).with_context(|| path.display().to_string())?
    } else {
        // The slot's soundness bounds the length by its sectors: at most 1 MiB.
        let mut data = vec![0; length.saturating_sub(1)];
        read_at(offset * SECTOR_BYTES as u64 + 5, &mut data)?;
        inflate(scheme, &data[..]).with_context(|| format!("r.{}.{}.mca", region.0, region.1))?
    };
    Ok(Some(nbt(&bytes)?))
}

/// [`read_chunk`] for a region file in memory.
fn read_chunk_in(
    bytes: &[u8],
    dir: &Path,
    region: RegionPos,
    pos: ChunkPos,
) -> anyhow::Result<Option<Compound>> {
    read_chunk(|at, buf| read_in(bytes, at, buf), dir, region, pos)
}

/// A chunk's bytes as its compression byte says: gzip (1), zlib (2) or none (3), as 1.20.1
/// writes them (LZ4, 4, came with 1.20.5), at most [`CHUNK_CAP`] of them.
fn inflate(scheme: u8, data: impl Read) -> anyhow::Result<Vec<u8>> {
    match scheme {
        1 => crate::files::read_capped(flate2::read::GzDecoder::new(data), CHUNK_CAP),
        2 => crate::files::read_capped(flate2::read::ZlibDecoder::new(data), CHUNK_CAP),
        3 => crate::files::read_capped(data, CHUNK_CAP),
        other => anyhow::bail!("unknown compression {other}"),
    }
}

fn nbt(mut bytes: &[u8]) -> anyhow::Result<Compound> {
    let (root, _) = Compound::from_binary(&mut bytes).context("chunk NBT")?;
    Ok(root)
}

/// The last copy kept aside of `path` (`.corrupt`, `.corrupt2`...), if any, and the next free
/// name.
fn aside_paths(path: &Path) -> (Option<PathBuf>, PathBuf) {
    let named = |n: u32| {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(if n == 1 {
            ".corrupt".to_string()
        } else {
            format!(".corrupt{n}")
        });
        path.with_file_name(name)
    };
    let free = (1..)
        .find(|&n| !named(n).exists())
        .expect("some name is free");
    ((free > 1).then(|| named(free - 1)), named(free))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(tag: i32) -> Compound {
        let mut c = Compound::new();
        c.insert("Tag", tag);
        c
    }

    fn tag(c: &Compound) -> Option<i32> {
        match c.get("Tag") {
            Some(valence::nbt::Value::Int(v)) => Some(*v),
            _ => None,
        }
    }

    #[test]
    fn writes_are_read_back_and_other_chunks_survive() {
        let dir = crate::scratch::ScratchDir::new("region-roundtrip");
        let mut folder = RegionFolder::new(&dir);
        let (a, b) = (ChunkPos::new(-1, 0), ChunkPos::new(-32, 31));
        assert!(folder.read(a).unwrap().is_none(), "no file yet");
        let written = folder
            .write((-1, 0), &[a, b], |pos, old| {
                assert!(old.is_none());
                Some(chunk(pos.x))
            })
            .unwrap();
        assert_eq!(written.chunks, 2);
        assert_eq!(written.bytes % 4096, 0, "whole sectors");
        assert_eq!(tag(&folder.read(a).unwrap().unwrap()), Some(-1));
        // A rewrite of one chunk sees the old one and leaves the other.
        folder
            .write((-1, 0), &[a], |_, old| Some(chunk(tag(&old?)? + 100)))
            .unwrap();
        assert_eq!(tag(&folder.read(a).unwrap().unwrap()), Some(99));
        assert_eq!(tag(&folder.read(b).unwrap().unwrap()), Some(-32));
        assert!(!dir.join("r.-1.0.mca.tmp").exists());
    }

    #[test]
    fn a_short_file_is_an_empty_region_and_a_bad_location_is_salvaged_around() {
        let dir = crate::scratch::ScratchDir::new("region-salvage");
        // Vanilla makes an empty file when it only looks for a region.
        fs::write(dir.join("r.0.0.mca"), []).unwrap();
        let mut folder = RegionFolder::new(&dir);
        assert!(
            folder.read(ChunkPos::new(0, 0)).unwrap().is_none(),
            "as vanilla: empty"
        );

        let (good, bad, new) = (
            ChunkPos::new(0, 0),
            ChunkPos::new(1, 0),
            ChunkPos::new(2, 0),
        );
        folder
            .write((0, 0), &[good, bad], |pos, _| Some(chunk(pos.x)))
            .unwrap();
        // Chunk 1 0's location now points into the header, where a writer would overwrite it.
        let path = dir.join("r.0.0.mca");
        let mut bytes = fs::read(&path).unwrap();
        bytes[4..8].copy_from_slice(&[0, 0, 1, 1]);
        fs::write(&path, &bytes).unwrap();
        let mut folder = RegionFolder::new(&dir);
        folder.write((0, 0), &[new], |_, _| Some(chunk(2))).unwrap();
        assert!(fs::read(dir.join("r.0.0.mca.corrupt")).unwrap() == bytes);
        assert_eq!(tag(&folder.read(good).unwrap().unwrap()), Some(0));
        assert_eq!(tag(&folder.read(new).unwrap().unwrap()), Some(2));
        assert!(
            folder.read(bad).unwrap().is_none(),
            "the bad location is dropped"
        );
    }

    /// Found by the region fuzz target: fastanvil wrote the first chunk into a header that
    /// pointed at no chunk (over the header itself), and panicked on a chunk length of zero.
    #[test]
    fn an_empty_header_a_zero_length_and_overlapping_chunks_are_not_trusted() {
        let dir = crate::scratch::ScratchDir::new("region-layout");
        let path = dir.join("r.0.0.mca");
        fs::write(&path, vec![0; HEADER_BYTES]).unwrap();
        let mut folder = RegionFolder::new(&dir);
        let (a, b) = (ChunkPos::new(0, 0), ChunkPos::new(1, 0));
        folder.write((0, 0), &[a], |_, _| Some(chunk(7))).unwrap();
        let bytes = fs::read(&path).unwrap();
        assert!(layout_is_sound(&bytes), "the chunk lies past the header");
        assert_eq!(tag(&folder.read(a).unwrap().unwrap()), Some(7));

        // Chunk 0 0's length prefix says zero: reading it is an error, and a write salvages.
        let mut zero = bytes.clone();
        let at = 2 * SECTOR_BYTES;
        zero[at..at + 4].copy_from_slice(&[0; 4]);
        fs::write(&path, &zero).unwrap();
        assert!(RegionFolder::new(&dir).read(a).is_err());
        RegionFolder::new(&dir)
            .write((0, 0), &[b], |_, _| Some(chunk(8)))
            .unwrap();
        assert_eq!(
            tag(&RegionFolder::new(&dir).read(b).unwrap().unwrap()),
            Some(8)
        );

        // Two locations sharing a sector: not rewritten in place.
        let mut folder = RegionFolder::new(&dir);
        folder
            .write((0, 0), &[a, b], |pos, _| Some(chunk(pos.x)))
            .unwrap();
        let mut shared = fs::read(&path).unwrap();
        let first = shared[0..4].to_vec();
        shared[4..8].copy_from_slice(&first);
        assert!(!layout_is_sound(&shared));
    }

    #[test]
    fn the_same_damage_is_kept_aside_once() {
        let dir = crate::scratch::ScratchDir::new("region-aside-once");
        fs::write(dir.join("r.0.0.mca"), b"not a region").unwrap();
        assert!(RegionFolder::new(&dir)
            .keep_aside((0, 0))
            .unwrap()
            .is_some());
        assert!(
            RegionFolder::new(&dir)
                .keep_aside((0, 0))
                .unwrap()
                .is_none(),
            "a restart does not copy the same file again"
        );
        fs::write(dir.join("r.0.0.mca"), b"other damage").unwrap();
        let copy = RegionFolder::new(&dir).keep_aside((0, 0)).unwrap();
        assert_eq!(copy, Some(dir.join("r.0.0.mca.corrupt2")));
    }

    /// A chunk of `generation`, 4 KiB of numbers that do not compress, so a region of them
    /// takes a while to write.
    fn generation_chunk(generation: i64) -> Compound {
        let mut state = generation as u64 ^ 0x9E37_79B9_7F4A_7C15;
        let noise = (0..512)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                state as i64
            })
            .collect();
        let mut c = Compound::new();
        c.insert("Generation", generation);
        c.insert("Noise", valence::nbt::Value::LongArray(noise));
        c
    }

    fn every_slot() -> Vec<ChunkPos> {
        (0..1024).map(|i| ChunkPos::new(i % 32, i / 32)).collect()
    }

    /// The writer that `a_kill_mid_write_leaves_the_old_region_or_the_new` runs in a child
    /// process and kills: rewrites every chunk of `r.0.0.mca` with generation after
    /// generation, saying on stdout when each begins.
    #[test]
    #[ignore = "a child process of a_kill_mid_write_leaves_the_old_region_or_the_new"]
    fn rewrite_until_killed() {
        let dir =
            PathBuf::from(std::env::var_os("HORDE_REGION_WRITER").expect("run by the kill test"));
        let from: i64 = std::env::var("HORDE_REGION_FROM").unwrap().parse().unwrap();
        let mut folder = RegionFolder::new(&dir);
        for generation in from.. {
            println!("writing {generation}");
            folder
                .write((0, 0), &every_slot(), |_, _| {
                    Some(generation_chunk(generation))
                })
                .unwrap();
        }
    }

    /// The generation every chunk of the region holds, or `None` for no file; panics on a
    /// region that is not whole or mixes generations.
    fn generation_on_disk(dir: &Path) -> Option<i64> {
        if !dir.join("r.0.0.mca").exists() {
            return None;
        }
        let mut folder = RegionFolder::new(dir);
        let generations: HashSet<i64> = every_slot()
            .into_iter()
            .map(|pos| {
                let chunk = folder.read(pos).unwrap().expect("every chunk is there");
                let generation = match chunk.get("Generation") {
                    Some(valence::nbt::Value::Long(g)) => *g,
                    other => panic!("no generation: {other:?}"),
                };
                assert_eq!(
                    chunk,
                    generation_chunk(generation),
                    "a chunk as it was written"
                );
                generation
            })
            .collect();
        assert_eq!(
            generations.len(),
            1,
            "one generation, not a mix: {generations:?}"
        );
        generations.into_iter().next()
    }

    #[test]
    fn a_kill_mid_write_leaves_the_old_region_or_the_new() {
        use std::io::BufRead;
        let dir = crate::scratch::ScratchDir::new("region-kill");
        let tmp = dir.join("r.0.0.mca.tmp");
        let (mut next, mut mid_write) = (1, 0);
        for _ in 0..8 {
            // A temp file the last kill left: the next write starts it over. Gone here, so
            // that the kill below waits for this life's own.
            let _ = fs::remove_file(&tmp);
            let mut child = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--ignored",
                    "--exact",
                    "world::anvil::region::tests::rewrite_until_killed",
                    "--nocapture",
                ])
                .env("HORDE_REGION_WRITER", &dir)
                .env("HORDE_REGION_FROM", next.to_string())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
            // Once one generation of this life is down, kill the writer the moment its next
            // temp file is seen: in the middle of writing it, or just past its rename.
            let mut started = 0;
            while started < 2 {
                let line = lines.next().expect("the writer runs").unwrap();
                started += i32::from(line.starts_with("writing"));
            }
            while !tmp.exists() {
                std::hint::spin_loop();
            }
            child.kill().unwrap();
            child.wait().unwrap();
            let announced: i64 = lines
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix("writing ")?.parse().ok())
                .last()
                .unwrap_or(next + 1);
            mid_write += usize::from(tmp.exists());
            let on_disk = generation_on_disk(&dir).expect("a generation was written");
            assert!(
                on_disk == announced || on_disk == announced - 1,
                "the region holds generation {on_disk}: neither the one being written ({announced}) nor the one before"
            );
            next = announced + 1;
        }
        println!("{mid_write} of 8 kills left a temp file beside a whole region");
    }

    #[test]
    fn a_damaged_file_is_kept_aside_before_it_is_replaced() {
        let dir = crate::scratch::ScratchDir::new("region-damaged");
        // Every location past the end of the file.
        let garbage = vec![0xEE; 8192];
        fs::write(dir.join("r.0.0.mca"), &garbage).unwrap();
        let mut folder = RegionFolder::new(&dir);
        assert!(folder.read(ChunkPos::new(1, 1)).is_err());
        folder
            .write((0, 0), &[ChunkPos::new(1, 1)], |_, _| Some(chunk(5)))
            .unwrap();
        assert!(fs::read(dir.join("r.0.0.mca.corrupt")).unwrap() == garbage);
        assert_eq!(
            tag(&folder.read(ChunkPos::new(1, 1)).unwrap().unwrap()),
            Some(5)
        );
    }

    /// A region holding one chunk at slot 0, compressed as `scheme` says, `data` after it.
    fn one_chunk_region(scheme: u8, data: &[u8]) -> Vec<u8> {
        let sectors = (5 + data.len()).div_ceil(SECTOR_BYTES);
        let mut bytes = vec![0; HEADER_BYTES + sectors * SECTOR_BYTES];
        bytes[..4].copy_from_slice(&[0, 0, 2, sectors as u8]);
        let length = (data.len() + 1) as u32;
        bytes[HEADER_BYTES..HEADER_BYTES + 4].copy_from_slice(&length.to_be_bytes());
        bytes[HEADER_BYTES + 4] = scheme;
        bytes[HEADER_BYTES + 5..HEADER_BYTES + 5 + data.len()].copy_from_slice(data);
        bytes
    }

    /// Zeros past the cap, zlib-compressed: some 65 KB that would inflate to 64 MiB and more.
    fn bomb() -> Vec<u8> {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        let block = vec![0u8; 1 << 20];
        for _ in 0..=CHUNK_CAP >> 20 {
            z.write_all(&block).unwrap();
        }
        z.finish().unwrap()
    }

    #[test]
    fn a_chunk_that_inflates_past_the_cap_is_refused_naming_its_file() {
        let dir = crate::scratch::ScratchDir::new("region-bomb");
        let bomb = bomb();
        assert!(bomb.len() < 255 * SECTOR_BYTES, "fits a region chunk");
        fs::write(dir.join("r.0.0.mca"), one_chunk_region(2, &bomb)).unwrap();
        let mut folder = RegionFolder::new(&dir);
        let err = folder.read(ChunkPos::new(0, 0)).unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "r.0.0.mca: it inflates past the 64 MiB cap"
        );
        // The same in its own file, as vanilla keeps a chunk past 1 MiB compressed.
        fs::write(dir.join("r.0.0.mca"), one_chunk_region(0x82, &[])).unwrap();
        fs::write(dir.join("c.0.0.mcc"), &bomb).unwrap();
        let err = RegionFolder::new(&dir)
            .read(ChunkPos::new(0, 0))
            .unwrap_err();
        let path = dir.join("c.0.0.mcc");
        assert_eq!(
            format!("{err:#}"),
            format!("{}: it inflates past the 64 MiB cap", path.display())
        );
        // Within the cap it reads.
        let mut nbt = Vec::new();
        chunk(7).to_binary(&mut nbt, "").unwrap();
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut z, &nbt).unwrap();
        fs::write(
            dir.join("r.0.0.mca"),
            one_chunk_region(2, &z.finish().unwrap()),
        )
        .unwrap();
        let read = RegionFolder::new(&dir).read(ChunkPos::new(0, 0)).unwrap();
        assert_eq!(read.as_ref().and_then(tag), Some(7));
    }
}
