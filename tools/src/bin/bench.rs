//! Benchmarks, run by hand; results go to BENCHMARKS.md with the command that made them. This
//! binary reads the command line and runs one of them; each is a module of
//! `blockfall_tools::bench`, which says what it measures.
//!
//! - `bench -- frames [--frames N] [--width W] [--height H] [--gpu N]`: GPU start-up time, and
//!   the headless frame time of the test scene.
//! - `bench -- surface-nets [--repeats N] [--chunks N]`: the CPU surface nets against
//!   `fast-surface-nets` 0.2, and the CPU marching cubes against Bourke's, on a sphere, a dense
//!   sine field and the chunks nearest the spawn point, in one run.
//! - `bench -- density [--chunks N]`: samples of the default world per second on 1 and 2
//!   threads.
//! - `bench -- digs [--digs N] [--spread M]`: the edit store's bytes for one 64 m dig and after
//!   `N` digs of 8–64 m within `M` meters of the spawn point, the process's resident memory,
//!   and density samples per second under digs.
//! - `bench -- light [--chunks N]`: sky light grids of the chunks around the spawn point per
//!   second.
//! - `bench -- gpu-mesh [--chunks N] [--gpu N] [--mesher surface-nets|marching-cubes]`: GPU
//!   time per chunk of a compute mesher (timestamps per pass), samples meshed per second, and
//!   the same mesher on the CPU on the same chunks.
//! - `bench -- nearest [--queries N]`: `nearest()` queries per second on 1 and 2 threads,
//!   terrain only and inside a dense block structure.
//! - `bench -- support [--blocks N] [--breaks N] [--platform N]`: the support search on a
//!   generated city of about a million blocks, against a direct port of the original TypeScript
//!   search (the baseline), in one run.
//! - `bench -- physics [--pieces N] [--steps N] [--repeats N] [--seed N] [--no-capacity]
//!   [--no-strength] [--only-awake N] [--equal-work [--only-heap|--only-pyramid [--threads N]]]`: the heap, drop
//!   and pyramid scenes stepped by blockfall's physics core, rapier3d 0.36 and (built with
//!   `--features jolt`) Jolt 5, each at its defaults and the others at blockfall's 8
//!   iterations, on 1 and 2 threads; the most awake 4×4×4 pieces blockfall steps within
//!   8.33 ms on 2 threads; last the line `anchors: heap 1t A×, 2t B×; drop …; pyramid …` (the
//!   faster other engine's time per step over blockfall's). With `--only-awake`, only that
//!   many awake pieces timed; with `--equal-work`, every engine with sleeping off, the others
//!   also at 8 iterations, on the drop scene and the heap; with `--only-heap` (or
//!   `--only-pyramid`) as well, only blockfall's side of that scene, for profiling.
//! - `bench -- startup [--radius N] [--frames N] [--width W] [--height H] [--gpu N]`: every
//!   chunk within the view radius of the spawn loaded, lit and meshed on the GPU, then the
//!   world's frame time.
//! - `bench -- saves [--digs N] [--blocks N]`: save and load times and file sizes of the
//!   default world after digs and of a generated city of about a million blocks.

