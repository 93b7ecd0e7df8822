//! Scripted runs (`blockfall --script SCRIPT.json`, in the window or `--headless`): a `sim`
//! scene whose events may also be input (keys, buttons, the mouse, the wheel, the view) and
//! requests (a screenshot, a state line), played at the scene's fixed frame time until its
//! `duration`. The game's own test and demo driver: the same script gives the same trace and
//! the same pictures on the same device.
//!
//! Per frame: the events due are applied (their result lines printed as `sim` prints them), the
//! world's frame runs with the script's input, the frame is drawn (and captured when a
//! screenshot asked for it), then a state line is printed when one is due. After the last frame
//! the events at the very end are applied and one more frame is drawn without time passing, so
//! a screenshot at `duration` shows the end.

use std::path::{Path, PathBuf};

use blockfall_game::input::Command;
use blockfall_game::save::WorldSave;
use blockfall_game::scene::{self, Outcome, Runner, SaveState, SceneError, SceneFile, Start};
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;

use crate::refusal::{Refusal, WorldFile};

/// Why a script cannot run: exit status 2, before any frame.
#[derive(Debug, thiserror::Error)]
#[error("the script {path}: {error}")]
pub struct ScriptError {
    pub path: PathBuf,
    pub error: SceneError,
}

/// Reads and checks a script file (at most `scene::LARGEST_SCENE_BYTES` of it).
pub fn load(path: &Path) -> Result<SceneFile, ScriptError> {
    scene::read(path).map_err(|error| ScriptError {
        path: path.to_owned(),
        error,
    })
}

/// The script `scene` (read from `script`) set to play on the world of `--world PATH`
/// (`world`): from the save there, when there is one, with its times counted from the save's
/// clock (an event at `t` = 1 comes one second after it, and the trace's times are the
/// world's); the game's own start, as without a world, when nothing is there yet. A scene that
/// says which world it plays itself (`terrain`, `world_file`) is refused, as is a save that
/// cannot be read.
pub fn on_world(scene: &SceneFile, script: &Path, world: &Path) -> Result<SceneFile, Refusal> {
    let clash = match (&scene.terrain, &scene.world_file) {
        (Some(_), _) => Some("terrain"),
        (None, Some(_)) => Some("world_file"),
        (None, None) => None,
    };
    if let Some(key) = clash {
        return Err(Refusal::new(format!(
            "--world {} and the script {}'s `{key}` both say which world to play: leave out \
             one of them",
            world.display(),
            script.display()
        )));
    }
    if crate::refusal::world_file(world)? == WorldFile::Missing {
        return Ok(scene.clone());
    }
    let save = WorldSave::read(world)
        .map_err(|error| Refusal::new(format!("--world {}: {error}", world.display())))?;
    let mut on = scene.clone();
    on.world_file = Some(world.to_path_buf());
    on.duration += save.clock;
    for event in &mut on.events {
        event.t += save.clock;
    }
    Ok(on)
}

/// What a frame of the script asks for.
#[derive(Debug, Default)]
pub struct ScriptFrame {
    /// Seconds the world advances this frame (0 for the closing frame).
    pub dt: f32,
    /// Trace lines to print before the frame is drawn.
    pub lines: Vec<String>,
    /// PNGs of this frame to write.
    pub screenshots: Vec<PathBuf>,
    /// Commands of this frame's presses.
    pub commands: Vec<Command>,
    /// A `load` event replaced the world: what drew the old one must draw the new one.
    pub loaded: bool,
    /// The buttons this frame's events pressed, in order (the menu takes them while open).
    pub presses: Vec<blockfall_game::input::Button>,
    /// This frame's `menu` events' choices, in order.
    pub menu: Vec<String>,
}

/// A script being played.
pub struct Script {
    runner: Runner,
    /// The next frame to play; `frame_count() + 1` frames in all (the closing one).
    frame: u64,
    /// The clock the world reaches with the frame begun last (where it starts, before any).
    reached: f64,
}

impl Script {
    /// The script of `scene`, its clock starting at `start` (see `scene::world_of`).
    pub fn new(scene: SceneFile, start: &Start) -> Self {
        Self {
            runner: Runner::new(scene, start),
            frame: 0,
            reached: start.clock,
        }
    }

