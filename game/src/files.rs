//! Files the game writes for the player (saves, settings) and reads back from them: written so
//! that a crash or a kill at any moment leaves the old file or the new one, whole; read with a
//! limit, so that a huge or endless file is refused rather than read whole.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` so that the file at `path` is, at any moment, either what it was
/// or `bytes`, whole: a hidden temporary file in the same folder (`.NAME.PID.tmp`) is written,
/// flushed and synced, then renamed over `path`, and the folder synced so the rename itself is
/// kept. The folder is made when missing. A writer killed halfway leaves only its temporary
/// file, which nothing reads.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&folder)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    let temporary = folder.join(temporary_name);
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temporary)?;
        file.write_all(bytes)?;
        file.flush()?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written?;
    sync_folder(&folder)
}

/// Makes a rename in `folder` durable (on Unix; elsewhere renames are kept by the system).
fn sync_folder(folder: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(folder)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = folder;
        Ok(())
    }
}

/// Which file a path names, whatever path leads to it (a link, `..`, a hard link): its device
/// and inode on Unix. Two paths name the same file when their ids are equal; a run compares its
/// outputs' ids with its inputs' so that it never writes over what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    device: u64,
    inode: u64,
}

/// The id of the file at `path` (links followed), or `None` when nothing is there.
pub fn identity(path: &Path) -> io::Result<Option<FileId>> {
    match fs::metadata(path) {
        Ok(metadata) => Ok(Some(id_of(&metadata))),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

#[cfg(unix)]
fn id_of(metadata: &fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    FileId {
        device: metadata.dev(),
        inode: metadata.ino(),
    }
}

#[cfg(not(unix))]
fn id_of(metadata: &fs::Metadata) -> FileId {
    // No inode to compare: the size and the time it was changed, a weaker stand-in.
    let changed = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos() as u64);
    FileId {
        device: metadata.len(),
        inode: changed,
    }
}

/// The file's bytes, or `None` when it has more than `limit` (then only `limit + 1` were read).
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let folder = std::env::temp_dir().join(format!("blockfall-atomic-{}", std::process::id()));
        let _ = fs::remove_dir_all(&folder);
        let path = folder.join("deeper").join("world.blockfall");
        write_atomically(&path, b"first").expect("written");
        write_atomically(&path, b"second").expect("written");
        assert_eq!(fs::read(&path).expect("read"), b"second");
        let left: Vec<_> = fs::read_dir(path.parent().expect("a folder"))
            .expect("listed")
            .map(|entry| entry.expect("an entry").file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("world.blockfall")]);
        assert_eq!(
            read_at_most(&path, 6).expect("read"),
            Some(b"second".to_vec())
        );
        assert_eq!(read_at_most(&path, 5).expect("read"), None);
        assert!(write_atomically(&path.join("under-a-file"), b"x").is_err());
        fs::remove_dir_all(&folder).expect("cleaned up");
    }
}
