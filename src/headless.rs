//! Rendering without a window: the same scene into an offscreen target, read back to a PNG.
//! The world (the default) is loaded whole around the spawn before the first frame, so that
//! frame N shows the same picture on every machine; later frames stream as the window does.
//! A scripted run (`--script`) plays its frames the same way and writes its screenshots.

use std::path::PathBuf;
use std::time::Instant;

use crate::playing::Playing;
use anyhow::Context as _;
use blockfall_engine::gpu::{
    vk, FrameRing, Gpu, GpuDesc, GpuResult, ImageAccess, OffscreenTarget, RgbaImage,
};
use blockfall_game::world::World;
use blockfall_game_render::hud::HudRenderer;
use blockfall_game_render::target::RenderTarget;
use blockfall_game_render::test_scene::TestSceneRenderer;
use blockfall_game_render::textures::TextureStyle;

use crate::capture::FrameCapture;
use crate::commands::Run;
use crate::frame::{FrameEnd, FrameRun};
use crate::gpu_failure::{self, Fault};
use crate::options::{RunOptions, RunReport};
use crate::overlay::{CpuTimes, FrameClock, Overlay};
use crate::play::{print_lines, Play, PlayFrame};
use crate::refusal::Refusal;
use crate::saves::Saves;
use crate::screenshot::{check_writable, write_png};
use crate::script::Script;
use crate::shaders::LIBRARY;
use crate::shown::{most_view_radius, Shown};
use crate::signals;
use blockfall_game::scene::Start;

/// Where the PNG goes when no path is given.
pub const DEFAULT_SCREENSHOT: &str = "blockfall-headless.png";

/// The offscreen colour format: sRGB, like the window's swapchain.
pub const OFFSCREEN_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// A scene rendering into an offscreen target.
pub struct HeadlessRenderer {
    pub target: OffscreenTarget,
    pub shown: Shown,
    pub frames: FrameRing,
    /// Whose input drives the world: nobody's (the player stands still), or a script's.
    pub play: Play,
    /// Where a script's clock starts (a save's, when its scene starts from one).
    pub start: Start,
    /// Where F5 saves and F9 loads (`--world`, or the player's save), as in the window.
    pub saves: Saves,
    /// Frame and CPU times, as the window keeps them.
    pub clock: FrameClock,
    /// The HUD, when the run shows one.
    pub overlay: Option<Overlay>,
    /// The CPU times of the last frame, for the HUD.
    pub times: CpuTimes,
    /// The test hook's fault ([`crate::gpu_failure`]): a frame whose submit fails.
    pub fault: Option<Fault>,
    /// Frames drawn so far.
    drawn: u64,
    device: std::sync::Arc<blockfall_engine::gpu::Device>,
    width: u32,
    height: u32,
}

impl HeadlessRenderer {
    /// The test scene.
    pub fn new(gpu: &mut Gpu, width: u32, height: u32, style: TextureStyle) -> GpuResult<Self> {
        let scene = TestSceneRenderer::new(gpu, &LIBRARY, OFFSCREEN_FORMAT, style)?;
        Self::showing(gpu, width, height, Shown::Test(Box::new(scene)))
    }

    /// `world` (see [`World::generated`]); nothing loaded yet.
    pub fn with_world(
        gpu: &mut Gpu,
        width: u32,
        height: u32,
        world: World,
    ) -> anyhow::Result<Self> {
        let world = Playing::new(gpu, &LIBRARY, OFFSCREEN_FORMAT, world)?;
        Ok(Self::showing(
            gpu,
            width,
            height,
            Shown::World(Box::new(world)),
        )?)
    }

    /// What `options` ask for: the world (nothing loaded yet) or the test scene.
    pub fn for_run(gpu: &mut Gpu, options: &RunOptions) -> anyhow::Result<Self> {
        let (shown, start) = Shown::new(gpu, options, OFFSCREEN_FORMAT)?;
        let mut renderer = Self::showing(gpu, options.width, options.height, shown)?;
        renderer.saves = Saves::for_run(options, start.clock);
        renderer.start = start;
        renderer.play = Play::with_settings(None, options, most_view_radius(gpu));
        renderer.play.sound = crate::sound::for_run(options, false)?.0;
        Ok(renderer)
    }

