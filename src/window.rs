//! The windowed run: winit's event loop, the swapchain, frames in flight; the world (or the
//! test scene) drawn into it, with the keys and mouse of [`crate::input`] (or a script's input,
//! at the script's fixed frame time). F2 writes a screenshot of the window, F11 toggles
//! fullscreen, Escape opens the pause menu (the world stops; the mouse is let go to click its
//! rows) and closes it again; quitting is the menu's Quit.
//!
//! Every way out — Escape, closing the window, the frames or the script done, SIGTERM, SIGINT
//! or SIGHUP ([`crate::signals`], seen between frames) — leaves through [`App::leave`], which
//! saves the world first (`--world`, or after a save that failed). A player whose save at the
//! quit fails is told and stays; quitting again leaves without it (exit status 1).
//!
//! Survives resize (the swapchain is recreated on the next frame), minimise (nothing is drawn
//! while the window has no pixels) and out-of-date swapchains (the frame is dropped and the
//! swapchain recreated).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use blockfall_engine::gpu::{
    image, vk, Acquired, FrameRing, Gpu, GpuDesc, ImageAccess, ImageReadback, SemaphoreWait,
    Swapchain, WindowSurface,
};
use blockfall_game::input::Action;
use blockfall_game_render::target::RenderTarget;
use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalSize};
use winit::event::{DeviceEvent, DeviceId, KeyEvent, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::PhysicalKey;
use winit::raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::window::{CursorGrabMode, Fullscreen, Window, WindowId};

use crate::capture::FrameCapture;
use crate::commands::{Asked, Run};
use crate::frame::{FrameEnd, FrameRun};
use crate::gpu_failure::{self, Fault};
use crate::input::{key_button, mouse_button};
use crate::options::{RunOptions, RunReport};
use crate::overlay::{CpuTimes, FrameClock, Overlay};
use crate::play::{print_lines, Play};
use crate::saves::Saves;
use crate::screenshot::write_png;
use crate::script::Script;
use crate::shown::Shown;
use crate::signals;

/// A window frame's end: a swapchain image acquired when its recording begins, handed to the
/// presentation engine (or first copied out, for a screenshot) when it ends.
struct Presenting<'a> {
    swapchain: &'a Swapchain,
    device: &'a Arc<blockfall_engine::gpu::Device>,
    window: &'a Window,
    egui_state: Option<&'a mut egui_winit::State>,
    capture: &'a mut FrameCapture,
    /// The image acquired for this frame, and whether the swapchain said it is suboptimal.
    acquired: Option<(u32, bool)>,
    /// The frame's pixels being copied out, to be read once it has run.
    readback: Option<ImageReadback>,
    /// The swapchain is to be made again before the next frame.
    needs_recreate: bool,
}

impl FrameEnd for Presenting<'_> {
    fn target(&mut self, frames: &mut FrameRing) -> anyhow::Result<Option<RenderTarget>> {
        let (index, suboptimal) = match self.swapchain.acquire(frames.acquire_semaphore())? {
            Acquired::Image { index, suboptimal } => (index, suboptimal),
            Acquired::OutOfDate => {
                self.needs_recreate = true;
                return Ok(None);
            }
        };
        self.acquired = Some((index, suboptimal));
        // Only a frame that will be presented opens a capture, so start and end always pair.
        self.capture.frame_starts(frames.frame_number());
        let extent = self.swapchain.extent;
        Ok(Some(RenderTarget {
            image: self.swapchain.images[index as usize],
            view: self.swapchain.views[index as usize],
            width: extent.width,
            height: extent.height,
        }))
    }

    fn hud_input(&mut self, _target: &RenderTarget) -> egui::RawInput {
        match self.egui_state.as_deref_mut() {
            Some(state) => state.take_egui_input(self.window),
            None => egui::RawInput::default(),
        }
    }

    fn submit(
        &mut self,
        frames: &mut FrameRing,
        target: &RenderTarget,
        readback: bool,
    ) -> anyhow::Result<u64> {
        let (index, suboptimal) = self
            .acquired
            .ok_or_else(|| anyhow::anyhow!("a window frame submitted without a swapchain image"))?;
        let format = self.swapchain.format;
        if readback {
            let copy = ImageReadback::new(self.device, target.width, target.height, format)?;
            let from = frames.graph().last_use(target.image).ok_or_else(|| {
                anyhow::anyhow!("a screenshot of a window frame that drew nothing")
            })?;
            frames.begin_pass("screenshot");
            copy.record(
                self.device,
                frames.command_buffer(),
                target.image,
                from,
                ImageAccess::Present,
            );
            frames.end_pass();
            frames.graph().import(target.image, ImageAccess::Present);
            self.readback = Some(copy);
        } else {
            frames.hand_on(
                target.image,
                image::full_range(format, 1, 1),
                ImageAccess::Present,
            )?;
        }
        let waits = [SemaphoreWait {
            semaphore: frames.acquire_semaphore(),
            stages: vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
        }];
        let signals = [self.swapchain.render_finished(index)];
        let submission = frames.submit(&waits, &signals)?;
        let stale = self.swapchain.present(index)?;
        self.capture.frame_ends();
        if stale || suboptimal {
            self.needs_recreate = true;
        }
        Ok(submission)
    }
}

