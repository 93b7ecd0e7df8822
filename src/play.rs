//! The world's side of a frame, the same for the window and the headless run: whose input drives
//! the world (the player's, or a script's), the world's frame and the terrain's streaming, what
//! the HUD shows, and which requests (screenshot, wireframe, detail, fullscreen, Escape) go back
//! to whoever presents the frame.

use std::io::Write as _;
use std::path::PathBuf;

use crate::playing::Playing;
use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_game::input::{Action, Button, Command, Input};
use blockfall_game::settings::Settings;
use blockfall_game::terrain::streaming::LOADS_PER_FRAME;
use blockfall_game_render::hud::MenuClick;

use crate::menu::Menu;
use crate::options::RunOptions;
use crate::script::Script;

/// What a frame of play asks of the one who draws and presents it.
#[derive(Debug, Default)]
pub struct PlayFrame {
    /// Write a PNG of this frame to each path.
    pub screenshots: Vec<PathBuf>,
    /// Where the player's F2 screenshots of this frame go (the HUD says when each is written;
    /// a script's own screenshots are the script's business and say nothing, so that no
    /// message covers the next one).
    pub pressed_screenshots: Vec<PathBuf>,
    /// Requests the world leaves to the window: wireframe, screenshot (F2), detail, fullscreen,
    /// Escape.
    pub commands: Vec<Command>,
    /// The menu's Quit was chosen: the run ends (saving on its way out).
    pub quit: bool,
    /// The world's blows this frame (breaks, strikes, digs, steps), for its sound and dust.
    pub blows: Vec<blockfall_game::world::Blow>,
}

/// Input and script of a run.
pub struct Play {
    /// The player's input (the window's keys and mouse).
    pub input: Input,
    /// Commands pressed since the last frame.
    commands: Vec<Command>,
    pub script: Option<Script>,
    /// F3: the HUD shows the passes and their timings.
    pub show_detail: bool,
    /// A message for the HUD (a screenshot written, an error), with the frames it stays.
    pub message: Option<(String, u32)>,
    /// A line the HUD keeps until it is cleared: the world not saved
    /// ([`crate::saves::Saves::warning`]).
    pub warning: Option<String>,
    /// Everything said to the player so far, in order (for the run's report).
    pub said: Vec<String>,
    /// The player's settings file, if the run read one (the HUD says where it is); the
    /// Settings screen writes its changes there.
    pub settings_file: Option<PathBuf>,
    /// The player's settings as they are now (a script's: the defaults, unless `--settings`
    /// named a file); the Settings screen changes them.
    pub settings: Settings,
    /// The pause menu and its screens; while one is open the world does not step.
    pub menu: Menu,
    /// F1: the HUD hidden (the menu still shows).
    pub hud_hidden: bool,
    /// A click on the menu the HUD drew last frame, for this frame's menu.
    pub menu_click: Option<MenuClick>,
    /// The camera's shake from heavy blows near the player.
    pub shake: crate::shake::Shake,
    /// Where the blows are heard: the output device, a WAV file, or nowhere.
    pub sound: crate::sound::Sound,
}

impl Play {
    /// The play of a script (or none), with the run's settings: the player's file when
    /// `--settings` named one (its changes on the Settings screen written there), else the
    /// defaults; the menu stops the view radius at `most_view_radius` (the device's).
    pub fn with_settings(
        script: Option<Script>,
        options: &RunOptions,
        most_view_radius: u32,
    ) -> Self {
        let mut play = Self::new(script);
        play.settings = options.settings.clone();
        play.settings_file = options.settings_file.clone();
        if play.settings_file.is_none() {
            // A script or a headless render draws the default view, as `sim` sees it: steady,
            // unless a settings file asks for the shake.
            play.settings.camera_shake = false;
        }
        play.menu.most_view_radius = most_view_radius;
        play
    }

    pub fn new(script: Option<Script>) -> Self {
        Self {
            input: Input::default(),
            commands: Vec::new(),
            script,
            show_detail: false,
            message: None,
            warning: None,
            said: Vec::new(),
            settings_file: None,
            // The defaults, steady: only the player's window (`for_player`) or a run given a
            // settings file shakes the view.
            settings: Settings {
                camera_shake: false,
                ..Settings::default()
            },
            menu: Menu::default(),
            hud_hidden: false,
            menu_click: None,
            shake: crate::shake::Shake::default(),
            sound: crate::sound::Sound::silent(),
        }
    }

