//! Files the game writes for the player (saves, settings, screenshots, meshes) and reads back
//! from them: written so that a crash or a kill at any moment leaves the old file or the new
//! one, whole; read with a limit, so that a huge or endless file is refused rather than read
//! whole. Only regular files are read or replaced: a FIFO, a device, a socket or a folder at a
//! player's path is refused with an error ([`io::ErrorKind::InvalidInput`]) that names the path
//! and what is there, never read forever nor replaced by a file. Temporary files have random
//! names and are created exclusively, never through a link planted at their name.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// How many temporary names are tried before a write gives up (each taken name is skipped).
const TEMPORARY_ATTEMPTS: usize = 32;

/// Writes `bytes` to `path` so that the file at `path` is, at any moment, either what it was
/// or `bytes`, whole: a hidden temporary file in the same folder (`.bf-` and 16 random hex
/// digits, `.tmp`; created exclusively, never through a link) is written, flushed and synced,
/// then renamed over `path`, and the folder synced so the rename itself is kept. The folder is
/// made when missing. A writer killed halfway leaves only its temporary file, which nothing
/// reads; a failed write removes it.
///
/// Only a regular file is replaced: when something else is at `path` (a folder, a FIFO, a
/// device, a socket) the write is refused with [`io::ErrorKind::InvalidInput`] and nothing is
/// changed. When `path` is a symbolic link, the file it leads to (through any chain of links)
/// is replaced and the link stays a link; a link to nothing or a loop of links is refused.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, bytes, &mut random_names())
}

/// [`write_atomically`] with the temporary names tried in turn taken from `names` (tests plant
/// links at them).
fn write_atomically_with(
    path: &Path,
    bytes: &[u8],
    names: &mut dyn Iterator<Item = String>,
) -> io::Result<()> {
    let target = replaceable_target(path)?;
    let folder = folder_of(&target);
    fs::create_dir_all(&folder)?;
    let (mut file, temporary) = create_temporary(&folder, names)?;
    let written = (|| {
        file.write_all(bytes)?;
        file.flush()?;
        file.sync_all()?;
        drop(file);
        // Checked again just before the rename: whatever came to the path meanwhile is not
        // replaced unless it is a file.
        replaceable_target(&target)?;
        fs::rename(&temporary, &target)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written?;
    sync_folder(&folder)
}

/// Checks that a file can be written at `path` before any work is done for it: `path` names a
/// file (not a folder), nothing but a regular file (or a link to one) is there, its folder is
/// made when missing, and a temporary file can be created in it exclusively (then removed).
pub fn check_writable(path: &Path) -> io::Result<()> {
    if path.file_name().is_none() {
        return Err(refusal(format!(
            "{} names a folder, not a file",
            path.display()
        )));
    }
    let target = replaceable_target(path)?;
    let folder = folder_of(&target);
    fs::create_dir_all(&folder)?;
    let (file, temporary) = create_temporary(&folder, &mut random_names())?;
    drop(file);
    fs::remove_file(&temporary)
}

/// The path whose file a write replaces: `path` itself when nothing is there or a regular file
/// is; the file at the end of the links when `path` is a link to a regular file. Anything else
/// is refused.
fn replaceable_target(path: &Path) -> io::Result<PathBuf> {
    if path.file_name().is_none() {
        return Err(refusal(format!("{} names no file", path.display())));
    }
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(error) => return Err(error),
    };
    if metadata.file_type().is_file() {
        return Ok(path.to_path_buf());
    }
    if !metadata.file_type().is_symlink() {
        return Err(not_a_file(path, &metadata.file_type()));
    }
    let target = fs::canonicalize(path).map_err(|error| broken_link(path, error))?;
    let metadata = fs::metadata(&target).map_err(|error| broken_link(path, error))?;
    if !metadata.file_type().is_file() {
        return Err(refusal(format!(
            "{} is a link to {}, which {}, not a regular file",
            path.display(),
            target.display(),
            what_is(&metadata.file_type()),
        )));
    }
    Ok(target)
}

/// The folder a file at `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new file in `folder` under the first free name of `names` (at most
/// [`TEMPORARY_ATTEMPTS`] tried), created exclusively: a name already taken, by a file or a
/// link, is skipped and never opened.
fn create_temporary(
    folder: &Path,
    names: &mut dyn Iterator<Item = String>,
) -> io::Result<(File, PathBuf)> {
    for name in names.take(TEMPORARY_ATTEMPTS) {
        let temporary = folder.join(name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW);
        }
        match options.open(&temporary) {
            Ok(file) => return Ok((file, temporary)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "no free name for a temporary file in {} after {TEMPORARY_ATTEMPTS} tries",
            folder.display()
        ),
    ))
}