/// Why no window could be opened.
#[derive(Debug, thiserror::Error)]
#[error("no display to open a window on ({0})")]
pub struct NoDisplay(pub String);

/// The message of a winit error without the place in winit's source it names (`os error at
/// /home/…/.cargo/registry/…/winit-0.30.13/src/…/mod.rs:763: neither WAYLAND_DISPLAY nor …`):
/// a player is told what is missing, not a path inside the build's dependencies.
fn without_source_location(message: &str) -> &str {
    message
        .strip_prefix("os error at ")
        .and_then(|rest| {
            let after_file = &rest[rest.find(".rs:")? + ".rs:".len()..];
            after_file
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .strip_prefix(": ")
        })
        .unwrap_or(message)
}

/// Opens the window and runs until it is closed (or `options.frames` frames were presented).
/// Returns [`NoDisplay`] (inside the error) when there is no display to open a window on.
pub fn run_windowed(options: &RunOptions) -> anyhow::Result<RunReport> {
    let mut builder = EventLoop::builder();
    #[cfg(all(unix, not(target_os = "macos"), not(target_os = "android")))]
    {
        // Tests run the window off the main thread; X11 and Wayland both allow it.
        use winit::platform::x11::EventLoopBuilderExtX11;
        builder.with_any_thread(true);
    }
    let event_loop = builder.build().map_err(|error| {
        anyhow::Error::new(NoDisplay(
            without_source_location(&error.to_string()).to_owned(),
        ))
    })?;
    let mut app = App {
        options: options.clone(),
        state: None,
        error: None,
        report: RunReport::default(),
        left: false,
    };
    event_loop
        .run_app(&mut app)
        .context("the window's event loop failed")?;
    if let Some(error) = app.error {
        return Err(error);
    }
    Ok(app.report)
}

struct App {
    options: RunOptions,
    state: Option<WindowState>,
    error: Option<anyhow::Error>,
    report: RunReport,
    /// The run left through [`App::leave`]: its end (the save) is done.
    left: bool,
}

/// Why a window run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leaving {
    /// The player quit: Escape, or the window closed. Asked once when the save fails.
    Player,
    /// The frames asked for, or the script, are done.
    End,
    /// A signal (`SIGTERM`).
    Signal(&'static str),
}

/// How often a window with nothing to draw (minimised) looks for a signal.
const SIGNAL_CHECK: Duration = Duration::from_millis(200);