    /// Renders `shown` into a new offscreen target of `width` × `height`.
    pub fn showing(gpu: &mut Gpu, width: u32, height: u32, shown: Shown) -> GpuResult<Self> {
        let target = OffscreenTarget::new(&gpu.device, width, height, OFFSCREEN_FORMAT)?;
        let frames = FrameRing::new(&gpu.device)?;
        Ok(Self {
            target,
            shown,
            frames,
            play: Play::new(None),
            start: Start::default(),
            saves: Saves::new(None, 0.0),
            overlay: None,
            clock: FrameClock::default(),
            times: CpuTimes::default(),
            fault: None,
            drawn: 0,
            device: gpu.device.clone(),
            width,
            height,
        })
    }

    /// The world and the frame ring its meshing work goes through, for driving it by hand.
    pub fn world_and_frames(&mut self) -> Option<(&mut Playing, &mut FrameRing)> {
        match &mut self.shown {
            Shown::World(world) => Some((world, &mut self.frames)),
            Shown::Test(_) => None,
        }
    }

    /// Loads the chunks of full detail within 128 m of the world's player (the near view, first
    /// in the load order) and waits for the meshing to finish; returns how many chunks were
    /// loaded (0 for the test scene).
    pub fn load_near(&mut self) -> anyhow::Result<usize> {
        let Shown::World(world) = &mut self.shown else {
            return Ok(0);
        };
        let loaded = world.load_near(&mut self.frames)?;
        self.frames.wait_all()?;
        Ok(loaded)
    }

    /// Loads every chunk in view of the world's player and waits for the meshing to finish;
    /// returns how many chunks were loaded (0 for the test scene).
    pub fn load_world(&mut self) -> anyhow::Result<usize> {
        let Shown::World(world) = &mut self.shown else {
            return Ok(0);
        };
        let loaded = world.load_all(&mut self.frames)?;
        self.frames.wait_all()?;
        Ok(loaded)
    }

    /// Plays, records and submits one frame of the scene at `time`, `dt` seconds after the
    /// last ([`FrameRun::frame`], as the window does); with `readback` (or a screenshot the
    /// frame asks for) the frame also copies its pixels for [`HeadlessRenderer::pixels`].
    /// Without a script the player stands still. Returns the frame's number and what the frame
    /// asked for; Escape and F11 belong to a window and do nothing here.
    pub fn render(
        &mut self,
        gpu: &mut Gpu,
        time: f32,
        dt: f32,
        readback: bool,
    ) -> anyhow::Result<(u64, PlayFrame)> {
        let mut end = Offscreen {
            target: &self.target,
            device: &self.device,
            size: (self.width, self.height),
        };
        let drawn = FrameRun {
            run: Run {
                play: &mut self.play,
                shown: &mut self.shown,
                saves: &mut self.saves,
                gpu,
                frames: &mut self.frames,
            },
            overlay: self.overlay.as_mut(),
            clock: &mut self.clock,
            times: &mut self.times,
            fault: self.fault,
            submitted: &mut self.drawn,
        }
        .frame(&mut end, time, dt, readback)?;
        Ok((drawn.submission, drawn.play))
    }

    /// The save at the run's end (its frames done, its script's end, a signal): `--world`, or a
    /// run whose last save failed; why it failed, if it did (the run then exits with status 1).
    pub fn save_at_end(&mut self, gpu: &mut Gpu) -> Option<String> {
        if !self.saves.saves_at_end() {
            return None;
        }
        Run {
            play: &mut self.play,
            shown: &mut self.shown,
            saves: &mut self.saves,
            gpu,
            frames: &mut self.frames,
        }
        .save_at_end()
        .err()
    }

    /// `error` as the run ends with it: a failure of the GPU saves the world first, at `clock`,
    /// next to the run's save (see [`crate::gpu_failure`]).
    pub fn recover(&self, error: anyhow::Error, clock: f64, options: &RunOptions) -> anyhow::Error {
        let world = match &self.shown {
            Shown::World(world) => Some(&world.world),
            Shown::Test(_) => None,
        };
        let save = crate::saves::save_path(options.world.as_deref());
        gpu_failure::recover(error, world, clock, save.as_deref())
    }

    /// Waits for every frame and returns the pixels of the last readback.
    pub fn pixels(&mut self) -> GpuResult<RgbaImage> {
        self.frames.wait_all()?;
        self.target.pixels()
    }
}

