//! The UUIDs of players nobody authenticated (`online_mode = false`): vanilla's, so that
//! playerdata and list files brought from a vanilla offline-mode server match, and the ones
//! horde gave them before (Valence's), which a world of an older horde still holds.

use md5::{Digest, Md5};
use sha2::Sha256;
use uuid::Uuid;

/// Vanilla's UUID for an unauthenticated `name`: Java's `UUID.nameUUIDFromBytes` of
/// `OfflinePlayer:<name>`, an MD5 with the version set to 3 and the variant to IETF's
/// (vanilla's `UUIDUtil.createOfflinePlayerUUID`).
pub fn offline_uuid(name: &str) -> Uuid {
    let mut bytes: [u8; 16] = Md5::digest(format!("OfflinePlayer:{name}")).into();
    bytes[6] = (bytes[6] & 0x0f) | 0x30;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Uuid::from_bytes(bytes)
}

/// The UUID horde gave an unauthenticated `name` before it used vanilla's: Valence's offline
/// UUID, the first 16 bytes of the name's SHA-256.
pub fn legacy_offline_uuid(name: &str) -> Uuid {
    let digest = Sha256::digest(name.as_bytes());
    let mut bytes = [0; 16];
    bytes.copy_from_slice(&digest[..16]);
    Uuid::from_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_uuids_are_vanillas() {
        // As vanilla (and node-minecraft-protocol's offline server) derive them.
        assert_eq!(
            offline_uuid("Notch").to_string(),
            "b50ad385-829d-3141-a216-7e7d7539ba7f"
        );
        assert_eq!(offline_uuid("Notch").get_version_num(), 3);
        assert_ne!(
            offline_uuid("notch"),
            offline_uuid("Notch"),
            "names keep their case"
        );
    }

    #[test]
    fn legacy_uuids_are_valences() {
        // Valence 0.2's `offline_uuid`: SHA-256("keeper")[..16].
        let legacy = legacy_offline_uuid("keeper");
        assert_eq!(legacy.as_bytes()[..4], Sha256::digest(b"keeper")[..4]);
        assert_ne!(legacy, offline_uuid("keeper"));
    }
}