/// Field order is drop order: GPU objects go before the window they present to.
struct WindowState {
    shown: Shown,
    play: Play,
    /// F5, F9, `--world` and its autosaves.
    saves: Saves,
    /// The HUD and egui's view of the window (its size and scale).
    overlay: Option<(Overlay, egui_winit::State)>,
    times: CpuTimes,
    frames: FrameRing,
    swapchain: Option<Swapchain>,
    surface: Arc<WindowSurface>,
    gpu: Gpu,
    capture: FrameCapture,
    colour_format: vk::Format,
    /// Presenting in step with the display (the settings' vsync, changed in the menu).
    vsync: bool,
    needs_recreate: bool,
    resize_requested: bool,
    started: Instant,
    /// Frame and CPU times, as headless runs keep them.
    clock: FrameClock,
    /// When the title was last updated, and the frame number then.
    title_updated: (Instant, u64),
    /// The test hook's fault ([`crate::gpu_failure`]), and the frames drawn so far.
    fault: Option<Fault>,
    drawn: u64,
    /// The GPU failed: the world went to its recovery file, not to the usual save.
    failed: bool,
    window: Arc<Window>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match self.open(event_loop) {
            Ok(state) => {
                state.window.request_redraw();
                self.state = Some(state);
            }
            Err(error) => {
                self.error = Some(error);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(state) = self.state.as_mut() else {
            return;
        };
        if let Some((_, egui_state)) = &mut state.overlay {
            // egui learns of size and scale changes; the HUD takes no input of its own.
            let _ = egui_state.on_window_event(&state.window, &event);
        }
        if self.left {
            return;
        }
        match event {
            WindowEvent::CloseRequested => self.leave(event_loop, Leaving::Player),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        physical_key: PhysicalKey::Code(code),
                        state: pressed,
                        repeat,
                        ..
                    },
                ..
            } => {
                if let Some(button) = key_button(code) {
                    state.play.button(button, pressed.is_pressed(), repeat);
                }
            }
            WindowEvent::MouseInput {
                state: pressed,
                button,
                ..
            } => {
                let Some(button) = mouse_button(button) else {
                    return;
                };
                let down = pressed.is_pressed();
                if state.play.menu.is_open() {
                    // The menu takes the mouse through egui (its rows are clicked).
                    return;
                }
                if state.play.script.is_none() && state.play.input.wants_capture(button, down) {
                    state.set_captured(true);
                } else {
                    state.play.button(button, down, false);
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                state.play.input.wheel_turned(match delta {
                    MouseScrollDelta::LineDelta(_, lines) => lines,
                    MouseScrollDelta::PixelDelta(pixels) => (pixels.y / 40.0) as f32,
                });
            }
            WindowEvent::Focused(false) if state.play.script.is_none() => state.set_captured(false),
            WindowEvent::Resized(_) => {
                state.needs_recreate = true;
                state.window.request_redraw();
            }
            WindowEvent::RedrawRequested => {
                let result = state.draw(&self.options, &mut self.report);
                match result {
                    Ok(quit) => {
                        let done = self
                            .options
                            .frames
                            .is_some_and(|frames| self.report.frames >= frames);
                        if quit {
                            self.leave(event_loop, Leaving::Player);
                        } else if done || state.play.script_finished() {
                            self.leave(event_loop, Leaving::End);
                        }
                    }
                    Err(error) => {
                        let error = state.recover(error);
                        self.error = Some(error);
                        event_loop.exit();
                    }
                }
            }
            _ => {}
        }
    }