/// A headless frame's end: its offscreen image, read back when asked.
struct Offscreen<'a> {
    target: &'a OffscreenTarget,
    device: &'a std::sync::Arc<blockfall_engine::gpu::Device>,
    size: (u32, u32),
}

impl FrameEnd for Offscreen<'_> {
    fn target(&mut self, _frames: &mut FrameRing) -> anyhow::Result<Option<RenderTarget>> {
        Ok(Some(RenderTarget {
            image: self.target.color.raw,
            view: self.target.color.view,
            width: self.size.0,
            height: self.size.1,
        }))
    }

    fn hud_input(&mut self, target: &RenderTarget) -> egui::RawInput {
        HudRenderer::raw_input(target.width, target.height, 1.0)
    }

    fn submit(
        &mut self,
        frames: &mut FrameRing,
        _target: &RenderTarget,
        readback: bool,
    ) -> anyhow::Result<u64> {
        if readback {
            let image = self.target.color.raw;
            let from = frames.graph().last_use(image).ok_or_else(|| {
                anyhow::anyhow!("a readback of a headless frame that drew nothing")
            })?;
            frames.begin_pass("readback");
            self.target
                .record_readback(self.device, frames.command_buffer(), from);
            frames.end_pass();
            // The copy leaves the image a colour attachment again.
            frames.graph().import(image, ImageAccess::ColorAttachment);
        }
        Ok(frames.submit(&[], &[])?)
    }
}

/// Where the PNG of a headless run goes.
fn screenshot_path(options: &RunOptions) -> PathBuf {
    options
        .screenshot
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SCREENSHOT))
}

/// Renders `options.frames` frames (1 if not given) headless and writes the last as a PNG.
pub fn run_headless(options: &RunOptions) -> anyhow::Result<RunReport> {
    if options.script.is_none() {
        // A path that cannot be written is refused now, not after every frame was rendered.
        check_writable(&screenshot_path(options)).map_err(|error| Refusal::of(&error))?;
    }
    let mut gpu = Gpu::headless(&GpuDesc {
        app_name: "blockfall".into(),
        validation: options.validation,
        preferred_device: options.gpu,
        vulkan_1_2_path: false,
    })?;
    let mut renderer =
        HeadlessRenderer::for_run(&mut gpu, options).context("setting up the headless renderer")?;
    if options.hud {
        renderer.overlay = Some(Overlay::new(&gpu.device, OFFSCREEN_FORMAT)?);
    }
    renderer.fault = Fault::from_env().map_err(anyhow::Error::msg)?;
    let started = Instant::now();
    let start = renderer.start.clock;
    let loaded = match renderer.load_world() {
        Ok(loaded) => loaded,
        Err(error) => return Err(renderer.recover(error, start, options)),
    };
    if let Some(world) = renderer.shown.world() {
        log::info!(
            "{loaded} chunks within {} chunks of the spawn loaded, {} with a surface meshed, \
             in {:.2} s",
            options.view_radius,
            world.renderer.meshes().resident_chunks(),
            started.elapsed().as_secs_f64()
        );
    }
    if let Some(scene) = &options.script {
        return run_script_headless(renderer, gpu, scene.clone(), options, started);
    }
    let frames = options.frames.unwrap_or(1).max(1);
    let mut capture = FrameCapture::new(options.renderdoc_capture_frame);
    let (mut drawn, mut stopped_by) = (0, None);
    while drawn < frames && stopped_by.is_none() {
        // A signal: this frame is the last, its PNG written.
        stopped_by = signals::stop_asked();
        let last = drawn + 1 == frames || stopped_by.is_some();
        capture.frame_starts(drawn);
        let time = drawn as f32 * options.time_step;
        if let Err(error) = renderer.render(&mut gpu, time, options.time_step, last) {
            return Err(renderer.recover(error, start + f64::from(time), options));
        }
        capture.frame_ends();
        drawn += 1;
    }
    let pixels = match renderer.pixels() {
        Ok(pixels) => pixels,
        Err(error) => return Err(renderer.recover(error.into(), start, options)),
    };
    renderer.clock.end();
    renderer
        .play
        .sound
        .finish()
        .context("--audio-wav: finishing the WAV file")?;
    // `--world`: saved before the picture is written, so a PNG that cannot be written loses no
    // play.
    let unsaved = renderer.save_at_end(&mut gpu);
    let path = screenshot_path(options);
    write_png(&pixels, &path)?;

    Ok(RunReport {
        frames: drawn,
        mean_frame_ms: renderer.clock.mean_frame_ms(),
        mean_cpu_ms: renderer.clock.mean_cpu_ms(),
        first_cpu_ms: renderer.clock.first_cpu_ms(),
        pass_timings: renderer
            .frames
            .last_timings()
            .iter()
            .map(|t| (t.name.clone(), t.milliseconds))
            .collect(),
        validation_errors: gpu.validation_errors(),
        last_validation_error: gpu.instance.canary().last_error(),
        screenshot: Some(path),
        swapchain_extents: Vec::new(),
        frames_per_swapchain: Vec::new(),
        device_name: gpu.device.adapter.name.clone(),
        captured: capture.captured(),
        messages: renderer.play.said.clone(),
        stopped_by,
        unsaved,
    })
}

