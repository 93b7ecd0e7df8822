//! Reading GPU meshes back to check them against the CPU: the compute mesher's mesh of a grid,
//! a resident chunk's mesh and light out of the terrain arenas (found through its draw command,
//! which is checked against the bookkeeping), the timed passes of a frame, and padded grids
//! meshed on the GPU and the CPU one after another and compared.
//!
use std::time::Instant;

use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_engine::meshing::gpu::PASS_NAME;
use blockfall_engine::meshing::terrain_meshes::{
    DrawIndexedIndirect, ResidentChunk, TerrainReadback,
};
use blockfall_engine::meshing::{
    DensityGrid, GpuMesher, GridRegion, Mesher, SurfaceMesh, SurfaceNets,
};

use crate::meshes::{compare, Comparison};

/// How far the GPU's light may lie from the CPU's blend.
pub const LIGHT_TOLERANCE: f32 = 1e-5;

/// The CPU reference mesh of a grid's `region`.
pub fn cpu_mesh(samples: &[f32], dims: [usize; 3], region: GridRegion) -> SurfaceMesh {
    let mut mesh = SurfaceMesh::new();
    SurfaceNets::new()
        .mesh(DensityGrid::new(samples, dims).unwrap(), region, &mut mesh)
        .unwrap();
    mesh
}

/// Waits for every frame; when the device has timestamps, asserts that the last frame's timed
/// passes are `expected`, in order. Returns their GPU times in ms (empty without timestamps).
pub fn assert_timed_passes(
    gpu: &Gpu,
    frames: &mut FrameRing,
    expected: &[&str],
    what: &str,
) -> Vec<f64> {
    frames.wait_all().unwrap();
    let timings = frames.last_timings();
    if gpu.device.adapter.timestamps {
        let names: Vec<&str> = timings.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected, "{what}: every pass is labelled and timed");
    }
    timings.iter().map(|t| t.milliseconds).collect()
}

/// Meshes on the GPU and reads back; returns the mesh and the GPU times of the whole mesh and
/// of its four passes (ms; empty when the device has no timestamps).
pub fn gpu_mesh(
    gpu: &mut Gpu,
    mesher: &mut GpuMesher,
    frames: &mut FrameRing,
    samples: &[f32],
    dims: [usize; 3],
    region: GridRegion,
) -> (SurfaceMesh, Vec<f64>) {
    let grid = DensityGrid::new(samples, dims).unwrap();
    mesher.mesh(gpu, frames, grid, region).unwrap();
    let passes = [
        PASS_NAME,
        "surface nets: count",
        "surface nets: scan",
        "surface nets: vertices",
        "surface nets: quads",
    ];
    let milliseconds = assert_timed_passes(gpu, frames, &passes, "a mesh");
    (mesher.read_back().unwrap(), milliseconds)
}