    fn device_event(&mut self, _event_loop: &ActiveEventLoop, _id: DeviceId, event: DeviceEvent) {
        if let (Some(state), DeviceEvent::MouseMotion { delta: (dx, dy) }) =
            (self.state.as_mut(), event)
        {
            state.play.input.mouse_moved(dx, dy);
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.left {
            return;
        }
        if let Some(signal) = signals::stop_asked() {
            self.leave(event_loop, Leaving::Signal(signal));
            return;
        }
        if let Some(state) = &self.state {
            // Continuous rendering while there is something to draw into; a minimised window
            // still wakes now and then to see a signal.
            let size = state.window.inner_size();
            if size.width > 0 && size.height > 0 {
                event_loop.set_control_flow(ControlFlow::Wait);
                state.window.request_redraw();
            } else {
                event_loop.set_control_flow(ControlFlow::WaitUntil(Instant::now() + SIGNAL_CHECK));
            }
        }
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if !self.left {
            // The window went without being asked to (its display closed): saved all the same.
            if let Some(Err(reason)) = self.state.as_mut().map(WindowState::save_at_end) {
                self.report.unsaved = Some(reason);
            }
        }
        if let Some(mut state) = self.state.take() {
            if let Err(error) = state.play.sound.finish() {
                signals::tell(format_args!("error: the sound's WAV file: {error}"));
            }
            if let Err(error) = state.frames.wait_all() {
                log::error!("waiting for the last frames: {error}");
            }
            self.report.validation_errors = state.gpu.validation_errors();
            self.report.last_validation_error = state.gpu.instance.canary().last_error();
            self.report.pass_timings = state
                .frames
                .last_timings()
                .iter()
                .map(|t| (t.name.clone(), t.milliseconds))
                .collect();
            state.clock.end();
            self.report.mean_cpu_ms = state.clock.mean_cpu_ms();
            self.report.first_cpu_ms = state.clock.first_cpu_ms();
            self.report.mean_frame_ms = state.clock.mean_frame_ms();
            self.report.captured = state.capture.captured();
            self.report.messages = state.play.said.clone();
        }
    }
}

impl App {
    /// Ends the run, `why` as given, through its end: the world saved first
    /// ([`WindowState::save_at_end`]). A player whose save fails is told on the HUD and stays
    /// (once: quitting again leaves); otherwise a failed save is kept for the exit status.
    fn leave(&mut self, event_loop: &ActiveEventLoop, why: Leaving) {
        if let Leaving::Signal(signal) = why {
            self.report.stopped_by = Some(signal);
            if let Some(script) = self
                .state
                .as_ref()
                .and_then(|state| state.play.script.as_ref())
            {
                signals::tell(script.stopped(signal));
            }
        }
        if let Some(state) = self.state.as_mut() {
            // Asked already: the player's second quit leaves without trying again.
            let saved = match state.saves.left_unsaved() {
                Some(reason) if why == Leaving::Player => Err(reason.to_owned()),
                _ => state.save_at_end(),
            };
            if let Err(reason) = saved {
                if why == Leaving::Player && state.saves.ask_before_leaving() {
                    state.ask_to_quit_again();
                    return;
                }
                self.report.unsaved = Some(reason);
            }
        }
        self.left = true;
        event_loop.exit();
    }

