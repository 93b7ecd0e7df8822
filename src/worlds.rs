//! The player's worlds: `worlds/NAME.blockfall` in the platform's data folder
//! (`settings::data_dir`). A player's window started without `--world` opens the last world
//! played there (the save written last: every quit and autosave writes it), or makes
//! `worlds/world.blockfall` when there is none; the menu's Worlds screen lists them ([`list`]),
//! makes new ones ([`new_world_path`]) and deletes them ([`delete`]).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use blockfall_game::save::{WorldSave, EXTENSION};
use blockfall_game::terrain::GroundKind;

use crate::world_lock::{lock_path, WorldLock};

/// A world of the folder, as the Worlds screen lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldEntry {
    /// The file's name without `.blockfall`.
    pub name: String,
    pub path: PathBuf,
    /// Its ground's seed (`None`: a flat plane, or a save that cannot be read).
    pub seed: Option<u32>,
    /// When it was last saved (every quit and autosave saves it).
    pub last_played: Option<SystemTime>,
    /// The save's size in bytes.
    pub bytes: u64,
}

impl WorldEntry {
    /// `seed 1234 · 2026-12-05 21:30 · 12.3 KB`.
    pub fn summary(&self) -> String {
        let seed = match self.seed {
            Some(seed) => format!("seed {seed}"),
            None => "no seed".to_owned(),
        };
        let when = self
            .last_played
            .map_or_else(|| "never saved".to_owned(), utc_minute);
        let size = if self.bytes >= 1 << 20 {
            format!("{:.1} MB", self.bytes as f64 / f64::from(1 << 20))
        } else {
            format!("{:.1} KB", self.bytes as f64 / 1024.0)
        };
        format!("{seed} · {when} · {size}")
    }
}

/// `YYYY-MM-DD HH:MM UTC` of `time`.
fn utc_minute(time: SystemTime) -> String {
    let seconds = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// The folder of the player's worlds: `worlds` in the data folder (`None` where the platform
/// has no home folder).
pub fn folder() -> Option<PathBuf> {
    blockfall_game::settings::data_dir().map(|data| data.join("worlds"))
}

/// The worlds in `folder`, the last played first (a folder missing: none).
pub fn list(folder: &Path) -> Vec<WorldEntry> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut worlds: Vec<WorldEntry> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            if path.extension()? != EXTENSION {
                return None;
            }
            let metadata = entry.metadata().ok().filter(|m| m.is_file())?;
            let name = path.file_stem()?.to_string_lossy().into_owned();
            let seed = WorldSave::read(&path)
                .ok()
                .and_then(|save| match save.ground {
                    GroundKind::Generated { seed } => Some(seed),
                    GroundKind::Plane { .. } => None,
                });
            Some(WorldEntry {
                name,
                seed,
                last_played: metadata.modified().ok(),
                bytes: metadata.len(),
                path,
            })
        })
        .collect();
    worlds.sort_by(|a, b| {
        b.last_played
            .cmp(&a.last_played)
            .then_with(|| a.name.cmp(&b.name))
    });
    worlds
}

/// The world a player's window opens without `--world`: the last played in `folder`, or
/// `world.blockfall` there when it holds none.
pub fn last_or_first(folder: &Path) -> PathBuf {
    last_played(folder).unwrap_or_else(|| folder.join(format!("world.{EXTENSION}")))
}

/// The world saved last in `folder`, if any (without reading the saves).
fn last_played(folder: &Path) -> Option<PathBuf> {
    fs::read_dir(folder)
        .ok()?
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|e| e == EXTENSION))
        .filter_map(|entry| {
            let metadata = entry.metadata().ok().filter(|m| m.is_file())?;
            Some((metadata.modified().ok()?, entry.path()))
        })
        .max()
        .map(|(_, path)| path)
}

/// A name for a new world in `folder`: `world-2`, `world-3`, … (the first free).
pub fn new_world_path(folder: &Path) -> PathBuf {
    (2u32..)
        .map(|n| folder.join(format!("world-{n}.{EXTENSION}")))
        .find(|path| !path.exists() && !lock_path(path).exists())
        .expect("some name is free")
}

/// Deletes the world at `path`, once no game holds it (its lock is taken first, and removed
/// with it). A world another game has open is refused, and nothing is deleted.
pub fn delete(path: &Path) -> io::Result<()> {
    let lock = WorldLock::shared(path).map_err(|error| io::Error::other(error.to_string()))?;
    fs::remove_file(path)?;
    // The lock file goes with the world, while this game still holds it.
    let _ = fs::remove_file(lock_path(path));
    drop(lock);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(utc_minute(SystemTime::UNIX_EPOCH), "1970-01-01 00:00 UTC");
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_506_200);
        assert_eq!(utc_minute(at), "2026-12-05 21:30 UTC");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(utc_minute(leap), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn the_last_played_world_is_opened_and_new_names_are_free() {
        let dir = std::env::temp_dir().join(format!("blockfall-worlds-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        assert_eq!(last_or_first(&dir), dir.join("world.blockfall"));
        assert!(list(&dir).is_empty());
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("old.blockfall"), b"x").unwrap();
        std::thread::sleep(Duration::from_millis(20));
        fs::write(dir.join("new.blockfall"), b"xy").unwrap();
        fs::write(dir.join("notes.txt"), b"not a world").unwrap();
        assert_eq!(last_or_first(&dir), dir.join("new.blockfall"));
        let listed = list(&dir);
        let names: Vec<&str> = listed.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["new", "old"]);
        assert_eq!(listed[0].seed, None, "not a save");
        assert_eq!(listed[0].bytes, 2);
        assert_eq!(new_world_path(&dir), dir.join("world-2.blockfall"));
        delete(&dir.join("old.blockfall")).unwrap();
        assert!(!dir.join("old.blockfall").exists());
        assert!(!lock_path(&dir.join("old.blockfall")).exists());
        fs::remove_dir_all(dir).ok();
    }
}