    /// Opens the pause menu: nothing stays held, the world stops stepping.
    pub fn open_menu(&mut self) {
        self.menu.open();
        self.input.release_all();
        if let Some(script) = &mut self.script {
            script.input().release_all();
        }
    }

    /// The player's play, no script: the input with the player's bindings and mouse
    /// (`options.bindings`, `options.look`), the settings file for the HUD, and what was wrong
    /// with it said on the HUD.
    pub fn for_player(options: &RunOptions) -> Self {
        let mut play = Self::new(None);
        play.input = Input::new(options.bindings, options.look);
        play.settings_file = options.settings_file.clone();
        play.settings = options.settings.clone();
        if let Some(problem) = &options.settings_problem {
            play.say(problem.clone());
        }
        play
    }

    /// A key or button of the window. While a script plays, the player's input is ignored
    /// (a script gives the same run every time) except for what the window itself handles.
    ///
    /// While the menu is open the keys are the menu's (a held arrow repeats); the world's
    /// Escape action opens it.
    pub fn button(&mut self, button: Button, down: bool, repeat: bool) {
        let scripted = self.script.is_some();
        if scripted {
            // The player's way out of a scripted window: Escape quits, F11 stays the window's.
            if down && !repeat && (button == Button::Escape || button == Button::F11) {
                self.commands.push(if button == Button::Escape {
                    Command::Escape
                } else {
                    Command::ToggleFullscreen
                });
            }
            return;
        }
        if self.menu.is_open() {
            let steps = matches!(
                button,
                Button::ArrowUp
                    | Button::ArrowDown
                    | Button::ArrowLeft
                    | Button::ArrowRight
                    | Button::Backspace
            );
            if down && (!repeat || steps) {
                self.menu.key(button, &self.settings);
            }
            return;
        }
        match self.input.button(button, down, repeat) {
            Some(Command::Escape) => self.open_menu(),
            Some(command) => self.commands.push(command),
            None => {}
        }
    }

    /// A script's presses this frame, for its menu: while the menu is open each goes to it;
    /// the Escape action opens it. Returns the script's commands without Escape (the menu
    /// took it).
    fn script_presses(&mut self, presses: &[Button], commands: Vec<Command>) -> Vec<Command> {
        for &button in presses {
            if self.menu.is_open() {
                self.menu.key(button, &self.settings);
            } else if self.script.as_mut().is_some_and(|script| {
                script.input().bindings.action(button) == Some(Action::Escape)
            }) {
                self.open_menu();
            }
        }
        commands
            .into_iter()
            .filter(|&command| command != Command::Escape)
            .collect()
    }

