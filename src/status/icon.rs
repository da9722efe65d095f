//! `server-icon.png`: read from beside `config.toml` or from the world folder, and checked to
//! be what the client draws, a 64x64 PNG (vanilla's `DedicatedServer.loadStatusIcon`).

use std::path::Path;

use valence::log::{info, warn};

const FILE: &str = "server-icon.png";
const SIZE: u32 = 64;
/// A larger file is not an icon: the server list packet carries it base64 in JSON.
const MOST_BYTES: u64 = 1 << 20;

/// The icon's bytes from the first folder that has one, or none (a warning says why a file
/// was passed over).
pub fn load(folders: &[&Path]) -> Vec<u8> {
    for folder in folders {
        let path = folder.join(FILE);
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let read = if meta.len() > MOST_BYTES {
            Err(format!("{} bytes is too large for an icon", meta.len()))
        } else {
            std::fs::read(&path).map_err(|e| e.to_string())
        };
        match read.and_then(|bytes| check(&bytes).map(|()| bytes)) {
            Ok(bytes) => {
                info!("server list icon: {}", path.display());
                return bytes;
            }
            Err(e) => warn!("{} is not used: {e}", path.display()),
        }
    }
    Vec::new()
}

/// Ok for a PNG of 64x64 pixels, by its signature and header chunk.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if !bytes.starts_with(SIGNATURE) || bytes.get(12..16) != Some(b"IHDR") {
        return Err("it is not a PNG image".into());
    }
    let dimension = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    match (dimension(16), dimension(20)) {
        (Some(SIZE), Some(SIZE)) => Ok(()),
        (Some(w), Some(h)) => Err(format!("it is {w}x{h} pixels; an icon is {SIZE}x{SIZE}")),
        _ => Err("its PNG header is cut short".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start of a PNG of `w` by `h` pixels: signature and header chunk.
    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend(w.to_be_bytes());
        bytes.extend(h.to_be_bytes());
        bytes.extend([8, 6, 0, 0, 0]);
        bytes
    }

    #[test]
    fn only_a_64_by_64_png_is_an_icon() {
        assert_eq!(check(&png(64, 64)), Ok(()));
        assert_eq!(
            check(&png(128, 64)).unwrap_err(),
            "it is 128x64 pixels; an icon is 64x64"
        );
        assert_eq!(check(b"GIF89a").unwrap_err(), "it is not a PNG image");
        assert_eq!(
            check(&png(64, 64)[..18]).unwrap_err(),
            "its PNG header is cut short"
        );
    }

    #[test]
    fn the_first_folder_with_a_good_icon_wins() {
        let dir = crate::scratch::ScratchDir::new("icon");
        let (config, world) = (dir.join("config"), dir.join("world"));
        std::fs::create_dir_all(&config).unwrap();
        std::fs::create_dir_all(&world).unwrap();
        assert!(load(&[&config, &world]).is_empty());
        std::fs::write(config.join(FILE), png(32, 32)).unwrap();
        std::fs::write(world.join(FILE), png(64, 64)).unwrap();
        assert_eq!(
            load(&[&config, &world]),
            png(64, 64),
            "a wrong icon is passed over"
        );
    }
}
