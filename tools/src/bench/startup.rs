//! `bench -- startup`: from nothing to every chunk within the view radius of the spawn
//! loaded, lit and meshed on the GPU — the world's first complete frame — and then the frame
//! time of the world's view, and what the terrain's culling and recording cost the CPU per
//! frame (`TerrainRenderer::cpu_time_last_frame`): culled on the GPU (one draw call), and on
//! the CPU (the fallback, one draw per chunk in view) for comparison.

use std::time::Instant;

use anyhow::Context as _;
use blockfall::headless::HeadlessRenderer;
use blockfall_engine::meshing::terrain_meshes::{INDEX_BYTES, LIGHT_BYTES, VERTEX_BYTES};
use blockfall_game::terrain::Generator;
use blockfall_game::world::World;
use blockfall_physics::workers::WorkerPool;

use crate::bench::shared::{bench_gpu, median};

/// Loads the world around the spawn with `radius` chunks in view, then renders `frames` frames
/// of `width` × `height`; prints the phases and the frame times.
pub fn run(
    radius: u32,
    frames: u32,
    width: u32,
    height: u32,
    preferred: Option<usize>,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut gpu = bench_gpu(preferred)?;
    let device_seconds = started.elapsed().as_secs_f64();
    let setup = Instant::now();
    let world = World::generated(
        Generator::DEFAULT_SEED,
        radius,
        WorkerPool::with_available_parallelism(),
    )?;
    let mut renderer = HeadlessRenderer::with_world(&mut gpu, width, height, world)
        .context("setting up the world")?;
    let setup_seconds = setup.elapsed().as_secs_f64();
    // The near view first (the chunks of full detail within 128 m, first in the load order),
    // then everything else to the radius.
    let load = Instant::now();
    let near_loaded = renderer.load_near()?;
    let near_seconds = load.elapsed().as_secs_f64();
    let loaded = near_loaded + renderer.load_world()?;
    let load_seconds = load.elapsed().as_secs_f64();
    let (world, _) = renderer.world_and_frames().expect("the world is shown");
    let counters = world.world.chunks().counters();
    let resident = world.renderer.meshes().resident_chunks();
    let threads = world.world.pool().threads();

    println!("device: {}", gpu.device.adapter.name);
    println!("view radius {radius} chunks; worker threads {threads}");
    println!("instance + device + allocator: {device_seconds:.3} s");
    println!("world setup (pipelines, textures, arenas): {setup_seconds:.3} s");
    println!(
        "startup to every chunk in view meshed: {load_seconds:.3} s ({:.3} s from the start \
         of the process's GPU work)",
        started.elapsed().as_secs_f64()
    );
    println!(
        "  {loaded} chunks in view ({near_loaded} of full detail within 128 m, loaded first in \
         {near_seconds:.3} s), levels of detail 0 to {}, {} may hold a surface, {resident} with \
         a surface meshed",
        world.world.chunks().top_level(),
        counters.meshes
    );
    println!(
        "  density grids {:.3} s, sky light {:.3} s, GPU meshing (with the count waits) {:.3} s",
        counters.generate_time.as_secs_f64(),
        counters.light_time.as_secs_f64(),
        counters.mesh_time.as_secs_f64()
    );

    // Frames: the first pays for pipeline warm-up.
    renderer.render(&mut gpu, 0.0, 0.0, false)?;
    let mut frame_times = Vec::with_capacity(frames as usize);
    let mut gpu_times = Vec::with_capacity(frames as usize);
    let mut terrain_cpu = Vec::with_capacity(frames as usize);
    for frame in 0..frames {
        let start = Instant::now();
        renderer.render(&mut gpu, frame as f32 / 60.0, 0.0, false)?;
        frame_times.push(start.elapsed().as_secs_f64() * 1000.0);
        if let Some((world, _)) = renderer.world_and_frames() {
            terrain_cpu.push(
                world
                    .renderer
                    .renderer()
                    .cpu_time_last_frame()
                    .as_secs_f64()
                    * 1000.0,
            );
        }
        if let Some(timing) = renderer
            .frames
            .last_timings()
            .iter()
            .find(|t| t.name == blockfall_game_render::terrain::PASS_NAME)
        {
            gpu_times.push(timing.milliseconds);
        }
    }
    renderer.frames.wait_all()?;
    let (world, _) = renderer.world_and_frames().expect("the world is shown");
    // Where the GPU culls, its counts of the last frame (finished now).
    world.renderer.renderer().refresh_counts();
    let calls = world.renderer.renderer().draws_last_frame();
    let drawn = world.renderer.renderer().chunks_drawn();
    let triangles = world.renderer.renderer().triangles_last_frame();
    let meshes = world.renderer.meshes();
    // The terrain's GPU memory: the arenas (vertices, light, indices) and the draw slots, as
    // allocated for the radius, and how much of the arenas the resident meshes use.
    let allocated = meshes.vertex_buffer().size
        + meshes.light_buffer().size
        + meshes.index_buffer().size
        + meshes.draw_buffer().size;
    let used = meshes.vertex_arena().used() * VERTEX_BYTES
        + meshes.vertex_arena().used() * LIGHT_BYTES
        + meshes.index_arena().used() * INDEX_BYTES;
    let mib = |bytes: u64| bytes as f64 / f64::from(1u32 << 20);
    println!(
        "chunks drawn per frame: {drawn} of {resident} resident (the rest culled), {triangles} \
         triangles, {calls} terrain draw calls"
    );
    println!(
        "terrain GPU memory: {:.1} MiB allocated (arenas and draw slots), {:.1} MiB of the \
         arenas in use",
        mib(allocated),
        mib(used)
    );
    println!(
        "{frames} frames at {width}x{height}: median {:.2} ms per frame, terrain pass {:.2} ms GPU \
         (median)",
        median(&mut frame_times),
        median(&mut gpu_times)
    );
    let gpu_culling = world.renderer.renderer().gpu_culling();
    // The same frames with the CPU's culling, for comparison.
    world.renderer.renderer().set_gpu_culling(false);
    let mut fallback_cpu = Vec::with_capacity(frames as usize);
    for frame in 0..frames {
        renderer.render(&mut gpu, frame as f32 / 60.0, 0.0, false)?;
        if let Some((world, _)) = renderer.world_and_frames() {
            fallback_cpu.push(
                world
                    .renderer
                    .renderer()
                    .cpu_time_last_frame()
                    .as_secs_f64()
                    * 1000.0,
            );
        }
    }
    renderer.frames.wait_all()?;
    let (world, _) = renderer.world_and_frames().expect("the world is shown");
    world.renderer.renderer().set_gpu_culling(gpu_culling);
    let fallback_calls = world.renderer.renderer().draws_last_frame();
    println!(
        "terrain cull + record, CPU per frame ({resident} resident chunks): {} median {:.3} ms, \
         max {:.3} ms; CPU culling (fallback, {fallback_calls} draw calls) median {:.3} ms",
        if gpu_culling {
            "GPU culling (1 draw call)"
        } else {
            "no GPU culling on this device, CPU culling"
        },
        median(&mut terrain_cpu),
        terrain_cpu.iter().copied().fold(0.0, f64::max),
        median(&mut fallback_cpu)
    );
    println!(
        "far view: near {near_seconds:.2} s, all {load_seconds:.2} s, {triangles} triangles, {:.0} MiB",
        mib(allocated)
    );
    Ok(())
}