    /// The commands pressed since the last frame, for runs without a world (the test scene).
    pub fn take_commands(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.commands)
    }

    /// Whether a script plays and has played its last frame.
    pub fn script_finished(&self) -> bool {
        self.script.as_ref().is_some_and(Script::finished)
    }

    /// Shows `text` on the HUD for a few seconds (and in the log).
    pub fn say(&mut self, text: String) {
        log::info!("{text}");
        self.said.push(text.clone());
        self.message = Some((text, 300));
    }

    /// The world's frame before drawing: events of the script due now (their lines printed),
    /// the world's frame with the script's or the player's input, the terrain streamed, the
    /// blocks' and pieces' meshes brought up to date (call it before the frame is begun).
    /// `dt` is the real time since the last frame; a script uses its own frame time.
    pub fn advance(
        &mut self,
        gpu: &mut Gpu,
        world: &mut Playing,
        frames: &mut FrameRing,
        dt: f32,
    ) -> anyhow::Result<PlayFrame> {
        let mut play = PlayFrame::default();
        let mut commands = std::mem::take(&mut self.commands);
        if self.script.is_some() {
            // A script plays as if the mouse were captured: the tool's markers show.
            world.renderer.show_tool = true;
        }
        // Input: the script's events due now and its held keys, or the player's.
        let mut dt = dt;
        if let Some(script) = &mut self.script {
            let frame = script.begin_frame(&mut world.world)?;
            print_lines(&frame.lines);
            if frame.loaded {
                // A `load`: the old world's meshes go, the new world's chunks in view are
                // loaded at once, as at the start of a scripted run.
                world.renew(gpu, frames)?;
                world.load_all(frames)?;
                frames.wait_all()?;
            }
            play.screenshots = frame.screenshots;
            dt = frame.dt;
            let scripted = self.script_presses(&frame.presses, frame.commands);
            commands.extend(scripted);
            let t = script_time(&self.script);
            for choice in frame.menu {
                let result = self.menu.choose(&choice, &self.settings);
                print_lines(&[menu_line(t, &choice, result)]);
            }
        }
        if let Some(click) = self.menu_click.take() {
            self.menu.click(click, &self.settings);
        }
        let input = match &mut self.script {
            Some(script) => script.input(),
            None => &mut self.input,
        };
        // Play: the world's frame (none while the menu is open: the world is frozen); the
        // ground it changed meshed again at once.
        if self.menu.is_open() {
            // Movement of the mouse while the menu was open is not a turn.
            input.take_turn();
            input.take_wheel();
            play.commands = commands;
        } else {
            let report = world.frame(frames, dt, input, &commands)?;
            play.commands = report.commands;
            // The blows: the view shakes (the `camera_shake` setting), and they go on to be
            // heard and seen.
            play.blows = world.world.take_blows();
            let listener = world.world.eye();
            for blow in &play.blows {
                self.shake.hit(blow, listener);
            }
            // Dust and chips where they struck, moved on by the frame's time.
            world.renderer.particles().emit(&play.blows);
            world.renderer.particles_step = dt;
            let offset = self.shake.advance(dt);
            world.renderer.shake = if self.settings.camera_shake {
                offset
            } else {
                [0.0; 3]
            };
        }
        // The blows heard from the player's head (the mix goes on while the menu is open: the
        // sounds already started die away), `dt` of it written to a WAV file.
        let ear = world.world.eye().into();
        let right = crate::sound::right_of(world.world.yaw());
        let volumes = (self.settings.master_volume, self.settings.effects_volume);
        self.sound.frame(&play.blows, (ear, right), volumes, dt);
        if let Some(failure) = self.sound.failure().map(str::to_owned) {
            if !self.said.contains(&failure) {
                self.say(failure);
            }
        }
        // Blocks that left the world without falling as a piece are said, never lost unsaid.
        let lost: Vec<String> = world.world.lost().iter().map(lost_message).collect();
        for message in lost {
            self.say(message);
        }
        if let Some(refusal) = world.world.take_tool_refusal() {
            self.say(refusal);
        }
        // Stream, then sync: the chunks in and out, the blocks' and pieces' meshes up to date.
        world.stream(frames, LOADS_PER_FRAME)?;
        world.sync(gpu)?;
        if let Some((_, frames_left)) = &mut self.message {
            *frames_left = frames_left.saturating_sub(1);
            if *frames_left == 0 {
                self.message = None;
            }
        }
        Ok(play)
    }

    /// After the frame was drawn: the script's state line when one is due, `done` at its end.
    pub fn finish_frame(&mut self, world: &Playing) -> anyhow::Result<()> {
        if let Some(script) = &mut self.script {
            script.report_menu(self.menu.state());
            script.report_particles(world.renderer.particles_live());
            print_lines(&script.end_frame(&world.world)?);
        }
        Ok(())
    }
}

/// The script's clock at the frame begun, for its menu lines.
fn script_time(script: &Option<Script>) -> f64 {
    script.as_ref().map_or(0.0, |script| script.clock().0)
}

/// A script's `menu` event as its trace line says it: `{"t": …, "event": "menu", "choice":
/// "settings", "ok": true}`, with `error` when the menu could not do it.
fn menu_line(t: f64, choice: &str, result: Result<(), String>) -> String {
    let mut line = serde_json::json!({
        "t": (t * 1e6).round() / 1e6,
        "event": "menu",
        "choice": choice,
        "ok": result.is_ok(),
    });
    if let Err(error) = result {
        line["error"] = serde_json::Value::String(error);
    }
    line.to_string()
}

/// What the HUD says of blocks that left the world (`World::lost`).
fn lost_message(lost: &blockfall_game::pieces::Lost) -> String {
    let blocks = match lost.blocks {
        1 => "1 block".to_owned(),
        n => format!("{n} blocks"),
    };
    match lost.piece {
        Some(piece) => format!("piece {} ({blocks}) is gone: {}", piece.index(), lost.why),
        None => format!("{blocks} gone: {}", lost.why),
    }
}

/// Prints trace lines on stdout, flushed, so a reader sees each as it happens.
pub fn print_lines(lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in lines {
        // A closed stdout (the reader went away) must not stop the run.
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
}
