//! Compute-shader surface nets against the CPU mesher: for a sphere, for 20 chunks of the
//! default world and for grids smaller than a chunk, the GPU's vertices equal the CPU's as sets
//! (positions within 1e-4, normals within 1e-3) and so do the triangles, winding included.
//! Uniform grids give empty meshes; grids the mesher cannot take are errors, not panics.

mod common;

use std::sync::Arc;
use std::time::Instant;

use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_engine::meshing::gpu::PASS_NAME;
use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GpuMeshError, GpuSurfaceNets, GridRegion, MeshError, SurfaceMesh,
    SurfaceNets,
};
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order};
use blockfall_game::terrain::{EditStore, Generator, PADDED_SIZE};

use common::assert_no_validation_errors;
use common::meshes::{compare, sphere_grid, Comparison};

/// The CPU reference mesh of a padded grid (or of `region`).
fn cpu_mesh(samples: &[f32], dims: [usize; 3], region: GridRegion) -> SurfaceMesh {
    let mut mesh = SurfaceMesh::new();
    SurfaceNets::new()
        .mesh(DensityGrid::new(samples, dims).unwrap(), region, &mut mesh)
        .unwrap();
    mesh
}

/// Meshes on the GPU and reads back; returns the mesh and the GPU times of the whole mesh and
/// of its four passes (ms; empty when the device has no timestamps).
fn gpu_mesh(
    gpu: &mut Gpu,
    mesher: &mut GpuSurfaceNets,
    frames: &mut FrameRing,
    samples: &[f32],
    dims: [usize; 3],
    region: GridRegion,
) -> (SurfaceMesh, Vec<f64>) {
    let grid = DensityGrid::new(samples, dims).unwrap();
    mesher.mesh(gpu, frames, grid, region).unwrap();
    frames.wait_all().unwrap();
    let timings = frames.last_timings();
    let milliseconds = timings.iter().map(|t| t.milliseconds).collect();
    if gpu.device.adapter.timestamps {
        let names: Vec<&str> = timings.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                PASS_NAME,
                "surface nets: count",
                "surface nets: scan",
                "surface nets: vertices",
                "surface nets: quads"
            ],
            "every pass is labelled and timed"
        );
    }
    (mesher.read_back().unwrap(), milliseconds)
}