    fn open(&mut self, event_loop: &ActiveEventLoop) -> anyhow::Result<WindowState> {
        self.lock_chosen_world();
        let attributes = Window::default_attributes()
            .with_title("blockfall")
            .with_inner_size(LogicalSize::new(self.options.width, self.options.height))
            .with_fullscreen(
                self.options
                    .fullscreen
                    .then_some(Fullscreen::Borderless(None)),
            );
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .context("creating the window")?,
        );
        let display = window
            .display_handle()
            .context("the window has no display handle")?
            .as_raw();
        let handle = window
            .window_handle()
            .context("the window has no window handle")?
            .as_raw();
        let (mut gpu, surface) = Gpu::windowed(
            &GpuDesc {
                app_name: "blockfall".into(),
                validation: self.options.validation,
                preferred_device: self.options.gpu,
                vulkan_1_2_path: false,
            },
            display,
            handle,
        )?;
        let size = window.inner_size();
        let swapchain = Swapchain::new(
            &gpu.device,
            &surface,
            (size.width, size.height),
            self.options.vsync,
            None,
        )?;
        let format = swapchain
            .as_ref()
            .map_or(vk::Format::B8G8R8A8_SRGB, |s| s.format);
        if let Some(swapchain) = &swapchain {
            self.report
                .swapchain_extents
                .push((swapchain.extent.width, swapchain.extent.height));
            self.report.frames_per_swapchain.push(0);
        }
        let (mut shown, start) = Shown::new(&mut gpu, &self.options, format)?;
        let mut frames = FrameRing::new(&gpu.device)?;
        let most_radius = crate::shown::most_view_radius(&gpu);
        let mut play = Play::for_player(&self.options);
        play.menu.most_view_radius = most_radius;
        let (sound, silent) = crate::sound::for_run(&self.options, true)?;
        let saves = Saves::for_run(&self.options, start.clock);
        if let Some(scene) = &self.options.script {
            // A scripted run starts with every chunk in view loaded, as the headless one does.
            if let Shown::World(world) = &mut shown {
                world.load_all(&mut frames)?;
                frames.wait_all()?;
                let mut script = Script::new(scene.clone(), &start);
                if let Some(state) = saves.state() {
                    script.report_save(state);
                }
                print_lines(&[script.first_line(&world.world)?]);
                play = Play::with_settings(Some(script), &self.options, most_radius);
            }
        }
        play.sound = sound;
        if let Some(silent) = silent {
            signals::tell(format_args!("warning: {silent}"));
            // The player is told on the HUD too; a script's pictures stay the same on every
            // machine, sound card or not.
            if play.script.is_none() {
                play.say(silent);
            }
        }
        self.report.device_name = gpu.device.adapter.name.clone();
        let overlay = if self.options.hud {
            let overlay = Overlay::new(&gpu.device, format)?;
            let egui_state = egui_winit::State::new(
                overlay.context().clone(),
                egui::ViewportId::ROOT,
                &window,
                Some(window.scale_factor() as f32),
                None,
                None,
            );
            Some((overlay, egui_state))
        } else {
            None
        };
        let mut state = WindowState {
            shown,
            play,
            saves,
            overlay,
            times: CpuTimes::default(),
            frames,
            swapchain,
            surface,
            gpu,
            capture: FrameCapture::new(self.options.renderdoc_capture_frame),
            colour_format: format,
            vsync: self.options.vsync,
            needs_recreate: false,
            resize_requested: false,
            started: Instant::now(),
            clock: FrameClock::default(),
            title_updated: (Instant::now(), 0),
            fault: Fault::from_env().map_err(anyhow::Error::msg)?,
            drawn: 0,
            failed: false,
            window,
        };
        // `--world PATH` for a file that is not there yet: the new world is saved there now.
        if let Some(path) = &self.options.world {
            if !path.exists() && self.options.script.is_none() && !self.options.read_only {
                state.save_world();
            }
        }
        Ok(state)
    }
}

impl App {
    /// The player's last world (`--world` not given, [`crate::worlds`]) is locked now that the
    /// window opens; held by another game, it is opened read-only, and that is said.
    fn lock_chosen_world(&mut self) {
        let options = &mut self.options;
        let Some(path) = options.world.clone().filter(|_| options.world_chosen) else {
            return;
        };
        if options.world_lock.is_some() || options.read_only {
            return;
        }
        match crate::world_lock::WorldLock::shared(&path) {
            Ok(lock) => options.world_lock = Some(lock),
            Err(held @ crate::world_lock::LockError::Held { .. }) => {
                signals::tell(format_args!(
                    "warning: {held}: it is opened read-only (nothing is saved)"
                ));
                options.read_only = true;
            }
            Err(error) => log::warn!("{error}; the world is not locked"),
        }
    }
}

impl WindowState {
    /// Captures the mouse (hidden, locked or at least confined to the window) so that it turns
    /// the view, or lets it go.
    fn set_captured(&mut self, captured: bool) {
        if !captured {
            if let Err(error) = self.window.set_cursor_grab(CursorGrabMode::None) {
                log::warn!("letting the mouse go: {error}");
            }
            self.window.set_cursor_visible(true);
            self.play.input.captured = false;
            self.play.input.release_all();
            return;
        }
        let grabbed = self
            .window
            .set_cursor_grab(CursorGrabMode::Locked)
            .or_else(|_| self.window.set_cursor_grab(CursorGrabMode::Confined));
        match grabbed {
            Ok(()) => {
                self.window.set_cursor_visible(false);
                self.play.input.captured = true;
            }
            Err(error) => log::warn!("capturing the mouse: {error}"),
        }
    }