    /// The world the script starts with (see `scene::world_of`), its physics on `pool`, and
    /// where its clock starts.
    pub fn world(
        scene: &SceneFile,
        pool: WorkerPool,
        radius: u32,
    ) -> Result<(World, Start), SceneError> {
        scene::world_of(scene, pool, radius)
    }

    /// The input the script gives (as if the mouse were captured from the start).
    pub fn input(&mut self) -> &mut blockfall_game::input::Input {
        &mut self.runner.input
    }

    /// The script's clock at the next frame, and its duration, in seconds.
    pub fn clock(&self) -> (f64, f64) {
        (
            self.runner.time_of(self.frame),
            self.runner.time_of(self.runner.frame_count()),
        )
    }

    /// The script's clock once the frame begun last has played: where a save made now puts
    /// the world.
    pub fn reached(&self) -> f64 {
        self.reached
    }

    /// The world's save as the state lines report it from now on (`"save"`).
    pub fn report_save(&mut self, save: SaveState) {
        self.runner.report_save(save);
    }

    /// The menu's screen shown, as the `state` lines report it from now on (`"menu"`).
    pub fn report_menu(&mut self, menu: Option<&'static str>) {
        self.runner.report_menu(menu);
    }

    /// The particles alive, as the `state` lines report them from now on (`"particles"`).
    pub fn report_particles(&mut self, particles: u32) {
        self.runner.report_particles(particles);
    }

    /// What stderr says when `signal` stopped the script between frames: where its clock got
    /// to (`SIGTERM: the script stopped at t = 2.4 s of 30 s`).
    pub fn stopped(&self, signal: &str) -> String {
        let (t, duration) = self.clock();
        let rounded = |seconds: f64| (seconds * 1e6).round() / 1e6;
        format!(
            "{signal}: the script stopped at t = {} s of {} s",
            rounded(t),
            rounded(duration)
        )
    }

    /// Whether every frame has been played.
    pub fn finished(&self) -> bool {
        self.frame > self.runner.frame_count()
    }

    /// The trace's first line (the state at the start); refused when the trace the script
    /// would write is beyond its limits (`scene::Limits`).
    pub fn first_line(&mut self, world: &World) -> Result<String, SceneError> {
        self.runner.first_line(world)
    }

    /// Applies the events due before the next frame.
    pub fn begin_frame(&mut self, world: &mut World) -> Result<ScriptFrame, SceneError> {
        let closing = self.frame >= self.runner.frame_count();
        let mut frame = ScriptFrame {
            dt: if closing {
                0.0
            } else {
                self.runner.frame_dt() as f32
            },
            ..ScriptFrame::default()
        };
        let t = self.runner.time_of(self.frame);
        self.reached = if closing {
            t
        } else {
            self.runner.time_of(self.frame + 1)
        };
        for outcome in self.runner.events(world, self.frame)? {
            match outcome {
                Outcome::Line(line) => frame.lines.push(line),
                Outcome::Loaded(line) => {
                    frame.lines.push(line);
                    frame.loaded = true;
                }
                Outcome::Screenshot(path) => {
                    frame.lines.push(
                        serde_json::json!({
                            "t": (t * 1e6).round() / 1e6,
                            "event": "screenshot",
                            "path": path,
                        })
                        .to_string(),
                    );
                    frame.screenshots.push(PathBuf::from(path));
                }
                Outcome::Menu(choice) => frame.menu.push(choice),
                Outcome::Nothing => {}
            }
        }
        frame.commands = self.runner.take_commands();
        frame.presses = self.runner.take_presses();
        Ok(frame)
    }

    /// After the frame was drawn: the state line when one is due, and `done` after the closing
    /// frame.
    pub fn end_frame(&mut self, world: &World) -> Result<Vec<String>, SceneError> {
        let mut lines = Vec::new();
        if self.frame < self.runner.frame_count() {
            lines.extend(self.runner.after_frame(world, self.frame)?);
        } else {
            lines.push(self.runner.done_line()?);
        }
        self.frame += 1;
        Ok(lines)
    }
}
