//! Rendering without a window: the same scene into an offscreen target, read back to a PNG.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use blockfall_engine::gpu::{vk, FrameRing, Gpu, GpuDesc, GpuResult, OffscreenTarget, RgbaImage};
use blockfall_game::render::test_scene::{RenderTarget, TestScene, TestSceneRenderer};
use blockfall_game::render::textures::TextureStyle;

use crate::capture::FrameCapture;
use crate::options::{RunOptions, RunReport};
use crate::screenshot::write_png;
use crate::shaders::LIBRARY;

/// Where the PNG goes when no path is given.
pub const DEFAULT_SCREENSHOT: &str = "blockfall-headless.png";

/// The offscreen colour format: sRGB, like the window's swapchain.
pub const OFFSCREEN_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// The test scene rendering into an offscreen target.
pub struct HeadlessRenderer {
    pub target: OffscreenTarget,
    pub scene: TestSceneRenderer,
    pub frames: FrameRing,
    device: std::sync::Arc<blockfall_engine::gpu::Device>,
    width: u32,
    height: u32,
}

impl HeadlessRenderer {
    pub fn new(gpu: &mut Gpu, width: u32, height: u32, style: TextureStyle) -> GpuResult<Self> {
        let target = OffscreenTarget::new(&gpu.device, width, height, OFFSCREEN_FORMAT)?;
        let scene = TestSceneRenderer::new(gpu, &LIBRARY, OFFSCREEN_FORMAT, style)?;
        let frames = FrameRing::new(&gpu.device)?;
        Ok(Self {
            target,
            scene,
            frames,
            device: gpu.device.clone(),
            width,
            height,
        })
    }

    /// Records and submits one frame of the scene at `time`; with `readback`, the frame also
    /// copies its pixels for [`HeadlessRenderer::pixels`].
    pub fn render(&mut self, time: f32, readback: bool) -> GpuResult<u64> {
        let command_buffer = self.frames.begin()?;
        let scene = TestScene::at(time, self.width, self.height);
        let target = RenderTarget {
            image: self.target.color.raw,
            view: self.target.color.view,
            width: self.width,
            height: self.height,
        };
        self.scene.record(&mut self.frames, target, &scene)?;
        if readback {
            self.frames.begin_pass("readback");
            self.target.record_readback(
                &self.device,
                command_buffer,
                blockfall_engine::gpu::ImageAccess::ColorAttachment,
            );
            self.frames.end_pass();
        }
        self.frames.submit(&[], &[])
    }

    /// Waits for every frame and returns the pixels of the last readback.
    pub fn pixels(&mut self) -> GpuResult<RgbaImage> {
        self.frames.wait_all()?;
        self.target.pixels()
    }
}

/// Renders `options.frames` frames (1 if not given) headless and writes the last as a PNG.
pub fn run_headless(options: &RunOptions) -> anyhow::Result<RunReport> {
    let mut gpu = Gpu::headless(&GpuDesc {
        app_name: "blockfall".into(),
        validation: options.validation,
        preferred_device: options.gpu,
        vulkan_1_2_path: false,
    })?;
    let mut renderer = HeadlessRenderer::new(
        &mut gpu,
        options.width,
        options.height,
        TextureStyle::Patterned,
    )
    .context("setting up the headless renderer")?;
    let frames = options.frames.unwrap_or(1).max(1);
    let mut capture = FrameCapture::new(options.renderdoc_capture_frame);
    let mut frame_starts = Vec::with_capacity(frames as usize + 1);
    for frame in 0..frames {
        frame_starts.push(Instant::now());
        capture.frame_starts(frame);
        renderer.render(frame as f32 * options.time_step, frame + 1 == frames)?;
        capture.frame_ends();
    }
    let pixels = renderer.pixels()?;
    frame_starts.push(Instant::now());
    let path = options
        .screenshot
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SCREENSHOT));
    write_png(&pixels, &path)?;

    // The first frame pays for pipeline warm-up; the mean is over the rest when there are any.
    let skip = if frames > 1 { 1 } else { 0 };
    let spans: Vec<f64> = frame_starts
        .windows(2)
        .skip(skip)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1000.0)
        .collect();
    let mean_frame_ms = spans.iter().sum::<f64>() / spans.len().max(1) as f64;
    Ok(RunReport {
        frames,
        mean_frame_ms,
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
    })
}