    /// What a frame's commands act on (`commands`).
    fn run(&mut self) -> Run<'_> {
        Run {
            play: &mut self.play,
            shown: &mut self.shown,
            saves: &mut self.saves,
            gpu: &mut self.gpu,
            frames: &mut self.frames,
        }
    }

    /// The world saved when the window was opened on a new `--world`: the HUD told how it went.
    fn save_world(&mut self) {
        self.run().save_world();
    }

    /// The save at the end of the run: `--world`, or after a save that failed; none when the
    /// GPU failed (the world went to its recovery file). Why it failed, if it did.
    fn save_at_end(&mut self) -> Result<(), String> {
        if self.failed || !self.saves.saves_at_end() {
            return Ok(());
        }
        self.run().save_at_end()
    }

    /// The save at a player's quit failed: the HUD says so and that quitting again leaves
    /// without it.
    fn ask_to_quit_again(&mut self) {
        let key = self.play.input.bindings.label(Action::Save);
        self.play.warning = self.saves.warning(&key);
        if let Some(warning) = self.play.warning.clone() {
            signals::tell(format_args!("error: {warning}"));
            self.play.say(warning);
        }
    }

    /// `error` as the run ends with it: a failure of the GPU saves the world to the recovery
    /// file next to the run's save (see [`crate::gpu_failure`]) and keeps the usual save as it
    /// was.
    fn recover(&mut self, error: anyhow::Error) -> anyhow::Error {
        let world = match &self.shown {
            Shown::World(world) => Some(&world.world),
            Shown::Test(_) => None,
        };
        let error =
            gpu_failure::recover(error, world, self.saves.clock, self.saves.path.as_deref());
        self.failed = error.downcast_ref::<gpu_failure::GpuFailed>().is_some();
        error
    }

    /// What belongs to the window of a frame's commands (the rest were carried out with the
    /// frame, as headless does): the menu's Quit (or the player's Escape in a scripted
    /// window) quits; the menu let go of the mouse when it opened and takes it back when it
    /// closes; F11 and the settings go fullscreen; the settings' vsync makes the swapchain
    /// again.
    /// Returns true to quit.
    fn window_keys(&mut self, asked: &Asked) -> bool {
        // The player's Escape in a scripted window, or the menu's Quit.
        let quit = asked.escape || asked.quit;
        let player = self.play.script.is_none();
        if player && self.play.menu.is_open() && self.play.input.captured {
            // The menu opened: the mouse is let go, to click its rows.
            self.set_captured(false);
        } else if player && asked.resume && !self.play.input.captured {
            self.set_captured(true);
        }
        let fullscreen = match asked.fullscreen_to {
            Some(on) => Some(on),
            None if asked.fullscreen => Some(self.window.fullscreen().is_none()),
            None => None,
        };
        if let Some(on) = fullscreen {
            self.window
                .set_fullscreen(on.then_some(Fullscreen::Borderless(None)));
            self.needs_recreate = true;
        }
        if let Some(vsync) = asked.vsync {
            self.vsync = vsync;
            self.needs_recreate = true;
        }
        quit
    }

    fn recreate_swapchain(&mut self, report: &mut RunReport) -> anyhow::Result<()> {
        let size = self.window.inner_size();
        let old = self.swapchain.take();
        let new = Swapchain::new(
            &self.gpu.device,
            &self.surface,
            (size.width, size.height),
            self.vsync,
            old.as_ref(),
        )?;
        // The old swapchain is retired by the new one's creation; dropping it waits for the queue.
        drop(old);
        if let Some(swapchain) = &new {
            if swapchain.format != self.colour_format {
                // The scene's pipeline was built for the first format; surfaces keep theirs.
                anyhow::bail!(
                    "the swapchain's format changed from {:?} to {:?}",
                    self.colour_format,
                    swapchain.format
                );
            }
            report
                .swapchain_extents
                .push((swapchain.extent.width, swapchain.extent.height));
            report.frames_per_swapchain.push(0);
        }
        self.swapchain = new;
        self.needs_recreate = false;
        Ok(())
    }

    /// Plays and draws one frame ([`FrameRun::frame`], as headless does), presented to the
    /// window; returns true when the player asked to quit.
    fn draw(&mut self, options: &RunOptions, report: &mut RunReport) -> anyhow::Result<bool> {
        let size = self.window.inner_size();
        if size.width == 0 || size.height == 0 {
            // Minimised: nothing to present to.
            return Ok(false);
        }
        if self.needs_recreate || self.swapchain.is_none() {
            self.recreate_swapchain(report)?;
        }
        let Some(swapchain) = self.swapchain.as_ref() else {
            return Ok(false);
        };
        let dt = self.clock.since_last_start().unwrap_or(1.0 / 60.0);
        if let Shown::World(world) = &mut self.shown {
            // The tool's markers show while the mouse is captured (the player is aiming).
            world.renderer.show_tool = self.play.input.captured;
        }
        let time = self.started.elapsed().as_secs_f32();
        let (overlay, egui_state) = match &mut self.overlay {
            Some((overlay, state)) => (Some(overlay), Some(state)),
            None => (None, None),
        };
        let device = self.gpu.device.clone();
        let mut end = Presenting {
            swapchain,
            device: &device,
            window: &self.window,
            egui_state,
            capture: &mut self.capture,
            acquired: None,
            readback: None,
            needs_recreate: false,
        };
        let drawn = FrameRun {
            run: Run {
                play: &mut self.play,
                shown: &mut self.shown,
                saves: &mut self.saves,
                gpu: &mut self.gpu,
                frames: &mut self.frames,
            },
            overlay,
            clock: &mut self.clock,
            times: &mut self.times,
            fault: self.fault,
            submitted: &mut self.drawn,
        }
        .frame(&mut end, time, dt, false)?;
        let Presenting {
            readback,
            needs_recreate,
            ..
        } = end;
        self.needs_recreate |= needs_recreate;
        let quit = self.window_keys(&drawn.asked);
        if !drawn.drawn {
            return Ok(quit);
        }
        if let Some(readback) = readback {
            self.frames.wait_all()?;
            let pixels = readback.pixels()?;
            for path in &drawn.play.screenshots {
                write_png(&pixels, path)?;
            }
            // Only the player's are said (`PlayFrame::pressed_screenshots`).
            for path in &drawn.play.pressed_screenshots {
                write_png(&pixels, path)?;
                self.play
                    .say(format!("screenshot written to {}", path.display()));
            }
        }

        report.frames += 1;
        if let Some(presented) = report.frames_per_swapchain.last_mut() {
            *presented += 1;
        }
        let now = Instant::now();
        if let Some((after, width, height)) = options.resize_after {
            if report.frames >= after && !self.resize_requested {
                self.resize_requested = true;
                if self
                    .window
                    .request_inner_size(PhysicalSize::new(width, height))
                    .is_some()
                {
                    self.needs_recreate = true;
                }
            }
        }
        self.update_title(now);
        Ok(quit)
    }

    /// Twice a second, the window's title shows the frame time and the GPU time of each pass
    /// (the HUD shows the rest).
    fn update_title(&mut self, now: Instant) {
        let since = now - self.title_updated.0;
        if since.as_secs_f64() < 0.5 {
            return;
        }
        let frames = self.frames.frame_number() - self.title_updated.1;
        let frame_ms = since.as_secs_f64() * 1000.0 / frames.max(1) as f64;
        let passes: String = self
            .frames
            .last_timings()
            .iter()
            .map(|t| format!(", {} {:.2} ms GPU", t.name, t.milliseconds))
            .collect();
        self.window
            .set_title(&format!("blockfall — {frame_ms:.2} ms per frame{passes}"));
        self.title_updated = (now, self.frames.frame_number());
    }
}

#[cfg(test)]
mod tests {
    use super::without_source_location;

    #[test]
    fn the_no_display_message_names_no_path_inside_the_dependencies() {
        let winit = "os error at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/\
                     winit-0.30.13/src/platform_impl/linux/mod.rs:763: neither WAYLAND_DISPLAY \
                     nor WAYLAND_SOCKET nor DISPLAY is set.";
        assert_eq!(
            without_source_location(winit),
            "neither WAYLAND_DISPLAY nor WAYLAND_SOCKET nor DISPLAY is set."
        );
        // Anything else is kept whole.
        for other in [
            "the event loop can't be recreated",
            "os error at nowhere",
            "",
        ] {
            assert_eq!(without_source_location(other), other);
        }
    }
}
