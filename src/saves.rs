//! Saving and loading in a run (docs/saves.md): F5 saves the world, F9 loads the last save,
//! `--world PATH` opens a save (or creates it) and the run then saves there every
//! [`AUTOSAVE_EVERY`] of play and when it ends (a quit, the end of a headless or scripted run, a
//! signal). Without `--world`, F5 and F9 use `worlds/world.blockfall` in the platform's data
//! folder. A run saves only while it holds the world's lock ([`crate::world_lock`]); one opened
//! `--read-only` never saves.
//!
//! A save that fails, and a load that is refused, change nothing on disk. A failed save is kept
//! ([`Saves::failure`]): the HUD shows it until a save succeeds, the next autosave and the end
//! of the run try again, and a player who quits is asked once ([`Saves::ask_before_leaving`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use blockfall_game::files;
use blockfall_game::input::Input;
use blockfall_game::save::{WorldSave, EXTENSION};
use blockfall_game::scene::SaveState;
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;

use crate::world_lock::{LockError, WorldLock};

/// How often a world opened with `--world` is saved while playing.
pub const AUTOSAVE_EVERY: Duration = Duration::from_secs(5 * 60);

/// What F5 says in a run opened `--read-only`.
pub const READ_ONLY: &str = "not saved: the world is open read-only (--read-only)";

/// The save a run uses: `--world PATH`, or the data folder's `worlds/world.blockfall`.
pub fn save_path(world: Option<&Path>) -> Option<PathBuf> {
    match world {
        Some(path) => Some(path.to_path_buf()),
        None => blockfall_game::settings::data_dir()
            .map(|folder| folder.join("worlds").join(format!("world.{EXTENSION}"))),
    }
}

/// Checks, before the first frame, that a save can be written at `path` (a script's `save`
/// event): as [`files::check_writable`] checks a file, the error naming the save.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    files::check_writable(path).with_context(|| format!("cannot write the save {}", path.display()))
}

/// Loads the world of the save at `path`, its physics on `pool`, chunks streamed `radius`
/// around the player; and the clock it was saved at.
pub fn load_world(path: &Path, pool: WorkerPool, radius: u32) -> anyhow::Result<(World, f64)> {
    let save = WorldSave::read(path).with_context(|| format!("loading {}", path.display()))?;
    let clock = save.clock;
    let world = World::from_save(save, pool, radius)
        .with_context(|| format!("loading {}", path.display()))?;
    Ok((world, clock))
}

/// The last save a run tried.
#[derive(Debug, Clone, PartialEq)]
pub struct LastSave {
    /// The clock it was tried at, in seconds of play.
    pub clock: f64,
    /// Why it failed; `None` when the world was written.
    pub error: Option<String>,
}

/// What a run keeps of its saves.
#[derive(Debug)]
pub struct Saves {
    /// Where F5 saves and F9 loads; `None` when the platform has no data folder and no
    /// `--world` was given.
    pub path: Option<PathBuf>,
    /// Saved every [`AUTOSAVE_EVERY`] and at the end (`--world`).
    pub autosave: bool,
    /// `--read-only`: nothing is ever saved.
    pub read_only: bool,
    /// Seconds of play, kept in the save.
    pub clock: f64,
    /// Seconds of play since the last save was tried.
    since_save: f64,
    /// The world's lock, while this run holds it.
    lock: Option<Arc<WorldLock>>,
    /// The last save tried in this run.
    pub last: Option<LastSave>,
    /// A quit found the world unsaved and the player was asked: the next quit leaves.
    asked: bool,
}

impl Saves {
    /// The saves of a run with `--world` (`world`) or without, its clock starting at `clock`.
    pub fn new(world: Option<&Path>, clock: f64) -> Self {
        Self {
            path: save_path(world),
            autosave: world.is_some(),
            read_only: false,
            clock,
            since_save: 0.0,
            lock: None,
            last: None,
            asked: false,
        }
    }

    /// The saves of a run of `options`: [`Saves::new`], read-only with `--read-only`, holding
    /// the lock the run took at its start.
    pub fn for_run(options: &crate::options::RunOptions, clock: f64) -> Self {
        let mut saves = Self::new(options.world.as_deref(), clock);
        saves.read_only = options.read_only;
        saves.autosave &= !options.read_only;
        saves.lock = options.world_lock.clone();
        saves
    }

    /// `dt` seconds were played; whether an autosave is due.
    pub fn played(&mut self, dt: f32) -> bool {
        if dt.is_finite() && dt > 0.0 {
            self.clock += f64::from(dt);
            self.since_save += f64::from(dt);
        }
        self.autosave_due()
    }

