//! One frame, the same for the window, headless and scripted runs ([`FrameRun::frame`]): the
//! world plays its frame (a script's events, the player's input, physics, streaming) and the
//! frame's commands are carried out (`commands`: wireframe, screenshot, detail, save, load);
//! the frame's recording begins; the shown world (or test scene) and the HUD are recorded into
//! the frame's target; the frame is submitted; its CPU times are kept ([`FrameClock`]) and a
//! script writes its frame's lines.
//!
//! What differs between the runs is only how a frame gets its target and how it ends
//! ([`FrameEnd`]): the window acquires a swapchain image and presents it (or drops the frame
//! when the swapchain is out of date), headless draws into its offscreen image and reads it
//! back when a screenshot is due. The window's own keys (Escape, F11) come back in
//! [`Drawn::asked`] for the window to act on.
//!
//! ```text
//!   clock.start ─ play ─ commands ─ frames.begin ─ end.target ─ shown ─ HUD ─ end.submit ─ times
//!                                                  (acquire)                 (present /
//!                                                                             readback)
//! ```

use std::time::Instant;

use blockfall_engine::gpu::FrameRing;
use blockfall_game_render::target::RenderTarget;

use crate::commands::{Asked, Run};
use crate::gpu_failure::Fault;
use crate::overlay::{hud_text, CpuTimes, FrameClock, Overlay};
use crate::play::PlayFrame;
use crate::shown::Shown;

/// How a run's frames get their target and how they end.
pub trait FrameEnd {
    /// The target of the frame whose recording has just begun, or `None` when there is none
    /// this time (the window's swapchain was out of date): the frame is then abandoned.
    fn target(&mut self, frames: &mut FrameRing) -> anyhow::Result<Option<RenderTarget>>;

    /// egui's input for the HUD this frame.
    fn hud_input(&mut self, target: &RenderTarget) -> egui::RawInput;

    /// Ends the frame's recording and submits it: the target handed on (presented), and with
    /// `readback` its pixels copied out too, to be read once the frame has run. Returns the
    /// submission's timeline value ([`FrameRing::submit`]).
    fn submit(
        &mut self,
        frames: &mut FrameRing,
        target: &RenderTarget,
        readback: bool,
    ) -> anyhow::Result<u64>;
}

/// What a frame played, and what it asked of the run.
#[derive(Debug, Default)]
pub struct Drawn {
    /// The frame's screenshots (the script's and the player's), and its commands.
    pub play: PlayFrame,
    /// What only a window can do (Escape, F11).
    pub asked: Asked,
    /// Whether the frame was drawn and submitted (false: its target was not there).
    pub drawn: bool,
    /// Whether its pixels were read back (a screenshot was due, or the run asked).
    pub readback: bool,
    /// Its submission's timeline value (0 when it was not drawn).
    pub submission: u64,
}

/// Everything a frame plays and draws, borrowed from the run for one frame: what its commands
/// act on, and the HUD, the clock and the fault hook.
pub struct FrameRun<'a> {
    pub run: Run<'a>,
    pub overlay: Option<&'a mut Overlay>,
    pub clock: &'a mut FrameClock,
    /// The last frame's CPU times (the HUD shows them), replaced by this frame's.
    pub times: &'a mut CpuTimes,
    /// The test hook's fault ([`crate::gpu_failure`]), and the frames submitted so far.
    pub fault: Option<Fault>,
    pub submitted: &'a mut u64,
}

impl FrameRun<'_> {
    /// Plays and draws one frame at `time` seconds (the test scene's clock), `dt` seconds after
    /// the last (a script keeps its own fixed step), its end as `end` has it; `readback` reads
    /// its pixels back even when no screenshot is due.
    pub fn frame(
        &mut self,
        end: &mut dyn FrameEnd,
        time: f32,
        dt: f32,
        readback: bool,
    ) -> anyhow::Result<Drawn> {
        let started = self.clock.start();
        let run = &mut self.run;
        let mut play = PlayFrame::default();
        // Input, play, stream, sync (`Play::advance`, `crate::playing`), then the frame's
        // commands; then record and submit.
        let commands = match &mut *run.shown {
            Shown::World(world) => {
                play = run.play.advance(run.gpu, world, run.frames, dt)?;
                std::mem::take(&mut play.commands)
            }
            // The test scene has no world to play: only the keys.
            Shown::Test(_) => run.play.take_commands(),
        };
        // The clock a save keeps: the script's, or the time played. An autosave is due every
        // five minutes of it (`--world`).
        let autosave = match &run.play.script {
            Some(script) => run.saves.played_to(script.reached()),
            // Time in the menu is not play: the world does not step.
            None if run.play.menu.is_open() => run.saves.played(0.0),
            None => run.saves.played(dt),
        };
        if autosave {
            run.save_world();
        }
        let mut asked = run.carry_out(&commands)?;
        run.carry_out_menu(&mut asked)?;
        play.commands = commands;
        play.pressed_screenshots = asked.screenshots.clone();
        play.quit = asked.quit;
        let played = Instant::now();
        let readback =
            readback || !play.screenshots.is_empty() || !play.pressed_screenshots.is_empty();

        self.run.frames.begin()?;
        // Recording starts once the frame's slot is free (`begin` waits for its last use).
        let begun = Instant::now();
        let Some(target) = end.target(self.run.frames)? else {
            self.run.frames.abandon()?;
            return Ok(Drawn {
                play,
                asked,
                drawn: false,
                readback: false,
                submission: 0,
            });
        };
        // Record: the world's passes (or the test scene's), then the HUD over them.
        self.run.shown.record(self.run.frames, target, time)?;
        if let Some(overlay) = self.overlay.as_deref_mut() {
            let mut hud = hud_text(self.run.play, self.run.shown, self.run.frames, *self.times);
            let input = end.hud_input(&target);
            let native = input.viewport().native_pixels_per_point.unwrap_or(1.0);
            hud.scale = blockfall_game_render::hud::hud_scale(
                target.width,
                target.height,
                native,
                self.run.play.settings.hud_scale,
            );
            self.run.play.menu_click = overlay.record(self.run.frames, target, input, hud)?;
        }
        let recorded = Instant::now();
        if let Err(error) = Fault::check(self.fault, *self.submitted) {
            self.run.frames.abandon()?;
            return Err(error.into());
        }
        *self.submitted += 1;
        // Submit: presented, or read back.
        let submission = end.submit(self.run.frames, &target, readback)?;
        *self.times = self.clock.times(started, played, (begun, recorded));
        if let Shown::World(world) = &*self.run.shown {
            self.run.play.finish_frame(world)?;
        }
        Ok(Drawn {
            play,
            asked,
            drawn: true,
            readback,
            submission,
        })
    }
}