/// A scripted run headless: every frame of the script, each screenshot it asks for written
/// when its frame has finished; the trace on stdout.
fn run_script_headless(
    mut renderer: HeadlessRenderer,
    mut gpu: Gpu,
    scene: blockfall_game::scene::SceneFile,
    options: &RunOptions,
    started: Instant,
) -> anyhow::Result<RunReport> {
    let mut script = Script::new(scene, &renderer.start);
    if let Some(state) = renderer.saves.state() {
        script.report_save(state);
    }
    if let Shown::World(world) = &renderer.shown {
        print_lines(&[script.first_line(&world.world)?]);
    }
    let sound = std::mem::take(&mut renderer.play.sound);
    renderer.play = Play::with_settings(Some(script), options, most_view_radius(&gpu));
    renderer.play.sound = sound;
    let mut capture = FrameCapture::new(options.renderdoc_capture_frame);
    let mut frames = 0u64;
    let mut stopped_by = None;
    while !renderer.play.script_finished() {
        // A signal stops the script between frames: every line and picture of the frames
        // played is out.
        stopped_by = signals::stop_asked();
        if stopped_by.is_some() {
            break;
        }
        capture.frame_starts(frames);
        let clock = renderer.play.script.as_ref().map_or(0.0, |s| s.clock().0);
        let (_, play) =
            match renderer.render(&mut gpu, frames as f32 * options.time_step, 0.0, false) {
                Ok(drawn) => drawn,
                Err(error) => return Err(renderer.recover(error, clock, options)),
            };
        capture.frame_ends();
        let quit = play.quit;
        if !play.screenshots.is_empty() || !play.pressed_screenshots.is_empty() {
            let pixels = renderer.pixels()?;
            for path in &play.screenshots {
                write_png(&pixels, path)?;
            }
            for path in &play.pressed_screenshots {
                write_png(&pixels, path)?;
                renderer
                    .play
                    .say(format!("screenshot written to {}", path.display()));
            }
        }
        frames += 1;
        if quit {
            // The menu's Quit: the run ends here, saving as at its end.
            break;
        }
    }
    renderer.frames.wait_all()?;
    renderer.clock.end();
    renderer
        .play
        .sound
        .finish()
        .context("--audio-wav: finishing the WAV file")?;
    log::info!(
        "{frames} scripted frames in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    if let (Some(signal), Some(script)) = (stopped_by, &renderer.play.script) {
        signals::tell(script.stopped(signal));
    }
    let unsaved = renderer.save_at_end(&mut gpu);
    let report = RunReport {
        frames,
        mean_frame_ms: renderer.clock.mean_frame_ms(),
        mean_cpu_ms: renderer.clock.mean_cpu_ms(),
        first_cpu_ms: renderer.clock.first_cpu_ms(),
        pass_timings: renderer
            .frames
            .last_timings()
            .iter()
            .map(|t| (t.name.clone(), t.milliseconds))
            .collect(),
        validation_errors: gpu.validation_errors(),
        last_validation_error: gpu.instance.canary().last_error(),
        screenshot: None,
        swapchain_extents: Vec::new(),
        frames_per_swapchain: Vec::new(),
        device_name: gpu.device.adapter.name.clone(),
        captured: capture.captured(),
        messages: renderer.play.said.clone(),
        stopped_by,
        unsaved,
    };
    // The renderer's objects go before the device's table and uploader.
    drop(renderer);
    drop(gpu);
    Ok(report)
}
