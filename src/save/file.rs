//! One `data/*.dat` file of the world save: gzipped NBT, written atomically, read with a
//! fallback to the previous copy, never silently overwritten when it cannot be read.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use valence::log::{error, warn};
use valence::nbt::{Compound, Value};

use crate::world::anvil::DATA_VERSION;
/// Key holding our own format version, for migrating old saves later.
const FORMAT_KEY: &str = "HordeFormat";

/// Most bytes a `.dat` file may inflate to. horde's own files grow with the zombies they keep,
/// some 50 bytes a ghost member: 192 MiB holds about four million, four times what the
/// benchmarks keep; vanilla's playerdata stays within a few KiB. Past it the file is
/// unreadable, as a damaged one is, so a small gzip bomb cannot take the memory. A fuzz build
/// caps at 1 MiB, so that a seed of a few KiB holds a bomb.
#[cfg(not(fuzzing))]
const DAT_CAP: usize = 192 << 20;
#[cfg(fuzzing)]
const DAT_CAP: usize = 1 << 20;

/// A save file and its format version.
#[derive(Debug, Clone)]
pub struct SaveFile {
    path: PathBuf,
    format: i32,
}

impl SaveFile {
    pub fn new(path: impl Into<PathBuf>, format: i32) -> Self {
        Self {
            path: path.into(),
            format,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sibling(&self, suffix: &str) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(suffix);
        self.path.with_file_name(name)
    }

    /// `name.dat.corrupt`, or `.corrupt2`, `.corrupt3`... so no earlier one is overwritten.
    fn free_aside_path(&self) -> PathBuf {
        (1..)
            .map(|n| match n {
                1 => self.sibling(".corrupt"),
                n => self.sibling(&format!(".corrupt{n}")),
            })
            .find(|p| !p.exists())
            .expect("some name is free")
    }

    /// The previous copy, kept by every write (`name.dat_old`, like vanilla's `level.dat_old`).
    pub fn old_path(&self) -> PathBuf {
        self.sibling("_old")
    }

    /// Moves the file, and its previous copy if there is one, to `to`'s name.
    pub fn move_to(&self, to: &SaveFile) -> std::io::Result<()> {
        std::fs::rename(&self.path, &to.path)?;
        match std::fs::rename(self.old_path(), to.old_path()) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Writes `data` (plus `DataVersion` and our format version) as [`crate::files`] writes
    /// every file, the current one kept as `.dat_old`: a leaving player's file and the
    /// autosave's copy of it are written one after the other, never over one temp file.
    pub fn write(&self, data: &Compound) -> anyhow::Result<()> {
        let mut root = data.clone();
        root.insert("DataVersion", DATA_VERSION);
        root.insert(FORMAT_KEY, self.format);
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        root.to_binary(&mut gz, "")?;
        let bytes = gz.finish()?;

        crate::files::replace_keeping(&self.path, &bytes, Some(&self.old_path()))
    }

    /// Reads, checks and interprets one file: `Ok(None)` when it does not exist.
    fn read_as<T>(
        &self,
        path: &Path,
        parse: &impl Fn(&Compound) -> Result<T, String>,
    ) -> Result<Option<T>, ReadError> {
        match self.read_one(path)? {
            Some(root) => parse(&root)
                .map(Some)
                .map_err(|e| ReadError::Unreadable(anyhow::anyhow!(e))),
            None => Ok(None),
        }
    }

    /// Reads and checks one file: `Ok(None)` when it does not exist.
    fn read_one(&self, path: &Path) -> Result<Option<Compound>, ReadError> {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ReadError::Unreadable(e.into())),
        };
        let root = decode(&bytes).map_err(ReadError::Unreadable)?;
        match root.get(FORMAT_KEY) {
            Some(Value::Int(v)) if *v > self.format => Err(ReadError::Newer(*v)),
            Some(Value::Int(_)) => Ok(Some(root)),
            _ => Err(ReadError::Unreadable(anyhow::anyhow!(
                "no {FORMAT_KEY} tag: not a horde save"
            ))),
        }
    }

    /// Loads the save: a missing file is a fresh start; an unreadable one is reported, moved
    /// aside as `.corrupt` and replaced by the previous copy. A file from a newer horde is an
    /// error, since using it would lose what the newer version wrote.
    pub fn load(&self) -> anyhow::Result<Option<Compound>> {
        self.load_as(|root| Ok(root.clone()))
    }

    /// Like [`SaveFile::load`], interpreting the NBT with `parse`; a file that does not parse
    /// is treated as unreadable.
    pub fn load_as<T>(
        &self,
        parse: impl Fn(&Compound) -> Result<T, String>,
    ) -> anyhow::Result<Option<T>> {
        match self.read_as(&self.path, &parse) {
            Ok(Some(root)) => return Ok(Some(root)),
            Ok(None) => {}
            Err(ReadError::Newer(v)) => bail!(
                "{} was written by a newer horde (format {v}; this one reads up to {})",
                self.path.display(),
                self.format
            ),
            Err(ReadError::Unreadable(e)) => {
                let aside = self.free_aside_path();
                error!(
                    "{} is unreadable ({e:#}); moved to {} and using the previous save",
                    self.path.display(),
                    aside.display()
                );
                fs::rename(&self.path, &aside)
                    .with_context(|| format!("moving {} aside", self.path.display()))?;
            }
        }
        let old = self.old_path();
        match self.read_as(&old, &parse) {
            Ok(found) => {
                if found.is_some() {
                    warn!("loaded the previous save {}", old.display());
                }
                Ok(found)
            }
            Err(ReadError::Newer(v)) => bail!(
                "{} was written by a newer horde (format {v})",
                old.display()
            ),
            Err(ReadError::Unreadable(e)) => {
                error!(
                    "{} is unreadable too ({e:#}); starting from a fresh state, the file is kept",
                    old.display()
                );
                Ok(None)
            }
        }
    }
}

