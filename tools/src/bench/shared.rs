//! What several benchmarks use, written once: the GPU they measure, the default world's chunks
//! nearest the spawn point, the deterministic random numbers that make every run ask the same
//! questions, and the summaries of measured times.

use std::sync::Arc;
use std::time::Duration;

use blockfall_game::terrain::{chunks, ChunkCoord, EditStore, Field, Generator, Ground};

/// A padded chunk grid: 32 cells plus one sample of padding on every side.
pub const PADDED: usize = chunks::PADDED_SIZE;

/// The GPU a benchmark measures: device `preferred` or the best one, validation off (it would
/// be measured too).
pub fn bench_gpu(
    preferred: Option<usize>,
) -> Result<blockfall_engine::gpu::Gpu, blockfall_engine::gpu::GpuError> {
    blockfall_engine::gpu::Gpu::headless(&blockfall_engine::gpu::GpuDesc {
        app_name: "blockfall bench".into(),
        validation: false,
        preferred_device: preferred,
        vulkan_1_2_path: false,
    })
}

/// The default world's edits.
pub type WorldEdits = EditStore<Generator>;

/// The default world's edits and the first `count` chunks nearest its spawn point that `keep`
/// keeps.
pub fn world_chunks(
    count: u32,
    keep: impl Fn(&WorldEdits, ChunkCoord) -> bool,
) -> (WorldEdits, Vec<ChunkCoord>) {
    let generator = Arc::new(Generator::new(Generator::DEFAULT_SEED));
    let edits = EditStore::new(generator.clone());
    let coords = chunks::load_order(generator.spawn_point(), 16)
        .into_iter()
        .filter(|&coord| keep(&edits, coord))
        .take(count as usize)
        .collect();
    (edits, coords)
}

/// A world's density field as the benchmarks use it: the ground behind `dyn Ground`, edited.
pub type BenchField = Field<EditStore<dyn Ground>>;

/// The field of the world of `generator` as the game sees it: the terrain behind `dyn Ground`,
/// no edits yet.
pub fn world_field(generator: &Generator) -> BenchField {
    let world: Arc<dyn Ground> = Arc::new(generator.clone());
    Field::new(EditStore::new(world))
}

/// The padded density grid of the chunk at `coord`, every sample worked out.
pub fn padded_grid(edits: &WorldEdits, coord: ChunkCoord) -> Vec<f32> {
    let mut samples = Vec::new();
    chunks::fill_padded_grid(edits, coord, &mut samples);
    samples
}

/// A small deterministic sequence in [0, 1), so every run asks the same points.
pub struct Sequence(pub u64);

impl Sequence {
    /// The next number of the sequence, in [0, 1).
    pub fn next_unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A small deterministic generator (xorshift), so a city or a scene is the same on every run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: i32, high: i32) -> i32 {
        let span = (high - low + 1).max(1) as u64;
        low + (self.next_u64() % span) as i32
    }
}

/// "thread" or "threads", as `threads` asks.
pub fn threads_word(threads: usize) -> &'static str {
    if threads == 1 {
        "thread"
    } else {
        "threads"
    }
}

/// The median of some milliseconds (the upper middle one of an even count), sorting them;
/// NaN when there are none.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Median, 99th percentile and mean of some durations, in microseconds.
pub fn spread(times: &mut [Duration]) -> (f64, f64, f64) {
    times.sort_unstable();
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    let at = |share: f64| micros(times[((times.len() - 1) as f64 * share).round() as usize]);
    let mean = times.iter().map(|&d| micros(d)).sum::<f64>() / times.len() as f64;
    (at(0.5), at(0.99), mean)
}
