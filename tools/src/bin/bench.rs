//! Benchmarks, run by hand; results go to BENCHMARKS.md with the command that made them.
//!
//! - `bench -- frames [--frames N] [--width W] [--height H] [--gpu N]`: GPU start-up time, and
//!   the headless frame time of the test scene.
//! - `bench -- surface-nets [--repeats N]`: the CPU surface nets against `fast-surface-nets` 0.2
//!   on a sphere, a dense sine field and the 500 chunks nearest the spawn point, in one run.
//! - `bench -- density`: samples of the default world per second on 1 and 2 threads.
//! - `bench -- light`: sky light grids of the chunks around the spawn point per second.
//! - `bench -- gpu-mesh [--chunks N] [--gpu N]`: GPU time per chunk of the compute surface nets
//!   (timestamps per pass), samples meshed per second, and the CPU mesher on the same chunks.
//! - `bench -- nearest`: `nearest()` queries per second on 1 and 2 threads, terrain only and
//!   inside a dense block structure.
//! - `bench -- support [--blocks N] [--breaks N]`: the support search on a generated city of
//!   about a million blocks, against a direct port of seed 002's search, in one run.
//! - `bench -- physics [--pieces N] [--steps N] [--repeats N] [--seed N] [--no-capacity]`:
//!   falling pieces stepped by blockfall's physics core and by rapier3d on 1 and 2 threads, and
//!   the most awake 4×4×4 pieces blockfall steps within 8.33 ms on 2 threads.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use blockfall::headless::HeadlessRenderer;
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
    /// CPU surface nets against fast-surface-nets 0.2.
    SurfaceNets {
        /// How often each case is meshed; the fastest pass counts.
        #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..))]
        repeats: u32,
        /// World chunks nearest the spawn point to mesh.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
    },
    /// Collision queries (`nearest`) per second on 1 and 2 threads.
    Nearest {
        /// Queries per case and thread count.
        #[arg(long, default_value_t = 400_000, value_parser = clap::value_parser!(u32).range(1000..))]
        queries: u32,
    },
    /// The support search on a generated city, against a port of the seed's search.
    Support {
        /// About how many blocks the city has.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u32).range(1000..))]
        blocks: u32,
        /// Random blocks broken (and put back), and random blocks asked `would_fall`.
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(10..))]
        breaks: u32,
        /// Blocks of the platform that stands on one pillar (the worst case).
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(100..))]
        platform: u32,
    },
    /// Falling pieces: blockfall's physics core against rapier3d, on 1 and 2 threads.
    Physics {
        /// Pieces (1 to 64 blocks each) dropped onto the default world.
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        pieces: u32,
        /// Steps of 1/120 s per engine and thread count (more than 120).
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(121..))]
        steps: u32,
        /// Runs of each case; each step's fastest time counts.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
        repeats: u32,
        /// Seed of the pieces' shapes, materials and turns.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Skip the search for the most awake 4×4×4 pieces within a frame.
        #[arg(long)]
        no_capacity: bool,
        /// Only time this many awake 4×4×4 pieces on 1 and 2 threads (for profiling).
        #[arg(long)]
        only_awake: Option<usize>,
    },
    /// Compute-shader surface nets on the default world's chunks, against the CPU mesher.
    GpuMesh {
        /// Chunks nearest the spawn point that may hold a surface.
        #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
        #[arg(long)]
        gpu: Option<usize>,
    },
    /// Sky light grids of the default world's chunks per second, on 1 and 2 threads.
    Light {
        /// Chunks nearest the spawn point that may hold a surface (proven ones are skipped).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
    },
    /// Startup: every chunk within the view radius of the spawn loaded, lit and meshed on the
    /// GPU; then the world's frame time.
    Startup {
        /// The view radius, in chunks.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=32))]
        radius: u32,
        /// Frames rendered after the load, for the frame time.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
        frames: u32,
        #[arg(long, default_value_t = 1920, value_parser = clap::value_parser!(u32).range(16..=8192))]
        width: u32,
        #[arg(long, default_value_t = 1080, value_parser = clap::value_parser!(u32).range(16..=8192))]
        height: u32,
        #[arg(long)]
        gpu: Option<usize>,
    },
    /// Density samples of the default world per second, on 1 and 2 threads.
    Density {
        /// Chunks (34³ samples each) nearest the spawn point to fill.
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
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
        Benchmark::SurfaceNets { repeats, chunks } => surface_nets_benchmark(repeats, chunks),
        Benchmark::Density { chunks } => density_benchmark(chunks),
        Benchmark::Startup {
            radius,
            frames,
            width,
            height,
            gpu,
        } => blockfall_tools::world_bench::run(radius, frames, width, height, gpu),
        Benchmark::Light { chunks } => light_benchmark(chunks),
        Benchmark::GpuMesh { chunks, gpu } => gpu_mesh_benchmark(chunks, gpu),
        Benchmark::Nearest { queries } => nearest_benchmark(queries),
        Benchmark::Physics {
            pieces,
            steps,
            repeats,
            seed,
            no_capacity,
            only_awake,
        } => match only_awake {
            Some(count) => blockfall_tools::physics_bench::run_awake(count, repeats),
            None => blockfall_tools::physics_bench::run(
                pieces as usize,
                steps,
                repeats,
                seed,
                !no_capacity,
            ),
        },
        Benchmark::Support {
            blocks,
            breaks,
            platform,
        } => support_benchmark(blocks as usize, breaks as usize, platform as usize),
    }
}

