//! Benchmarks, run by hand; results go to BENCHMARKS.md with the command that made them.
//!
//! `cargo run --release -p blockfall-tools --bin bench -- frames [--frames N] [--width W]
//! [--height H] [--gpu N]`: GPU start-up time, and the headless frame time of the test scene.

use std::time::Instant;

use anyhow::Context as _;
use blockfall::headless::HeadlessRenderer;
use blockfall_engine::gpu::{Gpu, GpuDesc};
use blockfall_game::render::textures::TextureStyle;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "bench", about = "blockfall benchmarks")]
struct Cli {
    #[command(subcommand)]
    benchmark: Benchmark,
}

#[derive(Debug, Subcommand)]
enum Benchmark {
    /// Start-up and headless frame time of the test scene.
    Frames {
        #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(2..))]
        frames: u32,
        #[arg(long, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(16..=8192))]
        width: u32,
        #[arg(long, default_value_t = 720, value_parser = clap::value_parser!(u32).range(16..=8192))]
        height: u32,
        #[arg(long)]
        gpu: Option<usize>,
    },
}

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    match Cli::parse().benchmark {
        Benchmark::Frames {
            frames,
            width,
            height,
            gpu,
        } => frames_benchmark(frames, width, height, gpu),
    }
}

fn frames_benchmark(
    frames: u32,
    width: u32,
    height: u32,
    preferred: Option<usize>,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut gpu = Gpu::headless(&GpuDesc {
        app_name: "blockfall bench".into(),
        validation: false,
        preferred_device: preferred,
        vulkan_1_2_path: false,
    })?;
    let device_ms = started.elapsed().as_secs_f64() * 1000.0;
    let setup = Instant::now();
    let mut renderer = HeadlessRenderer::new(&mut gpu, width, height, TextureStyle::Patterned)
        .context("setting up the renderer")?;
    let setup_ms = setup.elapsed().as_secs_f64() * 1000.0;

    // Warm-up: pipeline compilation and first-use costs.
    renderer.render(0.0, false)?;
    renderer.pixels()?;

    let mut spans = Vec::with_capacity(frames as usize);
    let mut gpu_scene = Vec::with_capacity(frames as usize);
    let mut last = Instant::now();
    for frame in 0..frames {
        renderer.render(frame as f32 / 60.0, false)?;
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
    spans.sort_by(f64::total_cmp);
    gpu_scene.sort_by(f64::total_cmp);
    let median = |v: &[f64]| {
        if v.is_empty() {
            f64::NAN
        } else {
            v[v.len() / 2]
        }
    };
    println!("device: {}", gpu.device.adapter.name);
    println!("instance + device + allocator + bindless table: {device_ms:.1} ms");
    println!("scene setup (pipeline, textures, upload): {setup_ms:.1} ms");
    println!(
        "{frames} frames at {width}x{height}: mean {:.2} ms, median {:.2} ms, p95 {:.2} ms per frame ({:.1} fps)",
        total / frames as f64,
        median(&spans),
        spans[(spans.len() * 95 / 100).min(spans.len() - 1)],
        frames as f64 * 1000.0 / total
    );
    println!(
        "GPU time of the scene pass: median {:.2} ms",
        median(&gpu_scene)
    );
    Ok(())
}
