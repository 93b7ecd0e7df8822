//! What a frame's commands do, the same in the window and headless: the terrain's wireframe
//! (L) and mesher (M), the HUD's detail (F3), a screenshot (F2), saving (F5) and loading (F9). A scripted run
//! that presses these keys does the same in both; each run keeps only what belongs to how it
//! shows the frame: the window lets the mouse go when the menu opens, quits on the menu's Quit and goes fullscreen on F11,
//! which a headless run has nothing to do with.

use std::path::PathBuf;

use anyhow::Context as _;
use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_game::input::{Action, Command};

use crate::menu::MenuRequest;
use crate::play::Play;
use crate::saves::{Saves, READ_ONLY};
use crate::shown::Shown;
use crate::signals::tell;

/// What the commands left to the run that shows the frame.
#[derive(Debug, Default)]
pub struct Asked {
    /// Escape was pressed where it quits (the player's Escape in a scripted window).
    pub escape: bool,
    /// F11 was pressed.
    pub fullscreen: bool,
    /// Where F2's screenshots of this frame go.
    pub screenshots: Vec<PathBuf>,
    /// The menu's Quit: leave (the run saves on its way out).
    pub quit: bool,
    /// The menu closed: the window captures the mouse again.
    pub resume: bool,
    /// The settings' vsync and fullscreen changed to these.
    pub vsync: Option<bool>,
    pub fullscreen_to: Option<bool>,
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
                Command::ToggleHud => self.play.hud_hidden = !self.play.hud_hidden,
                Command::Screenshot => asked.screenshots.push(screenshot_path()),
                Command::Save => self.save_world(),
                Command::Load => self.load_world()?,
                _ => {}
            }
        }
        Ok(asked)
    }

    /// Carries out what the menu asked, in order; what only the window can do goes in `asked`.
    pub fn carry_out_menu(&mut self, asked: &mut Asked) -> anyhow::Result<()> {
        for request in self.play.menu.take_requests() {
            match request {
                MenuRequest::Resume => asked.resume = true,
                MenuRequest::Save => self.save_world(),
                MenuRequest::Load => self.load_world()?,
                MenuRequest::Quit => asked.quit = true,
                MenuRequest::Settings(settings) => self.apply_settings(*settings, asked)?,
                MenuRequest::ListWorlds => {
                    let listed = crate::worlds::folder()
                        .map(|folder| crate::worlds::list(&folder))
                        .unwrap_or_default();
                    self.play.menu.current_world = self.saves.path.clone();
                    self.play.menu.set_worlds(listed);
                }
                MenuRequest::OpenWorld(path) => self.open_world(&path, None)?,
                MenuRequest::NewWorld(seed) => match crate::worlds::folder() {
                    Some(folder) => {
                        let path = crate::worlds::new_world_path(&folder);
                        self.open_world(&path, Some(seed))?;
                    }
                    None => self
                        .play
                        .say("no data folder to keep worlds in: give --world PATH".into()),
                },
                MenuRequest::DeleteWorld(path) => match crate::worlds::delete(&path) {
                    Ok(()) => self.play.say(format!("deleted {}", path.display())),
                    Err(error) => self
                        .play
                        .say(format!("{} was not deleted: {error}", path.display())),
                },
            }
        }
        Ok(())
    }

    /// The settings changed on the Settings screen: applied at once (the view, the mouse, the
    /// keys, the renderer; the window's vsync and fullscreen through `asked`) and written to
    /// the settings file, when the run has one.
    fn apply_settings(
        &mut self,
        settings: blockfall_game::settings::Settings,
        asked: &mut Asked,
    ) -> anyhow::Result<()> {
        let old = std::mem::replace(&mut self.play.settings, settings.clone());
        self.play.input.bindings = settings.bindings;
        self.play.input.look = settings.look();
        if let Shown::World(world) = &mut *self.shown {
            world.renderer.fov_degrees = settings.fov_degrees;
            world
                .renderer
                .particles()
                .set_budget(settings.particles)
                .context("the particles' budget")?;
            world.renderer.shadows = settings.shadows;
            if settings.mesher != old.mesher {
                world.set_mesher(settings.mesher);
            }
            if settings.view_radius != old.view_radius {
                world.world.set_view_radius(settings.view_radius);
                world
                    .renew(self.gpu, self.frames)
                    .context("drawing the world at its new view radius")?;
            }
        }
        if settings.vsync != old.vsync {
            asked.vsync = Some(settings.vsync);
        }
        if settings.fullscreen != old.fullscreen {
            asked.fullscreen_to = Some(settings.fullscreen);
        }
        if let Some(path) = &self.play.settings_file {
            if let Err(error) = settings.write(path) {
                self.play.say(format!(
                    "settings not written to {}: {error}",
                    path.display()
                ));
            }
        }
        Ok(())
    }

    /// Saves this world, then opens the one at `path` (made from `seed` when given, or when
    /// nothing is there): its lock taken, its saves made there from now on. A world that
    /// cannot be opened leaves this one as it was, and the HUD says why.
    fn open_world(&mut self, path: &std::path::Path, seed: Option<u32>) -> anyhow::Result<()> {
        let (pool, radius) = match &*self.shown {
            Shown::World(playing) => (
                playing.world.pool().clone(),
                playing.world.chunks().radius(),
            ),
            Shown::Test(_) => return Ok(()),
        };
        let opened = match seed {
            Some(seed) => blockfall_game::world::World::generated(seed, radius, pool)
                .map(|world| (world, 0.0))
                .map_err(|error| error.to_string()),
            None => {
                crate::saves::load_world(path, pool, radius).map_err(|error| format!("{error:#}"))
            }
        };
        let (world, clock) = match opened {
            Ok(opened) => opened,
            Err(error) => {
                self.play.say(format!("not opened: {error}"));
                return Ok(());
            }
        };
        // This world first: nothing is lost by going to another.
        if self.saves.path.is_some() && !self.saves.read_only {
            if let Err(reason) = self.save(false) {
                self.play.say(format!(
                    "not opened: this world could not be saved first: {reason}"
                ));
                return Ok(());
            }
        }
        if let Err(error) = self.saves.switch_to(path, clock) {
            self.play.say(format!("not opened: {error}"));
            return Ok(());
        }
        if let Shown::World(playing) = &mut *self.shown {
            playing.world = world;
            playing
                .renew(self.gpu, self.frames)
                .context("drawing the opened world")?;
        }
        if seed.is_some() {
            self.save_world();
        }
        self.play.say(format!("playing {}", path.display()));
        Ok(())
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