/// Endless hidden temporary names, `.bf-` and 16 hex digits, `.tmp`: each a hash keyed by the
/// system's randomness (std's `RandomState`) of a counter, the time and the process, so no one
/// outside the process can tell the next one. Their length does not depend on the target's
/// name (a 255-byte name is still written).
fn random_names() -> impl Iterator<Item = String> {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    std::iter::repeat_with(|| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        hasher.write_u32(std::process::id());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        hasher.write_u128(now);
        format!(".bf-{:016x}.tmp", hasher.finish())
    })
}

/// An error for a path that is refused: [`io::ErrorKind::InvalidInput`] and why.
fn refusal(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// `PATH is a FIFO (named pipe), not a regular file`, and the like.
fn not_a_file(path: &Path, file_type: &fs::FileType) -> io::Error {
    refusal(format!(
        "{} {}, not a regular file",
        path.display(),
        what_is(file_type)
    ))
}

/// What a thing that is not a regular file is, as `is a …`.
fn what_is(file_type: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "is a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "is a character device";
        }
        if file_type.is_block_device() {
            return "is a block device";
        }
        if file_type.is_socket() {
            return "is a socket";
        }
    }
    if file_type.is_dir() {
        "is a folder"
    } else if file_type.is_symlink() {
        "is a symbolic link"
    } else if file_type.is_file() {
        "is a regular file"
    } else {
        "is something other than a file"
    }
}