    /// A script's clock reached `clock`; whether an autosave is due.
    pub fn played_to(&mut self, clock: f64) -> bool {
        if clock.is_finite() && clock > self.clock {
            self.since_save += clock - self.clock;
            self.clock = clock;
        }
        self.autosave_due()
    }

    fn autosave_due(&self) -> bool {
        self.autosave && self.since_save >= AUTOSAVE_EVERY.as_secs_f64()
    }

    /// Saves `world` (F5, an autosave, the end of a run); what to tell the player, or why it
    /// failed (kept as [`Saves::failure`] until a save succeeds). A read-only run saves nothing
    /// and says so ([`READ_ONLY`]).
    pub fn save(&mut self, world: &World) -> Result<String, String> {
        if self.read_only {
            return Ok(READ_ONLY.into());
        }
        self.since_save = 0.0;
        let written = self.write(world);
        self.last = Some(LastSave {
            clock: self.clock,
            error: written.as_ref().err().cloned(),
        });
        if written.is_ok() {
            self.asked = false;
        }
        written
    }

    /// The world written to its save, once this run holds the lock (or the lock cannot be made
    /// at all: a folder where no lock file can be written saves, or fails, as it would).
    fn write(&mut self, world: &World) -> Result<String, String> {
        let Some(path) = self.path.clone() else {
            return Err("no folder to save in: give --world PATH".into());
        };
        if self.lock.is_none() {
            match WorldLock::shared(&path) {
                Ok(lock) => self.lock = Some(lock),
                Err(held @ LockError::Held { .. }) => return Err(held.to_string()),
                Err(error) => log::warn!("{error}; saving without a lock"),
            }
        }
        // What the player holds is the player's own: a loaded world starts with nothing held.
        match world.save(self.clock, &Input::default()).write(&path) {
            Ok(bytes) => Ok(format!(
                "saved {} ({:.1} KB)",
                path.display(),
                bytes as f64 / 1024.0
            )),
            Err(error) => Err(error.to_string()),
        }
    }

    /// Saves go to the world at `path` from now on (the menu opened or made it), its clock at
    /// `clock`: its lock is taken first (refused when another game holds it), this world's
    /// let go; the run saves it every [`AUTOSAVE_EVERY`] and at its end.
    pub fn switch_to(&mut self, path: &Path, clock: f64) -> Result<(), String> {
        let lock = match WorldLock::shared(path) {
            Ok(lock) => Some(lock),
            Err(held @ LockError::Held { .. }) => return Err(held.to_string()),
            Err(error) => {
                log::warn!("{error}; the world is not locked");
                None
            }
        };
        self.path = Some(path.to_path_buf());
        self.lock = lock;
        self.autosave = true;
        self.read_only = false;
        self.clock = clock;
        self.since_save = 0.0;
        self.last = None;
        self.asked = false;
        Ok(())
    }

    /// Why the last save failed, while no save has succeeded since.
    pub fn failure(&self) -> Option<&str> {
        self.last.as_ref()?.error.as_deref()
    }

    /// Whether the run saves when it ends: a world opened with `--world` (not read-only), or
    /// any run whose last save failed (it tries again).
    pub fn saves_at_end(&self) -> bool {
        !self.read_only && (self.autosave || self.failure().is_some())
    }

    /// The line the HUD keeps while the last save has failed; `save_key` names F5 as bound.
    pub fn warning(&self, save_key: &str) -> Option<String> {
        let reason = self.failure()?;
        if self.asked {
            return Some(format!(
                "could not save: {reason}; quit again to leave without saving"
            ));
        }
        let retry = if self.autosave {
            format!("retrying at the next autosave; {save_key} to try now")
        } else {
            format!("{save_key} to try again")
        };
        Some(format!("World NOT saved: {reason} — {retry}"))
    }

    /// A player quits and the save at the end failed: true the first time (the player is
    /// asked, and stays), false once asked (the player leaves without the world saved). A
    /// save that succeeds asks again next time.
    pub fn ask_before_leaving(&mut self) -> bool {
        !std::mem::replace(&mut self.asked, true)
    }

    /// The player was asked at a quit and no save has succeeded since: why the world is not
    /// saved (the next quit leaves at once, without trying again).
    pub fn left_unsaved(&self) -> Option<&str> {
        self.failure().filter(|_| self.asked)
    }