use blockfall_engine::meshing::Mesher;
use blockfall_tools::bench;
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
    /// The support search on a generated city, against a port of the original search.
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
    /// Saving and loading: the default world after digs, and a generated city.
    Saves {
        /// Digs of the terrain tool's sphere around the spawn point.
        #[arg(long, default_value_t = 100)]
        digs: u32,
        /// About how many blocks the city has.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u32).range(1000..))]
        blocks: u32,
    },
    /// Falling and stacked pieces: blockfall's physics core against rapier3d (and Jolt, built
    /// with `--features jolt`), on 1 and 2 threads.
    Physics {
        /// Pieces (1 to 64 blocks each) of the drop scene, dropped onto the default world.
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
        /// Do not judge strength after blockfall's steps (to see what it costs).
        #[arg(long)]
        no_strength: bool,
        /// Only time this many awake 4×4×4 pieces on 1 and 2 threads (for profiling).
        #[arg(long)]
        only_awake: Option<usize>,
        /// Instead: every engine at equal work (sleeping off, the others also at 8 solver
        /// iterations) on the drop scene and a heap of 400 pieces in a pit.
        #[arg(long, conflicts_with = "only_awake")]
        equal_work: bool,
        /// With `--equal-work`: only blockfall's side of the heap scene (for profiling).
        #[arg(long, requires = "equal_work")]
        only_heap: bool,
        /// With `--equal-work`: only blockfall's side of the pyramid (for profiling).
        #[arg(long, requires = "equal_work", conflicts_with = "only_heap")]
        only_pyramid: bool,
        /// With `--only-heap` or `--only-pyramid`: this thread count alone instead of 1 and 2
        /// (for a profiler).
        #[arg(
            long,
            requires = "equal_work",
            value_parser = clap::value_parser!(u32).range(1..=blockfall_physics::workers::MAX_THREADS as i64)
        )]
        threads: Option<u32>,
    },
    /// Compute-shader surface nets on the default world's chunks, against the CPU mesher.
    GpuMesh {
        /// Chunks nearest the spawn point that may hold a surface.
        #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
        #[arg(long)]
        gpu: Option<usize>,
        /// `surface-nets` or `marching-cubes`.
        #[arg(long, value_parser = Mesher::from_name, default_value = "surface-nets")]
        mesher: Mesher,
    },
    /// The blocks' ambient occlusion: a dense region meshed without and with it.
    Occlusion,
    /// Sky light grids of the default world's chunks per second, on 1 and 2 threads.
    Light {
        /// Chunks nearest the spawn point that may hold a surface (proven ones are skipped).
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
    },
    /// Startup: every chunk within the view radius of the spawn loaded, lit and meshed on the
    /// GPU; then the world's frame time.
    Startup {
        /// The view radius, in chunks of full detail (32 m); `--radius` is the same.
        #[arg(
            long = "view-radius",
            alias = "radius",
            default_value_t = 8,
            value_parser = clap::value_parser!(u32).range(1..=32)
        )]
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
    /// The memory a dig costs (docs/terrain.md, "How edits are kept"), and sampling under digs.
    Digs {
        /// Digs of 8–64 m at random places on the ground through the world's dig path.
        #[arg(long, default_value_t = 200)]
        digs: u32,
        /// How far from the spawn point (in x and z, meters) the digs may be.
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(i32).range(0..=100_000))]
        spread: i32,
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
        } => bench::frames::run(frames, width, height, gpu),
        Benchmark::SurfaceNets { repeats, chunks } => bench::surface_nets::run(repeats, chunks),
        Benchmark::Density { chunks } => bench::density::run(chunks),
        Benchmark::Digs { digs, spread } => bench::digs::run(digs as usize, spread),
        Benchmark::Startup {
            radius,
            frames,
            width,
            height,
            gpu,
        } => bench::startup::run(radius, frames, width, height, gpu),
        Benchmark::Light { chunks } => bench::light::run(chunks),
        Benchmark::Occlusion => bench::occlusion::run(),
        Benchmark::GpuMesh {
            chunks,
            gpu,
            mesher,
        } => bench::gpu_mesh::run(chunks, gpu, mesher),
        Benchmark::Nearest { queries } => bench::nearest::run(queries),
        Benchmark::Physics {
            pieces,
            steps,
            repeats,
            seed,
            no_capacity,
            no_strength,
            only_awake,
            equal_work,
            only_heap,
            only_pyramid,
            threads,
        } => match only_awake {
            Some(count) => bench::physics::run_awake(count, repeats),
            None if only_heap || only_pyramid => {
                let threads = threads.map_or(vec![1, 2], |count| vec![count as usize]);
                bench::physics::run_heap_only(steps, repeats, seed, &threads, only_pyramid)
            }
            None if equal_work => {
                bench::physics::run_equal_work(pieces as usize, steps, repeats, seed)
            }
            None => bench::physics::run(
                pieces as usize,
                steps,
                repeats,
                seed,
                !no_capacity,
                !no_strength,
            ),
        },
        Benchmark::Support {
            blocks,
            breaks,
            platform,
        } => bench::support::run(blocks as usize, breaks as usize, platform as usize),
        Benchmark::Saves { digs, blocks } => bench::saves::run(digs as usize, blocks as usize),
    }
}
