//! Saving and loading in the window (docs/saves.md): F5 saves the world, F9 loads the last
//! save, `--world PATH` opens a save (or creates it) and the game then saves there every
//! [`AUTOSAVE_EVERY`] and when it closes. Without `--world`, F5 and F9 use
//! `worlds/world.blockfall` in the platform's data folder.
//!
//! A save that fails, and a load that is refused, change nothing: the HUD says why.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use blockfall_engine::workers::WorkerPool;
use blockfall_game::input::Input;
use blockfall_game::save::{WorldSave, EXTENSION};
use blockfall_game::world::World;

/// How often a world opened with `--world` is saved while playing.
pub const AUTOSAVE_EVERY: Duration = Duration::from_secs(5 * 60);

/// The save a run uses: `--world PATH`, or the data folder's `worlds/world.blockfall`.
pub fn save_path(world: Option<&Path>) -> Option<PathBuf> {
    match world {
        Some(path) => Some(path.to_path_buf()),
        None => blockfall_game::settings::data_dir()
            .map(|folder| folder.join("worlds").join(format!("world.{EXTENSION}"))),
    }
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

/// What the window keeps of its saves.
#[derive(Debug)]
pub struct Saves {
    /// Where F5 saves and F9 loads; `None` when the platform has no data folder and no
    /// `--world` was given.
    pub path: Option<PathBuf>,
    /// Saved every [`AUTOSAVE_EVERY`] and at the end (`--world`).
    pub autosave: bool,
    /// Seconds of play, kept in the save.
    pub clock: f64,
    /// Seconds of play since the last save.
    since_save: f64,
}

impl Saves {
    /// The saves of a run with `--world` (`world`) or without.
    pub fn new(world: Option<&Path>, clock: f64) -> Self {
        Self {
            path: save_path(world),
            autosave: world.is_some(),
            clock,
            since_save: 0.0,
        }
    }

    /// `dt` seconds were played; whether an autosave is due.
    pub fn played(&mut self, dt: f32) -> bool {
        if dt.is_finite() && dt > 0.0 {
            self.clock += f64::from(dt);
            self.since_save += f64::from(dt);
        }
        self.autosave && self.since_save >= AUTOSAVE_EVERY.as_secs_f64()
    }

    /// Saves `world`; what to tell the player.
    pub fn save(&mut self, world: &World) -> Result<String, String> {
        let Some(path) = &self.path else {
            return Err("no folder to save in: give --world PATH".into());
        };
        // What the player holds is the player's own: a loaded world starts with nothing held.
        match world.save(self.clock, &Input::default()).write(path) {
            Ok(bytes) => {
                self.since_save = 0.0;
                Ok(format!(
                    "saved {} ({:.1} KB)",
                    path.display(),
                    bytes as f64 / 1024.0
                ))
            }
            Err(error) => Err(format!("saving failed: {error}")),
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
    }
}