/// Meshes each padded grid (named, of `dims` samples) on the GPU through one
/// [`GpuMesher`] for surface nets, one after another, and on the CPU; compares each pair ([`compare`]:
/// panics on a difference). Prints the totals, and the GPU time of the whole mesh and of each
/// pass (mean and max over the grids) beside the CPU mesher's. Returns the totals.
pub fn compare_padded_grids(
    gpu: &mut Gpu,
    dims: [usize; 3],
    grids: &[(String, Vec<f32>)],
) -> Comparison {
    let device = gpu.device.clone();
    let mut mesher = GpuMesher::new(&device, Mesher::SurfaceNets).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let mut totals = Comparison {
        identical: true,
        in_order: true,
        ..Default::default()
    };
    let mut gpu_milliseconds = Vec::new();
    let mut cpu_seconds = 0.0;
    for (what, samples) in grids {
        let started = Instant::now();
        let cpu = cpu_mesh(samples, dims, region);
        cpu_seconds += started.elapsed().as_secs_f64();
        let (gpu_result, milliseconds) =
            gpu_mesh(gpu, &mut mesher, &mut frames, samples, dims, region);
        let comparison = compare(&cpu, &gpu_result, what);
        totals.vertices += comparison.vertices;
        totals.triangles += comparison.triangles;
        totals.max_position_deviation = totals
            .max_position_deviation
            .max(comparison.max_position_deviation);
        totals.max_normal_deviation = totals
            .max_normal_deviation
            .max(comparison.max_normal_deviation);
        totals.identical &= comparison.identical;
        totals.in_order &= comparison.in_order;
        if !milliseconds.is_empty() {
            gpu_milliseconds.push(milliseconds);
        }
    }
    // Per pass (whole mesh, count, scan, vertices, quads): mean and max over the grids.
    let timed = gpu_milliseconds.len().max(1) as f64;
    let passes: Vec<String> = (0..5)
        .map(|pass| {
            let times = gpu_milliseconds.iter().map(|grid| grid[pass]);
            let max = times.clone().fold(0.0, f64::max);
            format!("{:.3}/{max:.3}", times.sum::<f64>() / timed)
        })
        .collect();
    eprintln!(
        "{} grids: {totals:?}; GPU ms per grid, mean/max, whole [count, scan, vertices, \
         quads]: {} [{}] ({} timed); CPU mesher {:.3} ms per grid",
        grids.len(),
        passes[0],
        passes[1..].join(", "),
        gpu_milliseconds.len(),
        cpu_seconds * 1e3 / grids.len().max(1) as f64
    );
    totals
}

/// A chunk's light range out of the read-back light arena.
pub fn chunk_light(readback: &TerrainReadback, chunk: ResidentChunk) -> &[f32] {
    let first = chunk.vertices.offset as usize;
    &readback.light[first..first + chunk.vertices.size as usize]
}

/// Asserts that a chunk's light equals, vertex by vertex, what the CPU expects at the CPU
/// mesher's vertices, within `tolerance`; returns the largest deviation.
pub fn check_light(gpu: &[f32], cpu: &[f32], tolerance: f32, what: &str) -> f32 {
    assert_eq!(gpu.len(), cpu.len(), "{what}: light values");
    let mut deviation = 0.0f32;
    for (index, (&gpu, &cpu)) in gpu.iter().zip(cpu).enumerate() {
        assert!(
            (gpu - cpu).abs() <= tolerance,
            "{what}: vertex {index} has light {gpu}, the CPU's {cpu}"
        );
        deviation = deviation.max((gpu - cpu).abs());
    }
    deviation
}

/// A chunk's mesh out of the read-back arenas, found through its draw command (checked against
/// the bookkeeping).
pub fn chunk_mesh(readback: &TerrainReadback, chunk: ResidentChunk) -> SurfaceMesh {
    let draw = readback.draws[chunk.slot as usize];
    assert_eq!(
        draw,
        DrawIndexedIndirect {
            index_count: chunk.indices.size as u32,
            instance_count: 1,
            first_index: chunk.indices.offset as u32,
            vertex_offset: chunk.vertices.offset as i32,
            // Not the slot: a first instance other than 0 needs drawIndirectFirstInstance,
            // which the device does not turn on.
            first_instance: 0,
        },
        "the GPU's draw for {chunk:?}"
    );
    let first_index = draw.first_index as usize;
    let indices = readback.indices[first_index..first_index + draw.index_count as usize].to_vec();
    let vertex_count = chunk.vertices.size as usize;
    assert!(
        indices.iter().all(|&index| (index as usize) < vertex_count),
        "indices stay within the chunk's vertex range"
    );
    let first_float = draw.vertex_offset as usize * 6;
    let floats = &readback.vertices[first_float..first_float + vertex_count * 6];
    let mut mesh = SurfaceMesh::new();
    for vertex in floats.chunks_exact(6) {
        mesh.positions.push([vertex[0], vertex[1], vertex[2]]);
        mesh.normals.push([vertex[3], vertex[4], vertex[5]]);
    }
    mesh.indices = indices;
    mesh
}
