//! Compute-shader surface nets against the CPU mesher: for a sphere, for 20 chunks of the
//! default world and for grids smaller than a chunk, the GPU's vertices equal the CPU's as sets
//! (positions within 1e-4, normals within 1e-3) and so do the triangles, winding included.
//! Uniform grids give empty meshes; grids the mesher cannot take are errors, not panics.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use blockfall::shaders::LIBRARY;
use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_engine::meshing::gpu::PASS_NAME;
use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GpuMeshError, GpuSurfaceNets, GridRegion, MeshError, SurfaceMesh,
    SurfaceNets,
};
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order};
use blockfall_game::terrain::{EditStore, Generator, PADDED_SIZE};

use common::assert_no_validation_errors;

const POSITION_TOLERANCE: f32 = 1e-4;
const NORMAL_TOLERANCE: f32 = 1e-3;

/// How a GPU mesh compared with the CPU's.
#[derive(Debug, Default, Clone, Copy)]
struct Comparison {
    vertices: usize,
    triangles: usize,
    max_position_deviation: f32,
    max_normal_deviation: f32,
    /// The same vertices and indices in the same order, to the bit.
    identical: bool,
}

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

/// Matches every GPU vertex to the nearest CPU vertex (one to one), then compares the
/// triangles through that matching as rotation-normalised triples, winding kept.
fn compare(cpu: &SurfaceMesh, gpu: &SurfaceMesh, what: &str) -> Comparison {
    assert_eq!(
        gpu.positions.len(),
        cpu.positions.len(),
        "{what}: vertex count"
    );
    assert_eq!(gpu.normals.len(), gpu.positions.len(), "{what}: normals");
    assert_eq!(gpu.indices.len(), cpu.indices.len(), "{what}: index count");
    let identical = gpu == cpu;

    // CPU vertices bucketed by the unit cube they lie in; a match lies in a neighbouring one.
    let bucket = |p: [f32; 3]| p.map(|v| v.floor() as i32);
    let mut buckets: HashMap<[i32; 3], Vec<usize>> = HashMap::new();
    for (index, &position) in cpu.positions.iter().enumerate() {
        buckets.entry(bucket(position)).or_default().push(index);
    }
    let mut gpu_to_cpu = vec![0u32; gpu.positions.len()];
    let mut taken = vec![false; cpu.positions.len()];
    let mut max_position_deviation = 0.0f32;
    let mut max_normal_deviation = 0.0f32;
    for (gpu_index, &position) in gpu.positions.iter().enumerate() {
        let [bx, by, bz] = bucket(position);
        let mut nearest: Option<(f32, usize)> = None;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for &cpu_index in buckets
                        .get(&[bx + dx, by + dy, bz + dz])
                        .into_iter()
                        .flatten()
                    {
                        let distance = distance(position, cpu.positions[cpu_index]);
                        if nearest.is_none_or(|(best, _)| distance < best) {
                            nearest = Some((distance, cpu_index));
                        }
                    }
                }
            }
        }
        let Some((deviation, cpu_index)) = nearest else {
            panic!("{what}: GPU vertex {gpu_index} at {position:?} has no CPU vertex near it");
        };
        assert!(
            deviation <= POSITION_TOLERANCE,
            "{what}: GPU vertex {gpu_index} at {position:?} is {deviation} from the nearest CPU \
             vertex {:?}",
            cpu.positions[cpu_index]
        );
        assert!(
            !taken[cpu_index],
            "{what}: two GPU vertices match CPU vertex {cpu_index}"
        );
        taken[cpu_index] = true;
        gpu_to_cpu[gpu_index] = cpu_index as u32;
        max_position_deviation = max_position_deviation.max(deviation);
        let normal_deviation = (0..3)
            .map(|axis| (gpu.normals[gpu_index][axis] - cpu.normals[cpu_index][axis]).abs())
            .fold(0.0f32, f32::max);
        assert!(
            normal_deviation <= NORMAL_TOLERANCE,
            "{what}: normal of GPU vertex {gpu_index} is {:?}, the CPU's {:?}",
            gpu.normals[gpu_index],
            cpu.normals[cpu_index]
        );
        max_normal_deviation = max_normal_deviation.max(normal_deviation);
    }

    let cpu_triangles = normalised_triangles(&cpu.indices, |index| index);
    let gpu_triangles = normalised_triangles(&gpu.indices, |index| gpu_to_cpu[index as usize]);
    let differing = cpu_triangles
        .iter()
        .zip(&gpu_triangles)
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        cpu_triangles == gpu_triangles,
        "{what}: {differing} of {} triangles differ after matching vertices; first CPU-only: \
         {:?}",
        cpu_triangles.len(),
        cpu_triangles
            .iter()
            .find(|triangle| gpu_triangles.binary_search(triangle).is_err())
    );
    Comparison {
        vertices: cpu.positions.len(),
        triangles: cpu_triangles.len(),
        max_position_deviation,
        max_normal_deviation,
        identical,
    }
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Each triangle rotated to start at its smallest index (the cyclic order, hence the winding,
/// kept), then all sorted.
fn normalised_triangles(indices: &[u32], map: impl Fn(u32) -> u32) -> Vec<[u32; 3]> {
    let mut triangles: Vec<[u32; 3]> = indices
        .chunks_exact(3)
        .map(|triangle| {
            let [a, b, c] = [map(triangle[0]), map(triangle[1]), map(triangle[2])];
            if a <= b && a <= c {
                [a, b, c]
            } else if b <= a && b <= c {
                [b, c, a]
            } else {
                [c, a, b]
            }
        })
        .collect();
    triangles.sort_unstable();
    triangles
}

fn sphere_grid(dims: [usize; 3], centre: [f32; 3], radius: f32) -> Vec<f32> {
    let mut samples = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                let offset = [
                    x as f32 - centre[0],
                    y as f32 - centre[1],
                    z as f32 - centre[2],
                ];
                let length =
                    (offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2]).sqrt();
                samples.push(radius - length);
            }
        }
    }
    samples
}

#[test]
fn a_sphere_meshes_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuSurfaceNets::new(&device, &LIBRARY).unwrap();
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
    let mut mesher = GpuSurfaceNets::new(&device, &LIBRARY).unwrap();
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
    let mut mesher = GpuSurfaceNets::new(&device, &LIBRARY).unwrap();
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
    let mut mesher = GpuSurfaceNets::new(&device, &LIBRARY).unwrap();
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
