//! `bench -- frames`: the GPU's start-up time (instance, device, allocator, bindless table),
//! the test scene's setup, and the headless frame time of the test scene: mean, median and
//! 95th percentile of the time between frames, and the GPU time of its scene pass.

use std::time::Instant;

use anyhow::Context as _;
use blockfall::headless::HeadlessRenderer;
use blockfall_game_render::textures::TextureStyle;

use crate::bench::shared::{bench_gpu, median};

/// Renders `frames` frames of `width` × `height` of the test scene on the GPU `preferred` (or
/// the best one) after one frame of warm-up; prints the set-up times and the frame times.
pub fn run(frames: u32, width: u32, height: u32, preferred: Option<usize>) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut gpu = bench_gpu(preferred)?;
    let device_ms = started.elapsed().as_secs_f64() * 1000.0;
    let setup = Instant::now();
    let mut renderer = HeadlessRenderer::new(&mut gpu, width, height, TextureStyle::Patterned)
        .context("setting up the renderer")?;
    let setup_ms = setup.elapsed().as_secs_f64() * 1000.0;

    // Warm-up: pipeline compilation and first-use costs.
    renderer.render(&mut gpu, 0.0, 1.0 / 60.0, false)?;
    renderer.pixels()?;

    let mut spans = Vec::with_capacity(frames as usize);
    let mut gpu_scene = Vec::with_capacity(frames as usize);
    let mut last = Instant::now();
    for frame in 0..frames {
        renderer.render(&mut gpu, frame as f32 / 60.0, 1.0 / 60.0, false)?;
        let now = Instant::now();
        spans.push((now - last).as_secs_f64() * 1000.0);
        last = now;
        if let Some(timing) = renderer
            .frames
            .last_timings()
            .iter()
            .find(|t| t.name == "scene")
        {
            gpu_scene.push(timing.milliseconds);
        }
    }
    renderer.pixels()?;
    let total = spans.iter().sum::<f64>();
    // Sorted by `median`, for the 95th percentile too.
    let median_ms = median(&mut spans);
    println!("device: {}", gpu.device.adapter.name);
    println!("instance + device + allocator + bindless table: {device_ms:.1} ms");
    println!("scene setup (pipeline, textures, upload): {setup_ms:.1} ms");
    println!(
        "{frames} frames at {width}x{height}: mean {:.2} ms, median {:.2} ms, p95 {:.2} ms per frame ({:.1} fps)",
        total / frames as f64,
        median_ms,
        spans[(spans.len() * 95 / 100).min(spans.len() - 1)],
        frames as f64 * 1000.0 / total
    );
    println!(
        "GPU time of the scene pass: median {:.2} ms",
        median(&mut gpu_scene)
    );
    Ok(())
}