enum ReadError {
    /// Written by a newer format: must not be touched.
    Newer(i32),
    Unreadable(anyhow::Error),
}

/// Gunzips (up to [`DAT_CAP`]) and parses one NBT root compound, refusing trailing bytes.
fn decode(bytes: &[u8]) -> anyhow::Result<Compound> {
    let raw =
        crate::files::read_capped(GzDecoder::new(bytes), DAT_CAP).map_err(|e| match e
            .downcast_ref::<std::io::Error>()
        {
            Some(_) => e.context("not gzip data, or truncated"),
            None => e,
        })?;
    let mut slice = raw.as_slice();
    let (root, _) = Compound::from_binary(&mut slice).context("not NBT, or truncated")?;
    if !slice.is_empty() {
        bail!("{} stray bytes after the NBT", slice.len());
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: i64) -> Compound {
        let mut c = Compound::new();
        c.insert("Time", n);
        c
    }

    #[test]
    fn round_trip_keeps_previous_copy() {
        let dir = crate::scratch::ScratchDir::new("save-round");
        let file = SaveFile::new(dir.join("data/x.dat"), 1);
        assert!(file.load().unwrap().is_none());
        file.write(&sample(1)).unwrap();
        file.write(&sample(2)).unwrap();
        let loaded = file.load().unwrap().unwrap();
        assert_eq!(loaded.get("Time"), Some(&Value::Long(2)));
        assert_eq!(loaded.get("DataVersion"), Some(&Value::Int(DATA_VERSION)));
        assert!(file.old_path().exists());
    }

    #[test]
    fn every_truncation_falls_back_without_panic() {
        let dir = crate::scratch::ScratchDir::new("save-trunc");
        let file = SaveFile::new(dir.join("x.dat"), 1);
        file.write(&sample(1)).unwrap();
        file.write(&sample(2)).unwrap();
        let good = fs::read(file.path()).unwrap();
        let old = fs::read(file.old_path()).unwrap();
        for cut in 0..good.len() {
            fs::write(file.path(), &good[..cut]).unwrap();
            fs::write(file.old_path(), &old).unwrap();
            let loaded = file.load().unwrap().unwrap();
            assert_eq!(loaded.get("Time"), Some(&Value::Long(1)), "cut at {cut}");
            assert!(dir.join("x.dat.corrupt").exists());
            assert!(cut == 0 || dir.join(format!("x.dat.corrupt{}", cut + 1)).exists());
        }
    }

    #[test]
    fn writers_on_two_threads_never_share_a_temp_file() {
        // A player leaving while the autosave writes their file: both writes go through, one
        // after the other, and what is left is one of them, whole.
        let dir = crate::scratch::ScratchDir::new("save-threads");
        let file = SaveFile::new(dir.join("playerdata/p.dat"), 1);
        let writers: Vec<_> = (0..4)
            .map(|t| {
                let file = file.clone();
                std::thread::spawn(move || {
                    (0..50).all(|i| file.write(&sample(t * 1000 + i)).is_ok())
                })
            })
            .collect();
        for writer in writers {
            assert!(writer.join().unwrap(), "a write failed");
        }
        let last = file.load().unwrap().unwrap();
        assert!(matches!(last.get("Time"), Some(Value::Long(n)) if n % 1000 == 49));
        assert!(file.load().is_ok() && !dir.join("playerdata/p.dat.tmp").exists());
    }

    #[test]
    fn newer_format_is_refused() {
        let dir = crate::scratch::ScratchDir::new("save-newer");
        SaveFile::new(dir.join("x.dat"), 9)
            .write(&sample(1))
            .unwrap();
        let err = SaveFile::new(dir.join("x.dat"), 1).load().unwrap_err();
        assert!(err.to_string().contains("newer horde"), "{err}");
        assert!(dir.join("x.dat").exists(), "never moved or overwritten");
    }

    #[test]
    fn a_file_that_inflates_past_the_cap_is_unreadable() {
        use std::io::Write;
        let dir = crate::scratch::ScratchDir::new("save-bomb");
        let file = SaveFile::new(dir.join("x.dat"), 1);
        file.write(&sample(1)).unwrap();
        file.write(&sample(2)).unwrap();
        let mut gz = GzEncoder::new(Vec::new(), Compression::best());
        let block = vec![0u8; 1 << 20];
        for _ in 0..=DAT_CAP >> 20 {
            gz.write_all(&block).unwrap();
        }
        let bomb = gz.finish().unwrap();
        assert!(bomb.len() < 1 << 20, "a small file: {} bytes", bomb.len());
        fs::write(file.path(), &bomb).unwrap();
        let err = decode(&bomb).unwrap_err();
        assert_eq!(err.to_string(), "it inflates past the 192 MiB cap");
        let loaded = file.load().unwrap().unwrap();
        assert_eq!(
            loaded.get("Time"),
            Some(&Value::Long(1)),
            "the previous copy"
        );
        assert_eq!(fs::read(dir.join("x.dat.corrupt")).unwrap(), bomb);
    }
}
