//! What a frame's commands do, the same in the window and headless: the terrain's wireframe
//! (L) and mesher (M), the HUD's detail (F3), a screenshot (F2), saving (F5) and loading (F9). A scripted run
//! that presses these keys does the same in both; each run keeps only what belongs to how it
//! shows the frame: the window frees the mouse or quits on Escape and goes fullscreen on F11,
//! which a headless run has nothing to do with.

use std::path::PathBuf;

use anyhow::Context as _;
use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_game::input::{Action, Command};

use crate::play::Play;
use crate::saves::{Saves, READ_ONLY};
use crate::shown::Shown;
use crate::signals::tell;

/// What the commands left to the run that shows the frame.
#[derive(Debug, Default)]
pub struct Asked {
    /// Escape was pressed.
    pub escape: bool,
    /// F11 was pressed.
    pub fullscreen: bool,
    /// Where F2's screenshots of this frame go.
    pub screenshots: Vec<PathBuf>,
}

/// Everything the commands act on.
pub struct Run<'a> {
    pub play: &'a mut Play,
    pub shown: &'a mut Shown,
    pub saves: &'a mut Saves,
    pub gpu: &'a mut Gpu,
    pub frames: &'a mut FrameRing,
}

impl Run<'_> {
    /// Carries out `commands` in order; what only the window can do is returned.
    pub fn carry_out(&mut self, commands: &[Command]) -> anyhow::Result<Asked> {
        let mut asked = Asked::default();
        for command in commands {
            match command {
                Command::Escape => asked.escape = true,
                Command::ToggleFullscreen => asked.fullscreen = true,
                Command::ToggleWireframe => {
                    if let Shown::World(world) = &mut *self.shown {
                        let on = !world.renderer.renderer().wireframe();
                        let on = world.renderer.renderer().set_wireframe(on);
                        self.play.say(format!(
                            "terrain wireframe {}",
                            if on { "on" } else { "off" }
                        ));
                    }
                }
                Command::SwitchMesher => {
                    if let Shown::World(world) = &mut *self.shown {
                        let mesher = world.renderer.mesher().other();
                        world.set_mesher(mesher);
                        self.play.say(format!("terrain: {}", mesher.label()));
                    }
                }
                Command::ToggleDetail => self.play.show_detail = !self.play.show_detail,
                Command::Screenshot => asked.screenshots.push(screenshot_path()),
                Command::Save => self.save_world(),
                Command::Load => self.load_world()?,
                _ => {}
            }
        }
        Ok(asked)
    }

    /// F5 or an autosave: the world saved, the HUD told how it went.
    pub fn save_world(&mut self) {
        let _ = self.save(true);
    }

    /// The save at the end of a run (a quit, a script's or a headless run's end, a signal):
    /// nothing said when it is written, for the run is over; why it failed otherwise.
    pub fn save_at_end(&mut self) -> Result<(), String> {
        self.save(false)
    }

    /// Saves the world ([`Saves::save`]); `say_written`: the HUD says so when it is written.
    /// A failure is said, kept on the HUD until a save succeeds ([`Play::warning`]) and
    /// written on stderr; a script's state lines report the save from now on.
    fn save(&mut self, say_written: bool) -> Result<(), String> {
        let Shown::World(renderer) = &*self.shown else {
            return Ok(());
        };
        let saved = self.saves.save(&renderer.world);
        let key = self.play.input.bindings.label(Action::Save);
        self.play.warning = self.saves.warning(&key);
        if let (Some(script), Some(state)) = (&mut self.play.script, self.saves.state()) {
            script.report_save(state);
        }
        match saved {
            Ok(said) if said == READ_ONLY => {
                tell(format_args!("warning: {said}"));
                self.play.say(said);
                Ok(())
            }
            Ok(said) => {
                if say_written {
                    self.play.say(said);
                }
                Ok(())
            }
            Err(reason) => {
                if let Some(warning) = &self.play.warning {
                    tell(format_args!("error: {warning}"));
                }
                self.play.say(format!("saving failed: {reason}"));
                Err(reason)
            }
        }
    }

    /// F9: the last save replaces the world; a save that cannot be loaded leaves the world as
    /// it was and the HUD says why.
    fn load_world(&mut self) -> anyhow::Result<()> {
        let Shown::World(renderer) = &mut *self.shown else {
            return Ok(());
        };
        let pool = renderer.world.pool().clone();
        let radius = renderer.world.chunks().radius();
        let world = match self.saves.load(pool, radius) {
            Ok(world) => world,
            Err(said) => {
                log::warn!("{said}");
                self.play.say(said);
                return Ok(());
            }
        };
        // The field of view is the renderer's: it stays as the player set it.
        renderer.world = world;
        // The old world's meshes go (once the frames in flight that read them are done); the
        // passes stay, and the new world's chunks stream in from the next frame.
        renderer
            .renew(self.gpu, self.frames)
            .context("drawing the loaded world")?;
        let path = self
            .saves
            .path
            .as_ref()
            .map(|path| path.display().to_string());
        self.play
            .say(format!("loaded {}", path.unwrap_or_default()));
        Ok(())
    }
}

/// Where F2 writes: `blockfall-screenshot-SECONDS-MILLIS.png` in the working folder.
fn screenshot_path() -> PathBuf {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    PathBuf::from(format!(
        "blockfall-screenshot-{}-{:03}.png",
        since.as_secs(),
        since.subsec_millis()
    ))
}
