//! The `region/` folder: `r.X.Z.mca` files of 32×32 chunks in 4 KiB sectors, laid out by
//! `fastanvil`. Reads go through a small cache of open files; a write rebuilds the region in
//! memory and renames it into place, so a crash mid-save leaves the previous file whole.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{Cursor, Seek};
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

pub(super) struct RegionFolder {
    root: PathBuf,
    /// Open files, or `None` for a region that has no file.
    open: HashMap<RegionPos, Option<Region<File>>>,
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
        let (region, (x, z)) = region_of(pos);
        if !self.open.contains_key(&region) {
            if self.open.len() >= OPEN_LIMIT {
                self.open.clear();
            }
            let file = match File::open(self.path(region)) {
                Ok(file) => Some(Region::from_stream(file).context("region header")?),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(e.into()),
            };
            self.open.insert(region, file);
        }
        let Some(Some(file)) = self.open.get_mut(&region) else {
            return Ok(None);
        };
        match file.read_chunk(x, z)? {
            Some(bytes) => Ok(Some(nbt(&bytes)?)),
            None => Ok(None),
        }
    }

    /// Copies a region file whose data cannot be read to `r.X.Z.mca.corrupt` (`.corrupt2`...),
    /// once a run, before horde writes over any of it. Returns the copy's path.
    pub(super) fn keep_aside(&mut self, region: RegionPos) -> anyhow::Result<Option<PathBuf>> {
        let path = self.path(region);
        if !path.exists() || !self.kept_aside.insert(region) {
            return Ok(None);
        }
        let aside = free_aside_path(&path);
        fs::copy(&path, &aside).with_context(|| format!("copying to {}", aside.display()))?;
        Ok(Some(aside))
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
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let mut file = match old.map(|bytes| Region::from_stream(Cursor::new(bytes))) {
            Some(Ok(file)) => file,
            Some(Err(_)) => {
                // Not a region file any more: keep it for the operator, start a new one.
                self.keep_aside(region)?;
                Region::create(Cursor::new(Vec::new()))?
            }
            None => Region::create(Cursor::new(Vec::new()))?,
        };
        let mut written = Written::default();
        for &pos in chunks {
            let (_, (x, z)) = region_of(pos);
            let original = match file.read_chunk(x, z).map(|b| b.map(|b| nbt(&b))) {
                Ok(Some(Ok(chunk))) => Some(chunk),
                Ok(None) => None,
                Err(_) | Ok(Some(Err(_))) => {
                    self.keep_aside(region)?;
                    None
                }
            };
            let Some(chunk) = write(pos, original) else {
                continue;
            };
            let mut bytes = Vec::new();
            chunk.to_binary(&mut bytes, "")?;
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
        replace_file(&path, &bytes)?;
        // The cached handle still reads the replaced file.
        self.open.remove(&region);
        Ok(written)
    }
}

fn nbt(mut bytes: &[u8]) -> anyhow::Result<Compound> {
    let (root, _) = Compound::from_binary(&mut bytes).context("chunk NBT")?;
    Ok(root)
}

fn free_aside_path(path: &Path) -> PathBuf {
    (1..)
        .map(|n| {
            let mut name = path.file_name().unwrap_or_default().to_os_string();
            name.push(if n == 1 {
                ".corrupt".to_string()
            } else {
                format!(".corrupt{n}")
            });
            path.with_file_name(name)
        })
        .find(|p| !p.exists())
        .expect("some name is free")
}

/// Temp file, fsync, rename over `path`, fsync the folder.
fn replace_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().context("a region file has a folder")?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        File::open(dir)?.sync_all()
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        anyhow::Error::new(e).context(format!("writing {}", path.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("horde-region-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

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
        let dir = temp_dir("roundtrip");
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
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_damaged_file_is_kept_aside_before_it_is_replaced() {
        let dir = temp_dir("damaged");
        fs::write(dir.join("r.0.0.mca"), b"not a region").unwrap();
        let mut folder = RegionFolder::new(&dir);
        assert!(folder.read(ChunkPos::new(1, 1)).is_err());
        folder
            .write((0, 0), &[ChunkPos::new(1, 1)], |_, _| Some(chunk(5)))
            .unwrap();
        assert_eq!(
            fs::read(dir.join("r.0.0.mca.corrupt")).unwrap(),
            b"not a region"
        );
        assert_eq!(
            tag(&folder.read(ChunkPos::new(1, 1)).unwrap().unwrap()),
            Some(5)
        );
        fs::remove_dir_all(dir).unwrap();
    }
}