    /// The save as a scripted run's state lines report it: a run with `--world` from the
    /// start (nothing tried yet), any run once it tried a save; `None` otherwise, and for a
    /// read-only run, which never saves.
    pub fn state(&self) -> Option<SaveState> {
        if self.read_only {
            return None;
        }
        match &self.last {
            Some(last) => Some(SaveState::Tried {
                ok: last.error.is_none(),
                t: last.clock,
                error: last.error.clone(),
            }),
            None if self.autosave => Some(SaveState::NotYet),
            None => None,
        }
    }

    /// The world of the last save (its physics on `pool`), or why it cannot be loaded.
    pub fn load(&mut self, pool: WorkerPool, radius: u32) -> Result<World, String> {
        let Some(path) = &self.path else {
            return Err("no save to load: give --world PATH".into());
        };
        if !path.exists() {
            return Err(format!("no save at {} yet: F5 saves one", path.display()));
        }
        let (world, clock) =
            load_world(path, pool, radius).map_err(|error| format!("{error:#}"))?;
        self.clock = clock;
        self.since_save = 0.0;
        Ok(world)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blockfall_game::terrain::PlaneGround;

    #[test]
    fn an_autosave_is_due_every_five_minutes_of_play_with_a_world_only() {
        let mut with = Saves::new(Some(Path::new("w.blockfall")), 10.0);
        let mut without = Saves::new(None, 0.0);
        for _ in 0..(299 * 60) {
            assert!(!with.played(1.0 / 60.0));
            assert!(!without.played(1.0 / 60.0));
        }
        assert!(!with.played(f32::NAN));
        assert!((0..120).any(|_| with.played(1.0 / 60.0)));
        assert!(!without.played(1.0 / 60.0));
        assert!(with.clock > 310.0, "{}", with.clock);
        // A script's clock.
        let mut scripted = Saves::new(Some(Path::new("w.blockfall")), 5.0);
        assert!(!scripted.played_to(299.0));
        assert!(scripted.played_to(305.5));
        assert_eq!(scripted.clock, 305.5);
    }

    fn world() -> World {
        World::on(
            Arc::new(PlaneGround::flat(0.0)),
            1,
            WorkerPool::new(1).unwrap(),
        )
    }

    #[test]
    fn a_failed_save_is_kept_shown_retried_and_asked_about_once() {
        let dir = std::env::temp_dir().join(format!("blockfall-saves-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Under a file: no folder can be made there, even by root.
        let file = dir.join("a-file");
        std::fs::write(&file, b"").unwrap();
        let world = world();
        let mut saves = Saves::new(Some(&file.join("w.blockfall")), 7.0);
        assert_eq!(saves.state(), Some(SaveState::NotYet));
        assert!(saves.saves_at_end() && saves.warning("F5").is_none());
        let reason = saves.save(&world).expect_err("cannot be written");
        assert_eq!(saves.failure(), Some(reason.as_str()));
        let warning = saves.warning("F5").expect("shown");
        assert!(
            warning.starts_with("World NOT saved: ") && warning.contains("next autosave; F5"),
            "{warning}"
        );
        assert_eq!(
            saves.state(),
            Some(SaveState::Tried {
                ok: false,
                t: 7.0,
                error: Some(reason.clone())
            })
        );
        // The next autosave is five minutes on, not the next frame.
        assert!(!saves.played(1.0));
        assert_eq!(saves.left_unsaved(), None);
        assert!(saves.ask_before_leaving(), "asked the first time");
        assert!(saves.warning("F5").unwrap().contains("quit again"));
        assert_eq!(saves.left_unsaved(), Some(reason.as_str()));
        assert!(!saves.ask_before_leaving(), "leaves the second time");

        // A save that succeeds clears it all.
        saves.path = Some(dir.join("w.blockfall"));
        saves.save(&world).expect("written");
        assert_eq!(saves.failure(), None);
        assert!(saves.warning("F5").is_none());
        assert_eq!(saves.left_unsaved(), None);
        assert!(saves.ask_before_leaving());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_read_only_run_never_saves_and_says_so() {
        let dir = std::env::temp_dir().join(format!("blockfall-ro-{}", std::process::id()));
        let path = dir.join("w.blockfall");
        let mut saves = Saves::new(Some(&path), 0.0);
        saves.read_only = true;
        saves.autosave = false;
        assert_eq!(saves.save(&world()), Ok(READ_ONLY.to_owned()));
        assert!(!path.exists() && !dir.exists());
        assert!(!saves.saves_at_end());
        assert_eq!(saves.state(), None);
    }
}
