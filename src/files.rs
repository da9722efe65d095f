//! Files written whole, so that a crash never leaves half of one: a temp file beside it,
//! fsynced, renamed over it, the folder fsynced. The file keeps its permissions (config.toml
//! holds passwords). And compressed files read with a cap, so that a small hostile one cannot
//! inflate into all the memory there is.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;

/// Reads what `from` (a decompressor) gives, refusing more than `cap` bytes. The buffer grows
/// to at most `cap` and one byte, never to the next power of two past it.
pub fn read_capped(mut from: impl Read, cap: usize) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut block = vec![0; 64 << 10];
    loop {
        let n = match from.read(&mut block) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if bytes.len() + n > cap {
            anyhow::bail!("it inflates past the {} MiB cap", cap >> 20);
        }
        if bytes.capacity() < bytes.len() + n {
            let grown = (bytes.len() * 2).clamp(bytes.len() + n, cap);
            bytes.reserve_exact(grown - bytes.len());
        }
        bytes.extend_from_slice(&block[..n]);
    }
}

/// Removes the temp files a crash left in `dir` (a write killed before its rename): they hold
/// disk space until the same file is written again. Returns how many went.
pub fn remove_leftovers(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "tmp"))
        .filter(|e| fs::remove_file(e.path()).is_ok())
        .count()
}

/// Replaces `path` with `bytes`, creating its folder if need be. One replacement at a time in
/// the process: two threads saving the same file must not share its temp file.
pub fn replace(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    replace_keeping(path, bytes, None)
}

/// Like [`replace`], and the file replaced (if any) is kept as `previous` (a save's
/// `.dat_old`), renamed there just before the new one goes in.
pub fn replace_keeping(path: &Path, bytes: &[u8], previous: Option<&Path>) -> anyhow::Result<()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        if let Ok(old) = fs::metadata(path) {
            file.set_permissions(old.permissions())?;
        }
        file.sync_all()?;
        if let Some(previous) = previous.filter(|_| path.exists()) {
            fs::rename(path, previous)?;
        }
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

    #[test]
    fn only_the_temp_files_a_crash_left_are_removed() {
        let dir = crate::scratch::ScratchDir::new("leftovers");
        fs::write(dir.join("r.0.0.mca.tmp"), b"half a region").unwrap();
        fs::write(dir.join("r.0.0.mca"), b"a region").unwrap();
        assert_eq!(remove_leftovers(&dir), 1);
        assert!(!dir.join("r.0.0.mca.tmp").exists() && dir.join("r.0.0.mca").exists());
        assert_eq!(remove_leftovers(&dir.join("missing")), 0);
    }

    #[test]
    fn a_read_stops_at_its_cap() {
        let cap = 1 << 20;
        assert_eq!(read_capped(&vec![7u8; cap][..], cap).unwrap().len(), cap);
        let over = read_capped(&vec![7u8; cap + 1][..], cap).unwrap_err();
        assert_eq!(over.to_string(), "it inflates past the 1 MiB cap");
        let bytes = read_capped(std::io::repeat(0), 3 << 20);
        assert!(bytes.is_err(), "an endless stream ends at the cap");
    }

    #[test]
    fn the_buffer_never_outgrows_the_cap() {
        let cap = (1 << 20) + 5;
        let bytes = read_capped(&vec![1u8; cap][..], cap).unwrap();
        assert!(bytes.capacity() <= cap, "{}", bytes.capacity());
    }
}
