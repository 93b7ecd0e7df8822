//! `bench -- gpu-mesh [--mesher surface-nets|marching-cubes]`: a compute-shader mesher on the
//! default world's chunks with a surface nearest the spawn point: GPU time per chunk (and per
//! pass, from the timestamps), samples meshed per second, and the same mesher on the CPU on the
//! same chunks on 1 thread.

use std::time::Instant;

use blockfall_engine::gpu::FrameRing;
use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GpuMesher, GridRegion, MarchingCubes, MeshError, Mesher, SurfaceMesh,
    SurfaceNets,
};
use blockfall_game::terrain::{chunks, ChunkKind};

use crate::bench::shared::{bench_gpu, padded_grid, world_chunks, PADDED};

/// The CPU reference of the GPU mesher.
enum CpuMesher {
    Nets(SurfaceNets),
    Cubes(MarchingCubes),
}

impl CpuMesher {
    fn new(mesher: Mesher) -> Self {
        match mesher {
            Mesher::SurfaceNets => CpuMesher::Nets(SurfaceNets::new()),
            Mesher::MarchingCubes => CpuMesher::Cubes(MarchingCubes::new()),
        }
    }

    fn mesh(
        &mut self,
        grid: DensityGrid<'_>,
        region: GridRegion,
        mesh: &mut SurfaceMesh,
    ) -> Result<(), MeshError> {
        match self {
            CpuMesher::Nets(mesher) => mesher.mesh(grid, region, mesh),
            CpuMesher::Cubes(mesher) => mesher.mesh(grid, region, mesh),
        }
    }
}

/// Meshes the chunks with a surface among the `chunk_count` nearest the spawn point that may
/// hold one with `mesher`, on the GPU `preferred` (or the best one) and then on the CPU; prints
/// the times.
pub fn run(chunk_count: u32, preferred: Option<usize>, mesher: Mesher) -> anyhow::Result<()> {
    let (edits, coords) = world_chunks(chunk_count, |edits, coord| {
        chunks::classify(edits, coord) == ChunkKind::Mixed
    });
    let grids: Vec<Vec<f32>> = coords
        .iter()
        .map(|&coord| padded_grid(&edits, coord))
        .filter(|samples| !is_uniform(samples))
        .collect();
    let dims = [PADDED; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let mut gpu = bench_gpu(preferred)?;
    anyhow::ensure!(
        gpu.device.adapter.timestamps,
        "{} writes no timestamps: the GPU time cannot be measured",
        gpu.device.adapter.name
    );
    let device = gpu.device.clone();
    let kind = mesher;
    let mut gpu_mesher = GpuMesher::new(&device, kind)?;
    let mut cpu_mesher = CpuMesher::new(kind);
    let mut frames = FrameRing::new(&device)?;
    // Warm-up: pipelines' first use.
    gpu_mesher.mesh(
        &mut gpu,
        &mut frames,
        DensityGrid::new(&grids[0], dims)?,
        region,
    )?;
    frames.wait_all()?;
    let mut passes: Vec<(String, f64)> = Vec::new();
    let mut total = 0.0;
    for samples in &grids {
        gpu_mesher.mesh(
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
    let mut mesh = SurfaceMesh::new();
    let started = Instant::now();
    for samples in &grids {
        mesh.clear();
        cpu_mesher.mesh(DensityGrid::new(samples, dims)?, region, &mut mesh)?;
    }
    let cpu_ms = started.elapsed().as_secs_f64() * 1000.0 / count;
    println!(
        "compute {} on {} ({}): {} chunks of the default world with a surface, {PADDED}³ \
         samples each",
        kind.label().to_lowercase(),
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
