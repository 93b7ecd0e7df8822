//! One game per world (docs/saves.md, "Quitting, locks and failed saves"): a game that plays a
//! world holds an advisory lock on a file beside its save — `.NAME.lock` for the save `NAME`
//! (`.w.blockfall.lock` beside `w.blockfall`), in the folder of the file the save's path leads
//! to — and writes its process id and start time into it. A second game that opens the world
//! finds the lock held and is told who holds it ([`Holder`]: the process id, its command name
//! from `/proc/PID/comm` where there is one, and when it started). The system lets the lock go
//! when the game ends, however it ends (a crash, a kill); the file itself stays, and one that
//! nobody holds locks nothing.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The lock file of the save at `world`: `.NAME.lock` in the folder of the file `world` leads
/// to (links followed, so that every path to one save finds one lock).
pub fn lock_path(world: &Path) -> PathBuf {
    let real = real_place(world);
    let name = real.file_name().map_or_else(
        || "world".into(),
        |name| name.to_string_lossy().into_owned(),
    );
    real.with_file_name(format!(".{name}.lock"))
}

/// Where `path` really is: itself resolved when it exists, else its folder resolved and its
/// name, else `path` as given.
fn real_place(path: &Path) -> PathBuf {
    if let Ok(real) = fs::canonicalize(path) {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            fs::canonicalize(parent).map_or_else(|_| path.to_path_buf(), |real| real.join(name))
        }
        _ => path.to_path_buf(),
    }
}

/// Who holds a world's lock, as its lock file and the system say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holder {
    /// Its process id.
    pub pid: Option<u32>,
    /// Its command name (`/proc/PID/comm`), where the system shows it.
    pub command: Option<String>,
    /// When it took the lock, as it wrote it (`2026-05-01 12:00:00 UTC`).
    pub started: Option<String>,
}

impl Holder {
    /// The holder that the lock file `text` names: its `pid` and `started` lines; the command
    /// name read from the system.
    fn from_text(text: &str) -> Self {
        let field = |key: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(key)?.strip_prefix(' '))
                .map(|value| value.trim().to_owned())
        };
        let pid = field("pid").and_then(|pid| pid.parse().ok());
        Self {
            pid,
            command: pid.and_then(command_of),
            started: field("started"),
        }
    }
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "process {pid}")?,
            None => write!(f, "a process that has not written its id yet")?,
        }
        if let Some(command) = &self.command {
            write!(f, " ({command})")?;
        }
        if let Some(started) = &self.started {
            write!(f, ", started {started}")?;
        }
        Ok(())
    }
}

/// The command name of process `pid` (`/proc/PID/comm`), where the system shows one.
fn command_of(pid: u32) -> Option<String> {
    let name = fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// Why a world could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another game holds it.
    #[error(
        "{world} is open in another game: {holder}; its lock is {lock}",
        world = world.display(),
        lock = lock.display()
    )]
    Held {
        world: PathBuf,
        lock: PathBuf,
        holder: Holder,
    },
    /// The lock file cannot be made or locked (a read-only folder, a file system without
    /// locks): the world is not locked.
    #[error(
        "cannot lock {world}: {lock}: {source}",
        world = world.display(),
        lock = lock.display()
    )]
    Unavailable {
        world: PathBuf,
        lock: PathBuf,
        source: io::Error,
    },
}

/// A world's lock, held until it is dropped (or the process ends).
#[derive(Debug)]
pub struct WorldLock {
    /// The open lock file: the lock is on it.
    file: File,
    path: PathBuf,
}