/// The error for a link that leads nowhere (a link to nothing, a loop of links) or fails.
fn broken_link(path: &Path, error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::NotFound {
        return refusal(format!(
            "{} is a symbolic link to nothing (its target is missing)",
            path.display()
        ));
    }
    #[cfg(unix)]
    if error.raw_os_error() == Some(libc::ELOOP) {
        return refusal(format!(
            "{} is a symbolic link that loops (or too long a chain of links)",
            path.display()
        ));
    }
    error
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
/// Only a regular file (or a link to one) is read: a FIFO, a device, a socket or a folder is
/// refused with [`io::ErrorKind::InvalidInput`] naming the path and what it is. The file is
/// opened without blocking (`O_NONBLOCK`: a FIFO without a writer is not waited on) and checked
/// on the opened handle, so what is read is what was checked; a regular file's reads never
/// block, so the flag is left as it is. A link to nothing or a loop of links is refused too.
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// The regular file at `path` (links followed), opened for reading without blocking and
/// without becoming a controlling terminal; anything else refused, before opening where it can
/// be told and on the opened handle again.
fn open_regular(path: &Path) -> io::Result<File> {
    match fs::metadata(path) {
        Ok(metadata) if !metadata.file_type().is_file() => {
            return Err(not_a_file(path, &metadata.file_type()))
        }
        Ok(_) => {}
        Err(error) => {
            let is_link =
                fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink());
            return Err(if is_link {
                broken_link(path, error)
            } else {
                error
            });
        }
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.file_type().is_file() {
        return Err(not_a_file(path, &metadata.file_type()));
    }
    Ok(file)
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

    /// A fresh empty folder for one test.
    fn scratch(test: &str) -> PathBuf {
        let folder =
            std::env::temp_dir().join(format!("blockfall-files-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&folder);
        fs::create_dir_all(&folder).expect("a scratch folder");
        folder
    }

    /// `read_at_most(path)`, failing the test if it has not returned within 5 s (a FIFO read
    /// blocks forever; the thread is then left behind).
    fn read_within_a_while(path: &Path) -> io::Result<Option<Vec<u8>>> {
        let (send, receive) = std::sync::mpsc::channel();
        let path = path.to_path_buf();
        std::thread::spawn(move || {
            let _ = send.send(read_at_most(&path, 1 << 20));
        });
        receive
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the read returned within 5 s")
    }

    /// The names of the entries in `folder`, sorted.
    fn entries(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(folder)
            .expect("listed")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into()
            })
            .collect();
        names.sort();
        names
    }

    fn assert_refused(result: io::Result<impl std::fmt::Debug>, path: &Path, what: &str) {
        let error = result.expect_err("refused");
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput, "{error}");
        let message = error.to_string();
        assert!(
            message.contains(&path.display().to_string()) && message.contains(what),
            "{message}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_neither_read_nor_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let folder = scratch("fifo");
        let fifo = folder.join("world.blockfall");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        assert_refused(read_within_a_while(&fifo), &fifo, "is a FIFO (named pipe)");
        assert_refused(
            write_atomically(&fifo, b"x"),
            &fifo,
            "is a FIFO (named pipe)",
        );
        assert_refused(check_writable(&fifo), &fifo, "is a FIFO (named pipe)");
        // A link to it is refused as well.
        let link = folder.join("link.blockfall");
        std::os::unix::fs::symlink(&fifo, &link).expect("linked");
        assert_refused(read_within_a_while(&link), &link, "is a FIFO (named pipe)");
        assert_refused(
            write_atomically(&link, b"x"),
            &link,
            "is a FIFO (named pipe)",
        );
        let kind = fs::symlink_metadata(&fifo)
            .expect("still there")
            .file_type();
        assert!(kind.is_fifo(), "the FIFO stays a FIFO");
        assert_eq!(entries(&folder), ["link.blockfall", "world.blockfall"]);
        fs::remove_dir_all(&folder).expect("cleaned up");
    }

    #[test]
    fn a_folder_is_neither_read_nor_replaced() {
        let folder = scratch("folder");
        let inner = folder.join("saves");
        fs::create_dir(&inner).expect("made");
        assert_refused(read_at_most(&inner, 100), &inner, "is a folder");
        assert_refused(write_atomically(&inner, b"x"), &inner, "is a folder");
        assert_refused(check_writable(&inner), &inner, "is a folder");
        assert!(inner.is_dir());
        assert_eq!(entries(&folder), ["saves"]);
        assert!(entries(&inner).is_empty());
        fs::remove_dir_all(&folder).expect("cleaned up");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_not_read() {
        // Reading these never ends or gives nothing; either way they are not a player's file.
        for device in ["/dev/zero", "/dev/null", "/dev/urandom"] {
            let device = Path::new(device);
            assert_refused(read_at_most(device, 100), device, "is a character device");
        }
    }

    #[cfg(unix)]
    #[test]
    fn broken_links_are_refused() {
        use std::os::unix::fs::symlink;
        let folder = scratch("links");
        let (a, b) = (folder.join("a"), folder.join("b"));
        symlink(&b, &a).expect("linked");
        symlink(&a, &b).expect("linked");
        assert_refused(read_at_most(&a, 100), &a, "loops");
        assert_refused(write_atomically(&a, b"x"), &a, "loops");
        assert_refused(check_writable(&a), &a, "loops");
        let dangling = folder.join("dangling");
        symlink(folder.join("missing"), &dangling).expect("linked");
        assert_refused(read_at_most(&dangling, 100), &dangling, "link to nothing");
        assert_refused(
            write_atomically(&dangling, b"x"),
            &dangling,
            "link to nothing",
        );
        assert_eq!(entries(&folder), ["a", "b", "dangling"]);
        for link in [&a, &b, &dangling] {
            assert!(fs::symlink_metadata(link).expect("there").is_symlink());
        }
        fs::remove_dir_all(&folder).expect("cleaned up");
    }

    #[cfg(unix)]
    #[test]
    fn saving_over_a_link_replaces_the_file_it_leads_to() {
        let folder = scratch("through-link");
        let real = folder.join("real").join("world.blockfall");
        fs::create_dir_all(real.parent().expect("a folder")).expect("made");
        fs::write(&real, b"old").expect("written");
        let link = folder.join("world.blockfall");
        std::os::unix::fs::symlink("real/world.blockfall", &link).expect("linked");
        write_atomically(&link, b"new").expect("written");
        assert!(fs::symlink_metadata(&link).expect("there").is_symlink());
        assert_eq!(fs::read(&real).expect("read"), b"new");
        assert_eq!(
            read_at_most(&link, 10).expect("read"),
            Some(b"new".to_vec())
        );
        assert_eq!(entries(&folder), ["real", "world.blockfall"]);
        assert_eq!(
            entries(real.parent().expect("a folder")),
            ["world.blockfall"]
        );
        check_writable(&link).expect("writable");
        fs::remove_dir_all(&folder).expect("cleaned up");
    }

    #[cfg(unix)]
    #[test]
    fn links_planted_at_temporary_names_are_never_followed() {
        use std::os::unix::fs::symlink;
        let folder = scratch("planted");
        let victim_folder = scratch("planted-victim");
        let victim = victim_folder.join("victim");
        fs::write(&victim, b"the victim's bytes").expect("written");
        let target = folder.join("world.blockfall");
        fs::write(&target, b"old save").expect("written");
        // The old predictable names, for the coming process ids.
        let pid = std::process::id();
        for id in pid..pid + 64 {
            symlink(&victim, folder.join(format!(".world.blockfall.{id}.tmp"))).expect("planted");
            symlink(&victim, folder.join(format!(".blockfall-probe.{id}.tmp"))).expect("planted");
        }
        // Names the generator is made to choose: the first ones are all taken by links.
        let planted: Vec<String> = (0..8).map(|n| format!(".bf-planted{n}.tmp")).collect();
        for name in &planted {
            symlink(&victim, folder.join(name)).expect("planted");
        }
        let mut names = planted.clone().into_iter().chain(random_names());
        write_atomically_with(&target, b"new save", &mut names).expect("written past the links");
        assert_eq!(fs::read(&target).expect("read"), b"new save");
        write_atomically(&target, b"newer save").expect("written");
        check_writable(&target).expect("writable");
        // Every name taken: the write fails cleanly, changing nothing.
        let mut names = planted.clone().into_iter().cycle();
        let error = write_atomically_with(&target, b"lost", &mut names).expect_err("no free name");
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists, "{error}");
        assert_eq!(fs::read(&target).expect("read"), b"newer save");
        assert_eq!(fs::read(&victim).expect("read"), b"the victim's bytes");
        assert_eq!(entries(&victim_folder), ["victim"]);
        // Only the planted links and the save are in the folder: no temporary file is left.
        assert_eq!(entries(&folder).len(), 2 * 64 + planted.len() + 1);
        fs::remove_dir_all(&folder).expect("cleaned up");
        fs::remove_dir_all(&victim_folder).expect("cleaned up");
    }

    #[test]
    fn temporary_names_are_hidden_bounded_and_differ() {
        let names: Vec<String> = random_names().take(1000).collect();
        let distinct: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len());
        for name in &names {
            assert!(name.starts_with(".bf-") && name.ends_with(".tmp"), "{name}");
            assert_eq!(name.len(), ".bf-".len() + 16 + ".tmp".len(), "{name}");
        }
    }

    #[test]
    fn a_name_of_255_bytes_is_saved_and_read_back() {
        let folder = scratch("long-name");
        let path = folder.join("w".repeat(255));
        write_atomically(&path, b"long").expect("written");
        write_atomically(&path, b"longer").expect("written again");
        check_writable(&path).expect("writable");
        assert_eq!(
            read_at_most(&path, 10).expect("read"),
            Some(b"longer".to_vec())
        );
        assert_eq!(entries(&folder), ["w".repeat(255)]);
        fs::remove_dir_all(&folder).expect("cleaned up");
    }

    #[cfg(unix)]
    #[test]
    fn device_nodes_are_not_replaced() {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        // Root makes device nodes: this process's own folder in /proc belongs to its user.
        let root = fs::metadata("/proc/self").is_ok_and(|own| own.uid() == 0);
        if !root {
            eprintln!("not root: no device nodes made, nothing checked");
            return;
        }
        let folder = scratch("devices");
        let node = folder.join("null");
        let made = std::process::Command::new("mknod")
            .arg(&node)
            .args(["c", "1", "3"])
            .status()
            .expect("mknod runs");
        if !made.success() {
            eprintln!("mknod refused (no CAP_MKNOD here): nothing checked");
            fs::remove_dir_all(&folder).expect("cleaned up");
            return;
        }
        assert_refused(
            write_atomically(&node, b"x"),
            &node,
            "is a character device",
        );
        assert_refused(check_writable(&node), &node, "is a character device");
        assert_refused(read_at_most(&node, 10), &node, "is a character device");
        let link = folder.join("link");
        std::os::unix::fs::symlink(&node, &link).expect("linked");
        assert_refused(
            write_atomically(&link, b"x"),
            &link,
            "is a character device",
        );
        let kind = fs::symlink_metadata(&node)
            .expect("still there")
            .file_type();
        assert!(kind.is_char_device(), "the node stays a device");
        assert_eq!(entries(&folder), ["link", "null"]);
        fs::remove_dir_all(&folder).expect("cleaned up");
    }
}
