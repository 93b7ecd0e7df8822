//! The save file's bytes: a header that says what the file is, a checksum, and the compressed
//! body; written so that a crash or a kill at any moment leaves the old file or the new one,
//! whole.
//!
//! ```text
//!   offset  size  what
//!   0       16    MAGIC, "blockfall world" and a newline
//!   16      4     format version, little-endian u32 (FORMAT_VERSION)
//!   20      4     CRC-32 (IEEE) of everything after it, little-endian
//!   24      8     the body's length before compression, little-endian u64
//!   32      ...   the body, LZ4 block-compressed: the postcard-encoded `WorldSave`, then
//!                 (version 2 on) its physics' contact pushes, a postcard list of
//!                 `ContactImpulse` (warm starting), then (version 3 on) the manifolds its
//!                 pairs of bodies keep, a postcard list of `KeptManifold`
//! ```
//!
//! Versions 1 (before warm starting) and 2 (before kept manifolds) are read as well: their
//! worlds start with no contact pushes, or no kept manifolds.
//!
//! Reading checks in that order, so a file is refused with the first thing wrong with it:
//! not a save, made by a newer blockfall, cut short, damaged (checksum), then whatever the
//! decoding finds.

use std::path::Path;

use super::SaveError;

/// The first bytes of every save.
pub const MAGIC: [u8; 16] = *b"blockfall world\n";
/// The version of the format this blockfall writes, and the newest it reads.
pub const FORMAT_VERSION: u32 = 3;
/// The first version whose body ends with the physics' contact pushes.
pub const CONTACTS_SINCE: u32 = 2;
/// The first version whose body ends with the physics' kept manifolds, after the pushes.
pub const MANIFOLDS_SINCE: u32 = 3;
/// The header's size: magic, version, checksum, body length.
pub const HEADER: usize = 32;
/// The largest save file read, and the largest body decompressed: twice the body of a world at
/// every limit at once (`crate::limits`: its edited bricks, some 100 MiB, are most of it),
/// low enough that a bad length cannot exhaust the memory.
pub const LARGEST: u64 = 1 << 28;

/// The whole file for a body (already encoded): header, checksum, compressed body.
pub fn wrap(body: &[u8]) -> Vec<u8> {
    wrap_as(body, FORMAT_VERSION)
}

/// [`wrap`] with the header saying `version` (tests make older files with it).
pub(crate) fn wrap_as(body: &[u8], version: u32) -> Vec<u8> {
    let compressed = lz4_flex::block::compress(body);
    let mut rest = Vec::with_capacity(8 + compressed.len());
    rest.extend_from_slice(&(body.len() as u64).to_le_bytes());
    rest.extend_from_slice(&compressed);
    let mut file = Vec::with_capacity(HEADER + compressed.len());
    file.extend_from_slice(&MAGIC);
    file.extend_from_slice(&version.to_le_bytes());
    file.extend_from_slice(&crc32fast::hash(&rest).to_le_bytes());
    file.extend_from_slice(&rest);
    file
}

/// The format version and the body of a save file's bytes, checked and decompressed.
pub fn unwrap(file: &[u8]) -> Result<(u32, Vec<u8>), SaveError> {
    if file.len() < MAGIC.len() || file[..MAGIC.len()] != MAGIC {
        return Err(SaveError::NotASave);
    }
    let word = |at: usize| -> Option<[u8; 4]> { file.get(at..at + 4)?.try_into().ok() };
    let version = word(16)
        .map(u32::from_le_bytes)
        .ok_or(SaveError::Truncated {
            length: file.len() as u64,
        })?;
    if version > FORMAT_VERSION {
        return Err(SaveError::Newer { version });
    }
    if version == 0 {
        return Err(SaveError::Damaged(
            "its format version is 0, which no blockfall wrote".into(),
        ));
    }
    let stored = word(20)
        .map(u32::from_le_bytes)
        .ok_or(SaveError::Truncated {
            length: file.len() as u64,
        })?;
    let rest = &file[24.min(file.len())..];
    let length = rest
        .get(..8)
        .and_then(|bytes| bytes.try_into().ok())
        .map(u64::from_le_bytes)
        .ok_or(SaveError::Truncated {
            length: file.len() as u64,
        })?;
    let computed = crc32fast::hash(rest);
    if computed != stored {
        // Most often a file cut short: an LZ4 block ends with literals, so say which it is
        // when the body cannot be whole.
        return Err(SaveError::Damaged(format!(
            "its checksum does not match (stored {stored:08x}, computed {computed:08x}): the \
             file was cut short or changed after it was written"
        )));
    }
    if length > LARGEST {
        return Err(SaveError::Damaged(format!(
            "its body would be {length} bytes, more than the {LARGEST} a save may hold"
        )));
    }
    let body = lz4_flex::block::decompress(&rest[8..], length as usize)
        .map_err(|error| SaveError::Damaged(format!("its body does not decompress: {error}")))?;
    if body.len() as u64 != length {
        return Err(SaveError::Damaged(format!(
            "its body decompresses to {} bytes, not the {length} its header gives",
            body.len()
        )));
    }
    Ok((version, body))
}

/// Reads a whole file of at most [`LARGEST`] bytes (a larger one is refused unread).
pub fn read_limited(path: &Path) -> Result<Vec<u8>, SaveError> {
    crate::files::read_at_most(path, LARGEST)
        .map_err(|source| SaveError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .ok_or_else(|| SaveError::TooLarge {
            path: path.to_path_buf(),
        })
}

/// Writes a save so that a crash at any moment leaves the old file or the new one, whole
/// ([`crate::files::write_atomically`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    crate::files::write_atomically(path, bytes).map_err(|source| SaveError::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_body_unwraps_to_itself() {
        let body: Vec<u8> = (0..5000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let file = wrap(&body);
        assert_eq!(&file[..16], &MAGIC);
        assert_eq!(unwrap(&file).expect("a whole file"), (FORMAT_VERSION, body));
        assert_eq!(
            unwrap(&wrap(&[])).expect("an empty body"),
            (FORMAT_VERSION, Vec::<u8>::new())
        );
    }

    #[test]
    fn each_kind_of_bad_file_is_refused_for_its_own_reason() {
        let file = wrap(b"a body that is long enough to be compressed, compressed, compressed");
        let reason = |bytes: &[u8]| unwrap(bytes).expect_err("a bad file").to_string();
        assert!(reason(b"{\"duration\": 1}").contains("not a blockfall save"));
        assert!(reason(&[]).contains("not a blockfall save"));
        let mut newer = file.clone();
        newer[16..20].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        assert!(reason(&newer).contains("newer blockfall"));
        assert!(reason(&file[..18]).contains("cut short"));
        assert!(reason(&file[..file.len() - 1]).contains("checksum"));
        let mut flipped = file.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x40;
        assert!(reason(&flipped).contains("checksum"));
    }
}