impl WorldLock {
    /// Locks the save at `world` for this process: its lock file ([`lock_path`]) made when
    /// missing (and its folder), locked without waiting, and this process's id and start time
    /// written into it. Refused with [`LockError::Held`] naming the holder when another game
    /// holds it.
    pub fn take(world: &Path) -> Result<Self, LockError> {
        let path = lock_path(world);
        let unavailable = |source: io::Error| LockError::Unavailable {
            world: world.to_path_buf(),
            lock: path.clone(),
            source,
        };
        let mut file = open_lock_file(&path).map_err(unavailable)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    world: world.to_path_buf(),
                    lock: path.clone(),
                    holder: read_holder(&mut file),
                })
            }
            Err(fs::TryLockError::Error(error)) => return Err(unavailable(error)),
        }
        // The lock is what counts; a lock file that cannot take its text (a full disk) still
        // locks, and a second game is told less about who holds it.
        if let Err(error) = write_holder(&mut file) {
            log::info!("writing who holds {}: {error}", path.display());
        }
        Ok(Self { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This process's lock on the save at `world`: the one it already holds, when some part of
    /// the run still does (a world the menu left and comes back to), else [`WorldLock::take`]n
    /// now. Another game holding it is refused as `take` refuses it.
    pub fn shared(world: &Path) -> Result<Arc<Self>, LockError> {
        let path = lock_path(world);
        let mut held = HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        held.retain(|_, lock| lock.strong_count() > 0);
        if let Some(lock) = held.get(&path).and_then(Weak::upgrade) {
            return Ok(lock);
        }
        let lock = Arc::new(Self::take(world)?);
        held.insert(path, Arc::downgrade(&lock));
        Ok(lock)
    }
}

/// The locks this process holds through [`WorldLock::shared`], by lock file.
static HELD: Mutex<BTreeMap<PathBuf, Weak<WorldLock>>> = Mutex::new(BTreeMap::new());

impl Drop for WorldLock {
    fn drop(&mut self) {
        // Closing the file lets the lock go too; unlocking first says so plainly.
        let _ = self.file.unlock();
    }
}

/// Opens (or makes, with its folder) the lock file at `path` for reading and writing, never
/// through a link and without blocking on what is not a file; only a regular file is taken.
fn open_lock_file(path: &Path) -> io::Result<File> {
    if let Some(folder) = path.parent() {
        fs::create_dir_all(folder)?;
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// This process's id and the time now, as the lock file holds them.
fn write_holder(file: &mut File) -> io::Result<()> {
    let text = format!(
        "pid {}\nstarted {}\n",
        std::process::id(),
        utc(SystemTime::now())
    );
    file.set_len(0)?;
    file.write_all(text.as_bytes())?;
    file.flush()
}

/// Who holds the lock on `file`: its text, read again for a moment while it is empty (the
/// holder locks first, then writes).
fn read_holder(file: &mut File) -> Holder {
    let mut holder = Holder::default();
    for _ in 0..20 {
        let mut text = String::new();
        let read = io::Seek::rewind(file)
            .and_then(|()| io::Read::take(&mut *file, 4096).read_to_string(&mut text));
        holder = Holder::from_text(&text);
        if read.is_err() || holder.pid.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    holder
}

/// `time` as a date and time in UTC, to the second (`2026-05-01 12:00:00 UTC`).
fn utc(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_date(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

/// The year, month and day of `days` after 1970-01-01 in the Gregorian calendar (Howard
/// Hinnant's `civil_from_days`).
fn civil_date(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let of_era = z % 146_097;
    let year_of_era = (of_era - of_era / 1460 + of_era / 36_524 - of_era / 146_096) / 365;
    let of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * of_year + 2) / 153;
    let day = of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("blockfall-lock-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_taken_once_it_is_dropped() {
        let dir = scratch("twice");
        let world = dir.join("w.blockfall");
        let held = WorldLock::take(&world).expect("the first lock");
        assert_eq!(
            held.path(),
            dir.canonicalize().unwrap().join(".w.blockfall.lock")
        );
        let text = fs::read_to_string(held.path()).unwrap();
        assert!(
            text.starts_with(&format!("pid {}\nstarted ", std::process::id())),
            "{text}"
        );
        let refused = WorldLock::take(&world).expect_err("held");
        let LockError::Held { holder, .. } = &refused else {
            panic!("{refused}");
        };
        assert_eq!(holder.pid, Some(std::process::id()));
        assert!(holder
            .started
            .as_deref()
            .is_some_and(|s| s.ends_with("UTC")));
        let message = refused.to_string();
        assert!(
            message.contains(&format!("process {}", std::process::id()))
                && message.contains(".w.blockfall.lock"),
            "{message}"
        );
        #[cfg(target_os = "linux")]
        assert!(holder.command.is_some(), "{holder:?}");
        // Another path to the same save finds the same lock.
        let other = dir.join(".").join("w.blockfall");
        assert!(matches!(
            WorldLock::take(&other),
            Err(LockError::Held { .. })
        ));
        drop(held);
        let again = WorldLock::take(&world).expect("free once dropped");
        drop(again);
        fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_lock_file_that_cannot_be_made_is_unavailable_not_held() {
        let dir = scratch("unavailable");
        let world = dir.join("w.blockfall");
        fs::create_dir(lock_path(&world)).unwrap();
        let error = WorldLock::take(&world).expect_err("a folder is there");
        assert!(matches!(error, LockError::Unavailable { .. }), "{error}");
        fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn dates_are_in_the_gregorian_calendar() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(59), (1970, 3, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(20_454), (2026, 1, 1));
        let at = UNIX_EPOCH + Duration::from_secs(20_454 * 86_400 + 3723);
        assert_eq!(utc(at), "2026-01-01 01:02:03 UTC");
    }

    #[test]
    fn a_holder_is_read_from_its_text() {
        let holder = Holder::from_text("pid 4294967295\nstarted 2026-01-01 00:00:00 UTC\n");
        assert_eq!(holder.pid, Some(u32::MAX));
        assert_eq!(holder.started.as_deref(), Some("2026-01-01 00:00:00 UTC"));
        let nobody = Holder::from_text("");
        assert_eq!(
            nobody.to_string(),
            "a process that has not written its id yet"
        );
    }
}