#[test]
fn a_sphere_meshes_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuSurfaceNets::new(&device).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();
    let dims = [PADDED_SIZE; 3];
    let samples = sphere_grid(dims, [16.6, 17.2, 16.9], 10.0);
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let cpu = cpu_mesh(&samples, dims, region);
    let (gpu_result, milliseconds) =
        gpu_mesh(&mut gpu, &mut mesher, &mut frames, &samples, dims, region);
    let comparison = compare(&cpu, &gpu_result, "sphere");
    assert!(comparison.triangles > 1000, "{comparison:?}");
    eprintln!("sphere: {comparison:?}; GPU ms, whole then per pass: {milliseconds:?}");
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn twenty_chunks_of_the_world_mesh_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuSurfaceNets::new(&device).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();
    let edits = EditStore::new(Arc::new(Generator::new(Generator::DEFAULT_SEED)));
    let spawn = edits.generator().spawn_point();
    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);

    let mut samples = Vec::new();
    let mut meshed = 0;
    let mut totals = Comparison {
        identical: true,
        ..Default::default()
    };
    let mut gpu_milliseconds = Vec::new();
    let mut cpu_seconds = 0.0;
    for coord in load_order(spawn, 4) {
        if meshed == 20 {
            break;
        }
        fill_padded_grid(&edits, coord, &mut samples);
        if is_uniform(&samples) {
            continue;
        }
        let started = Instant::now();
        let cpu = cpu_mesh(&samples, dims, region);
        cpu_seconds += started.elapsed().as_secs_f64();
        let (gpu_result, milliseconds) =
            gpu_mesh(&mut gpu, &mut mesher, &mut frames, &samples, dims, region);
        let comparison = compare(&cpu, &gpu_result, &format!("chunk {coord:?}"));
        totals.vertices += comparison.vertices;
        totals.triangles += comparison.triangles;
        totals.max_position_deviation = totals
            .max_position_deviation
            .max(comparison.max_position_deviation);
        totals.max_normal_deviation = totals
            .max_normal_deviation
            .max(comparison.max_normal_deviation);
        totals.identical &= comparison.identical;
        if !milliseconds.is_empty() {
            gpu_milliseconds.push(milliseconds);
        }
        meshed += 1;
    }
    assert_eq!(
        meshed, 20,
        "20 chunks with a surface within 4 chunks of spawn"
    );
    assert!(totals.triangles > 0);
    // Per pass (whole mesh, count, scan, vertices, quads): mean and max over the chunks.
    let timed = gpu_milliseconds.len().max(1) as f64;
    let passes: Vec<String> = (0..5)
        .map(|pass| {
            let times = gpu_milliseconds.iter().map(|chunk| chunk[pass]);
            let max = times.clone().fold(0.0, f64::max);
            format!("{:.3}/{max:.3}", times.sum::<f64>() / timed)
        })
        .collect();
    eprintln!(
        "20 chunks: {totals:?}; GPU ms per chunk, mean/max, whole [count, scan, vertices, \
         quads]: {} [{}] ({} timed); CPU mesher {:.3} ms per chunk",
        passes[0],
        passes[1..].join(", "),
        gpu_milliseconds.len(),
        cpu_seconds * 1e3 / 20.0
    );
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn grids_smaller_than_a_chunk_and_whole_regions_mesh_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuSurfaceNets::new(&device).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();
    for (dims, centre, radius) in [
        ([10, 12, 7], [4.3, 5.6, 3.2], 3.7),
        ([34, 5, 20], [17.1, 2.4, 9.8], 8.3),
        ([2, 2, 2], [0.4, 0.6, 0.3], 0.5),
    ] {
        let samples = sphere_grid(dims, centre, radius);
        for region in [
            GridRegion::whole(dims),
            GridRegion::owned_edges_of_padded_grid(dims),
        ] {
            let cpu = cpu_mesh(&samples, dims, region);
            let (gpu_result, _) =
                gpu_mesh(&mut gpu, &mut mesher, &mut frames, &samples, dims, region);
            compare(&cpu, &gpu_result, &format!("{dims:?} {region:?}"));
        }
    }
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn uniform_grids_give_empty_meshes_and_bad_grids_are_errors() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuSurfaceNets::new(&device).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();

    // Nothing meshed yet: nothing to record or read.
    frames.begin().unwrap();
    assert!(matches!(
        mesher.record(&mut frames),
        Err(GpuMeshError::Gpu(_))
    ));
    frames.abandon().unwrap();
    assert!(mesher.read_back().is_err());

    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    for value in [-1.0f32, 0.0, 2.5] {
        let samples = vec![value; PADDED_SIZE.pow(3)];
        let (mesh, _) = gpu_mesh(&mut gpu, &mut mesher, &mut frames, &samples, dims, region);
        assert!(mesh.positions.is_empty(), "uniform {value}: vertices");
        assert!(mesh.normals.is_empty(), "uniform {value}: normals");
        assert!(mesh.indices.is_empty(), "uniform {value}: indices");
    }

    let too_large = [PADDED_SIZE + 1, PADDED_SIZE, PADDED_SIZE];
    let samples = vec![1.0f32; too_large.iter().product()];
    let grid = DensityGrid::new(&samples, too_large).unwrap();
    let result = mesher.mesh(&mut gpu, &mut frames, grid, GridRegion::whole(too_large));
    assert!(
        matches!(result, Err(GpuMeshError::TooLarge { dims, max: 34 }) if dims == too_large),
        "{result:?}"
    );

    let mut samples = sphere_grid(dims, [16.5, 16.5, 16.5], 9.0);
    let outside = GridRegion {
        min: [0; 3],
        max: [PADDED_SIZE + 1, PADDED_SIZE, PADDED_SIZE],
    };
    let grid = DensityGrid::new(&samples, dims).unwrap();
    let result = mesher.mesh(&mut gpu, &mut frames, grid, outside);
    assert!(
        matches!(
            result,
            Err(GpuMeshError::Grid(MeshError::RegionOutsideGrid { .. }))
        ),
        "{result:?}"
    );
    samples[1000] = f32::NAN;
    let grid = DensityGrid::new(&samples, dims).unwrap();
    let result = mesher.mesh(&mut gpu, &mut frames, grid, region);
    assert!(
        matches!(
            result,
            Err(GpuMeshError::Grid(MeshError::NotFinite { index: 1000, .. }))
        ),
        "{result:?}"
    );
    // A failed upload leaves nothing to read back rather than a stale mesh.
    assert!(mesher.read_back().is_err());
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}