fn frames_benchmark(
    frames: u32,
    width: u32,
    height: u32,
    preferred: Option<usize>,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut gpu = blockfall_tools::bench_gpu(preferred)?;
    let device_ms = started.elapsed().as_secs_f64() * 1000.0;
    let setup = Instant::now();
    let mut renderer = HeadlessRenderer::new(&mut gpu, width, height, TextureStyle::Patterned)
        .context("setting up the renderer")?;
    let setup_ms = setup.elapsed().as_secs_f64() * 1000.0;

    // Warm-up: pipeline compilation and first-use costs.
    renderer.render(0.0, 1.0 / 60.0, false)?;
    renderer.pixels()?;

    let mut spans = Vec::with_capacity(frames as usize);
    let mut gpu_scene = Vec::with_capacity(frames as usize);
    let mut last = Instant::now();
    for frame in 0..frames {
        renderer.render(frame as f32 / 60.0, 1.0 / 60.0, false)?;
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

/// A padded chunk grid: 32 cells plus one sample of padding on every side.
const PADDED: usize = blockfall_game::terrain::chunks::PADDED_SIZE;

/// One case of the surface-nets benchmark: grids of `PADDED`³ samples.
struct MeshCase {
    name: &'static str,
    grids: Vec<Vec<f32>>,
}

fn analytic_grid(density: impl Fn(f32, f32, f32) -> f32) -> Vec<f32> {
    let mut samples = Vec::with_capacity(PADDED * PADDED * PADDED);
    for z in 0..PADDED {
        for y in 0..PADDED {
            for x in 0..PADDED {
                samples.push(density(x as f32, y as f32, z as f32));
            }
        }
    }
    samples
}

/// Grids meshed per timed pass at least: a single grid is meshed this often per pass, so that a
/// pass lasts long enough for the clock and one stray interruption does not decide it.
const GRIDS_PER_PASS: usize = 500;

/// A mesher under test: meshes one grid, returns its triangle count.
type Mesher<'a> = dyn FnMut(&[f32]) -> usize + 'a;

/// Times two meshers on the same grids, passes taking turns so that a slow spell of the machine
/// hits both alike: for each, the fastest pass over every grid (a pass meshes the grids as often
/// as it takes to reach [`GRIDS_PER_PASS`]) and the triangles of one pass.
fn race(
    repeats: u32,
    grids: [&[Vec<f32>]; 2],
    mut meshers: [&mut Mesher<'_>; 2],
) -> [(Duration, usize); 2] {
    let mut results = [(Duration::MAX, 0); 2];
    for _ in 0..repeats {
        for ((grids, mesh), result) in grids.iter().zip(meshers.iter_mut()).zip(&mut results) {
            let rounds = GRIDS_PER_PASS.div_ceil(grids.len().max(1));
            let started = Instant::now();
            let mut triangles = 0;
            for _ in 0..rounds {
                triangles = grids.iter().map(|grid| mesh(grid)).sum();
            }
            result.0 = result.0.min(started.elapsed() / rounds as u32);
            result.1 = triangles;
        }
    }
    results
}

fn surface_nets_benchmark(repeats: u32, chunk_count: u32) -> anyhow::Result<()> {
    use blockfall_engine::meshing::{DensityGrid, GridRegion, SurfaceMesh, SurfaceNets};
    use blockfall_game::terrain::{chunks, EditStore, Generator};
    use fast_surface_nets::ndshape::{ConstShape, ConstShape3u32};
    use fast_surface_nets::{surface_nets, SurfaceNetsBuffer};

    type PaddedShape = ConstShape3u32<34, 34, 34>;
    anyhow::ensure!(
        PaddedShape::SIZE as usize == PADDED * PADDED * PADDED,
        "shape mismatch"
    );

    let generator = std::sync::Arc::new(Generator::new(Generator::DEFAULT_SEED));
    let edits = EditStore::new(generator.clone());
    let spawn = generator.spawn_point();
    let nearest: Vec<_> = chunks::load_order(spawn, 16)
        .into_iter()
        .take(chunk_count as usize)
        .collect();
    anyhow::ensure!(
        nearest.len() == chunk_count as usize,
        "only {} chunks within the radius",
        nearest.len()
    );
    let world: Vec<Vec<f32>> = nearest
        .iter()
        .map(|&coord| {
            let mut samples = Vec::new();
            chunks::fill_padded_grid(&edits, coord, &mut samples);
            samples
        })
        .collect();
    let cases = [
        MeshCase {
            name: "(a) sphere, r = 13, one 32³ chunk",
            grids: vec![analytic_grid(|x, y, z| {
                13.0 - ((x - 16.5).powi(2) + (y - 16.5).powi(2) + (z - 16.5).powi(2)).sqrt()
            })],
        },
        MeshCase {
            name: "(b) dense sine field, one 32³ chunk",
            grids: vec![analytic_grid(|x, y, z| {
                (x * 0.9).sin() + (y * 1.3).sin() + (z * 0.7).sin() + 0.3
            })],
        },
        MeshCase {
            name: "(c) the 500 chunks nearest the spawn point",
            grids: world,
        },
    ];

    let dims = [PADDED; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let cells_per_grid = ((PADDED - 1) * (PADDED - 1) * (PADDED - 1)) as f64;
    let mut ours = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let mut theirs = SurfaceNetsBuffer::default();
    println!(
        "surface nets on {PADDED}³-sample grids ({} cells each), fastest of {repeats} passes of at least {GRIDS_PER_PASS} grids",
        cells_per_grid
    );
    println!("| case | mesher | ns per cell | triangles | triangles per second | speed-up |");
    println!("|---|---|---|---|---|---|");
    for case in &cases {
        // fast-surface-nets takes negative as inside; negate outside the timing.
        let negated: Vec<Vec<f32>> = case
            .grids
            .iter()
            .map(|g| g.iter().map(|d| -d).collect())
            .collect();
        let mut failure = None;
        let mut ours_mesh = |grid: &[f32]| {
            let result = DensityGrid::new(grid, dims)
                .and_then(|density| ours.mesh(density, region, &mut mesh));
            if let Err(error) = result {
                failure = Some(error);
            }
            mesh.triangle_count()
        };
        let mut theirs_mesh = |grid: &[f32]| {
            surface_nets(grid, &PaddedShape {}, [0; 3], [33; 3], &mut theirs);
            theirs.indices.len() / 3
        };
        let [(our_time, our_triangles), (their_time, their_triangles)] = race(
            repeats,
            [&case.grids, &negated],
            [&mut ours_mesh, &mut theirs_mesh],
        );
        if let Some(error) = failure {
            anyhow::bail!("meshing {}: {error}", case.name);
        }
        let cells = cells_per_grid * case.grids.len() as f64;
        for (mesher, time, triangles) in [
            ("blockfall", our_time, our_triangles),
            ("fast-surface-nets 0.2", their_time, their_triangles),
        ] {
            let speed_up = their_time.as_secs_f64() / time.as_secs_f64();
            println!(
                "| {} | {mesher} | {:.2} | {triangles} | {:.1} M | {:.2}× |",
                case.name,
                time.as_secs_f64() * 1e9 / cells,
                triangles as f64 / time.as_secs_f64() / 1e6,
                speed_up
            );
        }
    }
    Ok(())
}

/// The default world's edits.
type WorldEdits = blockfall_game::terrain::EditStore<blockfall_game::terrain::Generator>;

/// The default world's edits and the first `count` chunks nearest its spawn point that `keep`
/// keeps.
fn world_chunks(
    count: u32,
    keep: impl Fn(&WorldEdits, blockfall_game::terrain::ChunkCoord) -> bool,
) -> (WorldEdits, Vec<blockfall_game::terrain::ChunkCoord>) {
    use blockfall_game::terrain::{chunks, EditStore, Generator};
    let generator = std::sync::Arc::new(Generator::new(Generator::DEFAULT_SEED));
    let edits = EditStore::new(generator.clone());
    let coords = chunks::load_order(generator.spawn_point(), 16)
        .into_iter()
        .filter(|&coord| keep(&edits, coord))
        .take(count as usize)
        .collect();
    (edits, coords)
}

fn density_benchmark(chunk_count: u32) -> anyhow::Result<()> {
    use blockfall_engine::workers::WorkerPool;
    use blockfall_game::terrain::chunks;

    let (edits, coords) = world_chunks(chunk_count, |_, _| true);
    let samples_per_chunk = (PADDED * PADDED * PADDED) as f64;
    println!("density of the default world: {} chunks of {PADDED}³ samples nearest the spawn point, every sample worked out", coords.len());
    for threads in [1, 2] {
        let pool = WorkerPool::new(threads)?;
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let started = Instant::now();
            let grids = pool.map(&coords, |&coord| {
                let mut samples = Vec::new();
                chunks::fill_padded_grid(&edits, coord, &mut samples);
                samples.len()
            });
            best = best.min(started.elapsed());
            anyhow::ensure!(grids.iter().all(|&n| n == PADDED * PADDED * PADDED));
        }
        println!(
            "{threads} thread{}: {:.2} M samples per second ({:.1} ms for all)",
            if threads == 1 { "" } else { "s" },
            samples_per_chunk * coords.len() as f64 / best.as_secs_f64() / 1e6,
            best.as_secs_f64() * 1000.0
        );
    }
    // The same chunks through the skip: proven Air/Solid chunks are not sampled at all.
    let mut samples = Vec::new();
    let mut best = Duration::MAX;
    let mut proven = 0;
    for _ in 0..3 {
        proven = 0;
        let started = Instant::now();
        for &coord in &coords {
            chunks::fill_padded_grid_or_skip(&edits, coord, &mut samples);
            proven += usize::from(samples.is_empty());
        }
        best = best.min(started.elapsed());
    }
    println!(
        "with the proof: {proven} of {} chunks skipped without sampling, {:.1} ms for all on 1 thread",
        coords.len(),
        best.as_secs_f64() * 1000.0
    );
    let mut skip_best = Duration::MAX;
    let proven_coords: Vec<_> = coords
        .iter()
        .copied()
        .filter(|&coord| {
            chunks::classify(&edits, coord) != blockfall_game::terrain::ChunkKind::Mixed
        })
        .collect();
    if !proven_coords.is_empty() {
        for _ in 0..5 {
            let started = Instant::now();
            for &coord in &proven_coords {
                chunks::fill_padded_grid_or_skip(&edits, coord, &mut samples);
            }
            skip_best = skip_best.min(started.elapsed());
        }
        println!(
            "a proven chunk costs {:.1} µs",
            skip_best.as_secs_f64() * 1e6 / proven_coords.len() as f64
        );
    }
    Ok(())
}

/// A small deterministic sequence in [0, 1), so every run asks the same points.
struct Sequence(u64);

impl Sequence {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn nearest_benchmark(queries: u32) -> anyhow::Result<()> {
    use blockfall_engine::collision::Solid;
    use blockfall_engine::workers::WorkerPool;
    use blockfall_game::blocks::store::{Block, BlockStore};
    use blockfall_game::player::RADIUS;
    use blockfall_game::scene::SceneSolids;
    use blockfall_game::terrain::{EditStore, Field, Generator, Ground, PlaneGround};
    use std::sync::Arc;

    let world: Arc<dyn Ground> = Arc::new(Generator::new(Generator::DEFAULT_SEED));
    let generator = Generator::new(Generator::DEFAULT_SEED);
    let world_field = Field::new(EditStore::new(world));
    let no_blocks = BlockStore::new();
    let mut sequence = Sequence(7);
    let terrain_points: Vec<[f32; 3]> = (0..queries)
        .map(|_| {
            let x = sequence.next() * 80.0 - 40.0;
            let z = sequence.next() * 80.0;
            let y = generator.surface_height(x, z) + sequence.next() * 2.0 - 1.0;
            [x, y, z]
        })
        .collect();

    // A solid cube of 16 × 16 × 16 plain 1 m blocks on flat ground, asked at points in and
    // around it: every query finds blocks within reach, most of them covered on some sides.
    let flat: Arc<dyn Ground> = Arc::new(PlaneGround::flat(0.0));
    let flat_field = Field::new(EditStore::new(flat));
    let mut building = BlockStore::new();
    for z in 0..16 {
        for y in 0..16 {
            for x in 0..16 {
                building.add(Block::new(x * 2, y * 2, z * 2, 2, 0, 0, false)?)?;
            }
        }
    }
    let block_points: Vec<[f32; 3]> = (0..queries)
        .map(|_| [0, 1, 2].map(|_| sequence.next() * 18.0 - 1.0))
        .collect();

    let cases = [
        (
            "terrain only (world, points within 1 m of the surface)",
            SceneSolids {
                field: &world_field,
                blocks: &no_blocks,
            },
            &terrain_points,
        ),
        (
            "inside a dense block structure (4096 blocks of 1 m)",
            SceneSolids {
                field: &flat_field,
                blocks: &building,
            },
            &block_points,
        ),
    ];
    println!("nearest(point, {RADIUS} m): {queries} queries per case, fastest of 3 runs");
    for (name, solids, points) in &cases {
        for threads in [1, 2] {
            let pool = WorkerPool::new(threads)?;
            let batches: Vec<&[[f32; 3]]> = points.chunks(4096).collect();
            let mut best = Duration::MAX;
            let mut found = 0;
            for _ in 0..3 {
                let started = Instant::now();
                let counts = pool.map(&batches, |batch| {
                    batch
                        .iter()
                        .filter(|&&point| solids.nearest(point, RADIUS).is_some())
                        .count()
                });
                best = best.min(started.elapsed());
                found = counts.iter().sum::<usize>();
            }
            println!(
                "{name}, {threads} thread{}: {:.2} M queries per second ({found} found a surface)",
                if threads == 1 { "" } else { "s" },
                points.len() as f64 / best.as_secs_f64() / 1e6
            );
        }
    }
    Ok(())
}

/// Median, 99th percentile and mean of some durations, in microseconds.
fn spread(times: &mut [Duration]) -> (f64, f64, f64) {
    times.sort_unstable();
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    let at = |share: f64| micros(times[((times.len() - 1) as f64 * share).round() as usize]);
    let mean = times.iter().map(|&d| micros(d)).sum::<f64>() / times.len() as f64;
    (at(0.5), at(0.99), mean)
}

fn report(what: &str, ours: &mut [Duration], port: &mut [Duration]) {
    let (ours_median, ours_p99, ours_mean) = spread(ours);
    let (port_median, port_p99, port_mean) = spread(port);
    println!("{what}:");
    println!(
        "  blockfall: median {ours_median:.1} µs, p99 {ours_p99:.1} µs, mean {ours_mean:.1} µs"
    );
    println!(
        "  seed port: median {port_median:.1} µs, p99 {port_p99:.1} µs, mean {port_mean:.1} µs"
    );
    println!(
        "  speed-up: {:.1}× at the median, {:.1}× at p99, {:.1}× on the mean",
        port_median / ours_median,
        port_p99 / ours_p99,
        port_mean / ours_mean
    );
}

/// The times of the breaks of one round, and how many blocks fell.
#[derive(Default)]
struct BreakTimes {
    ours: Vec<Duration>,
    port: Vec<Duration>,
    fell: usize,
}

type SupportSide<'a> = (
    &'a mut blockfall_game::blocks::store::BlockStore,
    &'a mut blockfall_game::support::Support,
);
type PortSide<'a> = (
    &'a mut blockfall_tools::seed_support::SeedStore,
    &'a mut blockfall_tools::seed_support::SeedSupport,
);

/// Breaks one block in both stores, times the search for loose groups in each, and puts the
/// block back (under a new id in blockfall's store). Both must find the same blocks loose.
fn break_one<S: blockfall_game::terrain::Samples>(
    turn: usize,
    pick: &mut (blockfall_game::blocks::BlockId, u32),
    (store, support): SupportSide<'_>,
    (seed_store, seed_support): PortSide<'_>,
    field: &blockfall_game::terrain::Field<S>,
    times: &mut BreakTimes,
) -> anyhow::Result<()> {
    let (id, seed_id) = pick;
    let mut run_ours = || -> anyhow::Result<(Duration, usize)> {
        let block = store
            .remove(*id)
            .context("a picked block is in the store")?;
        let started = Instant::now();
        support.removed(store, *id, &block);
        let groups = support.update(store, field);
        let time = started.elapsed();
        *id = store.add(block)?;
        Ok((time, groups.iter().map(Vec::len).sum()))
    };
    let mut run_port = || -> anyhow::Result<(Duration, usize)> {
        let block = *seed_store
            .get(*seed_id)
            .context("a picked block is in the port")?;
        seed_store.remove(*seed_id);
        let started = Instant::now();
        seed_support.removed(seed_store, *seed_id, &block);
        let groups = seed_support.update(seed_store, field);
        let time = started.elapsed();
        seed_store.restore(*seed_id, block);
        Ok((time, groups.iter().map(Vec::len).sum()))
    };
    // Whoever goes first fills the field's sample cache: take turns.
    let ((ours_time, ours_fell), (port_time, port_fell)) = if turn % 2 == 0 {
        let ours = run_ours()?;
        (ours, run_port()?)
    } else {
        let port = run_port()?;
        (run_ours()?, port)
    };
    anyhow::ensure!(
        ours_fell == port_fell,
        "breaking a block: blockfall found {ours_fell} loose blocks, the port {port_fell}"
    );
    times.fell += ours_fell;
    times.ours.push(ours_time);
    times.port.push(port_time);
    Ok(())
}

/// [`break_one`] for every pick, in order.
fn break_all<S: blockfall_game::terrain::Samples>(
    picks: &mut [(blockfall_game::blocks::BlockId, u32)],
    (store, support): SupportSide<'_>,
    (seed_store, seed_support): PortSide<'_>,
    field: &blockfall_game::terrain::Field<S>,
) -> anyhow::Result<BreakTimes> {
    let mut times = BreakTimes::default();
    for (turn, pick) in picks.iter_mut().enumerate() {
        break_one(
            turn,
            pick,
            (&mut *store, &mut *support),
            (&mut *seed_store, &mut *seed_support),
            field,
            &mut times,
        )?;
    }
    Ok(times)
}

fn support_benchmark(target: usize, breaks: usize, platform: usize) -> anyhow::Result<()> {
    use blockfall_engine::workers::WorkerPool;
    use blockfall_game::blocks::store::BlockStore;
    use blockfall_game::support::{ground_holds, Support};
    use blockfall_game::terrain::{EditStore, Field, Generator};
    use blockfall_tools::city::{build_city, build_platform, Rng};
    use blockfall_tools::seed_support::{SeedStore, SeedSupport};

    let generator = Generator::new(Generator::DEFAULT_SEED);
    let field = Field::new(EditStore::new(std::sync::Arc::new(generator.clone())));
    let surface = |x: f32, z: f32| generator.surface_height(x, z);
    let started = Instant::now();
    let mut store = BlockStore::new();
    let city = build_city(&mut store, &field, surface, target, 5)?;
    let city_ids: Vec<_> = store.iter().map(|(id, _)| id).collect();
    // The platform stands apart, east of the city.
    let (pillar_top, platform_blocks) =
        build_platform(&mut store, &field, surface, 1000, 0, platform)?;
    let _ = store.drain_events().count();
    println!(
        "city: {} buildings, {} bridges, {} blocks; platform of {platform_blocks} blocks on one \
         pillar; {} blocks in all, built in {:.1} s",
        city.buildings,
        city.bridges,
        city.blocks,
        store.count(),
        started.elapsed().as_secs_f64()
    );

    // The port's own store of the same blocks.
    let mut seed_store = SeedStore::new();
    let mut pairs = Vec::with_capacity(store.count());
    for (id, block) in store.iter() {
        let seed_id = seed_store
            .add(*block)
            .context("the port's store refused a block")?;
        pairs.push((id, seed_id));
    }
    pairs.sort_unstable();
    let seed_of = |id| {
        pairs
            .binary_search_by_key(&id, |&(ours, _)| ours)
            .map(|at| pairs[at].1)
    };
    let mut picks_rng = Rng::new(99);
    let mut picks: Vec<_> = (0..breaks)
        .map(|_| {
            let id = city_ids[picks_rng.next_u64() as usize % city_ids.len()];
            (
                id,
                seed_of(id).expect("every city block is in the port's store"),
            )
        })
        .collect();
    picks.sort_unstable();
    picks.dedup();
    // Shuffled again, so that neighbouring picks are not searched one after another.
    for i in (1..picks.len()).rev() {
        picks.swap(i, picks_rng.next_u64() as usize % (i + 1));
    }

    let half = picks.len() / 2;
    let (cold_picks, warm_picks) = picks.split_at_mut(half);

    // Cold: nothing known yet; every search tests the ground it meets.
    let mut support = Support::new();
    let mut seed_support = SeedSupport::new();
    let mut times = break_all(
        cold_picks,
        (&mut store, &mut support),
        (&mut seed_store, &mut seed_support),
        &field,
    )?;
    let counters = support.counters();
    println!(
        "cold: {} random city blocks broken (and put back), {} blocks fell; blockfall made {:.1} \
         searches, looked at {:.1} blocks and tested the ground under {:.1} per break",
        cold_picks.len(),
        times.fell,
        counters.searches as f64 / cold_picks.len() as f64,
        counters.visited as f64 / cold_picks.len() as f64,
        counters.ground_tests as f64 / cold_picks.len() as f64,
    );
    report(
        "cold: loose groups after breaking one block",
        &mut times.ours,
        &mut times.port,
    );

    // Warm: the support has surveyed every block (ground answers on the workers, kept ways to
    // the ground); the port's ground cache holds every block.
    let pool = WorkerPool::new(2)?;
    let started = Instant::now();
    let loose = support.survey(&store, &field, &pool);
    let survey_time = started.elapsed();
    let started = Instant::now();
    seed_support.warm(&seed_store, &field);
    println!(
        "survey of {} blocks: {:.2} s on 2 threads ({} loose groups); the port's ground cache \
         filled in {:.2} s",
        store.count(),
        survey_time.as_secs_f64(),
        loose.len(),
        started.elapsed().as_secs_f64()
    );
    let before = support.counters();
    let mut times = break_all(
        warm_picks,
        (&mut store, &mut support),
        (&mut seed_store, &mut seed_support),
        &field,
    )?;
    let counters = support.counters();
    println!(
        "warm: {} other random city blocks broken (and put back), {} blocks fell; blockfall made \
         {:.1} searches, looked at {:.1} blocks, walked {:.1} steps of kept ways and tested the \
         ground under {:.1} per break",
        warm_picks.len(),
        times.fell,
        (counters.searches - before.searches) as f64 / warm_picks.len() as f64,
        (counters.visited - before.visited) as f64 / warm_picks.len() as f64,
        (counters.way_steps - before.way_steps) as f64 / warm_picks.len() as f64,
        (counters.ground_tests - before.ground_tests) as f64 / warm_picks.len() as f64,
    );
    report(
        "warm: loose groups after breaking one block",
        &mut times.ours,
        &mut times.port,
    );
    let _ = store.drain_events().count();

    let (mut ours, mut port) = (Vec::new(), Vec::new());
    let mut falling = 0;
    for (turn, &(id, seed_id)) in warm_picks.iter().enumerate() {
        let mut run_ours = || {
            let started = Instant::now();
            let count = support.would_fall(&store, &field, id).len();
            (started.elapsed(), count)
        };
        let mut run_port = || {
            let started = Instant::now();
            let count = seed_support
                .would_fall(&seed_store, &field, seed_id, 0)
                .len();
            (started.elapsed(), count)
        };
        let ((ours_time, ours_count), (port_time, port_count)) = if turn % 2 == 0 {
            let a = run_ours();
            (a, run_port())
        } else {
            let b = run_port();
            (run_ours(), b)
        };
        anyhow::ensure!(
            ours_count == port_count,
            "would_fall: blockfall says {ours_count} blocks, the port {port_count}"
        );
        falling += ours_count;
        ours.push(ours_time);
        port.push(port_time);
    }
    println!(
        "warm: {} random city blocks aimed at; {falling} would fall in all",
        warm_picks.len()
    );
    report("warm: would_fall on one block", &mut ours, &mut port);

    // The worst case: the pillar's top block, the platform's only support. The field's samples
    // are made first, so that both searches find them ready and differ only in the search.
    let pillar_block = *store.get(pillar_top).context("the pillar's top block")?;
    for (_, block) in store.iter() {
        if block.y >= pillar_block.y {
            ground_holds(block, &field);
        }
    }
    let seed_pillar = seed_of(pillar_top).expect("the pillar is in the port");
    let block = store.remove(pillar_top).context("the pillar's top block")?;
    let started = Instant::now();
    support.removed(&store, pillar_top, &block);
    let groups = support.update(&store, &field);
    let ours_time = started.elapsed();
    let ours_fell: usize = groups.iter().map(Vec::len).sum();
    seed_store.remove(seed_pillar);
    let started = Instant::now();
    seed_support.removed(&seed_store, seed_pillar, &block);
    let groups = seed_support.update(&seed_store, &field);
    let port_time = started.elapsed();
    let port_fell: usize = groups.iter().map(Vec::len).sum();
    anyhow::ensure!(
        ours_fell == port_fell,
        "the platform: blockfall found {ours_fell} loose blocks, the port {port_fell}"
    );
    println!(
        "cutting the only support of {ours_fell} blocks: blockfall {:.1} ms, seed port {:.1} ms \
         ({:.1}×)",
        ours_time.as_secs_f64() * 1e3,
        port_time.as_secs_f64() * 1e3,
        port_time.as_secs_f64() / ours_time.as_secs_f64()
    );
    Ok(())
}

fn light_benchmark(chunk_count: u32) -> anyhow::Result<()> {
    use blockfall_engine::workers::WorkerPool;
    use blockfall_game::terrain::{chunks, light, ChunkKind};

    let (edits, coords) = world_chunks(chunk_count, |edits, coord| {
        chunks::classify(edits, coord) == ChunkKind::Mixed
    });
    // The game lights only the chunks whose samples hold a surface (see
    // `terrain::streaming::prepare`): the bounds above let through a few all air or all ground.
    let mut samples = Vec::new();
    let lit: Vec<_> = coords
        .iter()
        .copied()
        .filter(|&coord| {
            chunks::fill_padded_grid_or_skip(&edits, coord, &mut samples) == ChunkKind::Mixed
        })
        .collect();
    println!(
        "sky light of the default world: {} chunks that may hold a surface, nearest the spawn point; \
         {} of them hold one (the chunks the game lights)",
        coords.len(),
        lit.len()
    );
    for threads in [1, 2] {
        let pool = WorkerPool::new(threads)?;
        for (set, name) in [(&coords, "all"), (&lit, "with a surface")] {
            let mut best = Duration::MAX;
            let mut through_caves = 0;
            for _ in 0..3 {
                let started = Instant::now();
                let grids = light::light_grids(&pool, &edits, set);
                best = best.min(started.elapsed());
                anyhow::ensure!(grids.len() == set.len());
                through_caves = grids
                    .iter()
                    .filter(|grid| grid.values.iter().any(|&v| v > 0.0 && v < 1.0))
                    .count();
            }
            println!(
                "{threads} thread{}, {name}: {:.2} ms per chunk ({:.0} ms for {}; {through_caves} \
                 with light through caves)",
                if threads == 1 { "" } else { "s" },
                best.as_secs_f64() * 1000.0 / set.len().max(1) as f64,
                best.as_secs_f64() * 1000.0,
                set.len()
            );
        }
    }
    Ok(())
}

fn gpu_mesh_benchmark(chunk_count: u32, preferred: Option<usize>) -> anyhow::Result<()> {
    use blockfall::shaders::LIBRARY;
    use blockfall_engine::gpu::FrameRing;
    use blockfall_engine::meshing::{
        DensityGrid, GpuSurfaceNets, GridRegion, SurfaceMesh, SurfaceNets,
    };
    use blockfall_game::terrain::{chunks, ChunkKind};

    let (edits, coords) = world_chunks(chunk_count, |edits, coord| {
        chunks::classify(edits, coord) == ChunkKind::Mixed
    });
    let grids: Vec<Vec<f32>> = coords
        .iter()
        .map(|&coord| {
            let mut samples = Vec::new();
            chunks::fill_padded_grid(&edits, coord, &mut samples);
            samples
        })
        .filter(|samples| !blockfall_engine::meshing::is_uniform(samples))
        .collect();
    let dims = [PADDED; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let mut gpu = blockfall_tools::bench_gpu(preferred)?;
    anyhow::ensure!(
        gpu.device.adapter.timestamps,
        "{} writes no timestamps: the GPU time cannot be measured",
        gpu.device.adapter.name
    );
    let device = gpu.device.clone();
    let mut mesher = GpuSurfaceNets::new(&device, &LIBRARY)?;
    let mut frames = FrameRing::new(&device)?;
    // Warm-up: pipelines' first use.
    mesher.mesh(
        &mut gpu,
        &mut frames,
        DensityGrid::new(&grids[0], dims)?,
        region,
    )?;
    frames.wait_all()?;
    let mut passes: Vec<(String, f64)> = Vec::new();
    let mut total = 0.0;
    for samples in &grids {
        mesher.mesh(
            &mut gpu,
            &mut frames,
            DensityGrid::new(samples, dims)?,
            region,
        )?;
        frames.wait_all()?;
        for (index, timing) in frames.last_timings().iter().enumerate() {
            if index == 0 {
                total += timing.milliseconds;
            }
            match passes.get_mut(index) {
                Some((_, sum)) => *sum += timing.milliseconds,
                None => passes.push((timing.name.clone(), timing.milliseconds)),
            }
        }
    }
    let count = grids.len() as f64;
    let samples = count * (PADDED * PADDED * PADDED) as f64;
    let mut cpu = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let started = Instant::now();
    for samples in &grids {
        mesh.clear();
        cpu.mesh(DensityGrid::new(samples, dims)?, region, &mut mesh)?;
    }
    let cpu_ms = started.elapsed().as_secs_f64() * 1000.0 / count;
    println!(
        "compute surface nets on {} ({}): {} chunks of the default world with a surface, {PADDED}³ \
         samples each",
        gpu.device.adapter.name,
        gpu.device.adapter.driver_info,
        grids.len()
    );
    println!(
        "GPU: {:.2} ms per chunk ({:.1} M samples per second); passes: {}",
        total / count,
        samples / (total / 1000.0) / 1e6,
        passes
            .iter()
            .skip(1)
            .map(|(name, sum)| format!("{name} {:.2} ms", sum / count))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("CPU mesher, 1 thread: {cpu_ms:.2} ms per chunk");
    Ok(())
}
