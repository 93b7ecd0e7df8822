//! Compute-shader marching cubes against the CPU mesher ([`MarchingCubes`]): the GPU's mesh is
//! the CPU's, every index and vertex in the same order, and on an IEEE device (lavapipe, where
//! CI runs them) to the bit — every position and normal compared as bits, so a sign of zero
//! counts; on any other device each float within the tolerances Vulkan's precision needs
//! (`blockfall_test_support::meshes::assert_same`) — for a ball, the dense sine field, random densities
//! full of ambiguous faces, samples so large that gradients overflow, chunk-like terrain grids,
//! padded chunk regions, sub-regions and grids smaller than a chunk; every pass is labelled and
//! timed. Uniform grids give empty meshes; grids the mesher cannot take are the CPU's errors,
//! not panics, and leave nothing to read back.

use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_engine::meshing::gpu_marching_cubes::PASS_NAME;
use blockfall_engine::meshing::marching_cubes::face_is_ambiguous;
use blockfall_engine::meshing::{
    DensityGrid, GpuMeshError, GpuMesher, GridRegion, MarchingCubes, MeshError, Mesher, SurfaceMesh,
};

use crate::common::{self, assert_no_validation_errors};
use crate::grids::{terrain_chunks_at, PADDED_SIZE};
use crate::meshes::assert_same;
use crate::readback::assert_timed_passes;

/// The passes of one mesh, in the order they are timed.
const PASSES: [&str; 5] = [
    PASS_NAME,
    "marching cubes: count",
    "marching cubes: scan",
    "marching cubes: vertices",
    "marching cubes: triangles",
];

/// Samples of `density` at the grid points, x fastest.
fn field(dims: [usize; 3], mut density: impl FnMut([f32; 3]) -> f32) -> Vec<f32> {
    let mut samples = Vec::with_capacity(dims.iter().product());
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                samples.push(density([x as f32, y as f32, z as f32]));
            }
        }
    }
    samples
}

/// A ball of radius 9.37 about a point between the samples (the CPU mesher's test ball).
fn ball(point: [f32; 3]) -> f32 {
    let centre = [16.31, 15.83, 16.57];
    let d = [0, 1, 2].map(|axis| point[axis] - centre[axis]);
    9.37 - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// The benchmark's dense sine field: a surface through most cells.
fn sine([x, y, z]: [f32; 3]) -> f32 {
    (x * 0.9).sin() + (y * 1.3).sin() + (z * 0.7).sin() + 0.3
}

/// Random densities in [-1, 1], a thousandth apart, exact zeros among them (outside, and a
/// crossing at t = 0 or 1): every configuration and many ambiguous faces.
fn random_field(dims: [usize; 3], seed: u64) -> Vec<f32> {
    let mut state = seed;
    field(dims, |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 1001) as f32 / 500.0 - 1.0
    })
}

/// The faces across z whose inside corners lie on a diagonal.
fn ambiguous_z_faces(samples: &[f32], dims: [usize; 3]) -> usize {
    let at = |x: usize, y: usize, z: usize| samples[x + dims[0] * (y + dims[1] * z)] > 0.0;
    let mut ambiguous = 0;
    for z in 0..dims[2] {
        for y in 0..dims[1] - 1 {
            for x in 0..dims[0] - 1 {
                let corners = [
                    at(x, y, z),
                    at(x + 1, y, z),
                    at(x + 1, y + 1, z),
                    at(x, y + 1, z),
                ];
                ambiguous += usize::from(face_is_ambiguous(corners));
            }
        }
    }
    ambiguous
}

fn cpu_mesh(samples: &[f32], dims: [usize; 3], region: GridRegion) -> SurfaceMesh {
    let mut mesh = SurfaceMesh::new();
    MarchingCubes::new()
        .mesh(DensityGrid::new(samples, dims).unwrap(), region, &mut mesh)
        .unwrap();
    mesh
}

/// Meshes on the GPU, checks that every pass was labelled and timed, and reads back.
fn gpu_mesh(
    gpu: &mut Gpu,
    mesher: &mut GpuMesher,
    frames: &mut FrameRing,
    samples: &[f32],
    dims: [usize; 3],
    region: GridRegion,
) -> SurfaceMesh {
    let grid = DensityGrid::new(samples, dims).unwrap();
    mesher.mesh(gpu, frames, grid, region).unwrap();
    assert_timed_passes(gpu, frames, &PASSES, "a marching-cubes mesh");
    mesher.read_back().unwrap()
}

/// Meshes `samples` on the CPU and the GPU and asserts they agree, vertex for vertex in the
/// same order (to the bit on an IEEE device: [`assert_same`]); returns the CPU mesh.
fn compare(
    gpu: &mut Gpu,
    mesher: &mut GpuMesher,
    frames: &mut FrameRing,
    samples: &[f32],
    dims: [usize; 3],
    region: GridRegion,
    what: &str,
) -> SurfaceMesh {
    let cpu = cpu_mesh(samples, dims, region);
    let gpu_result = gpu_mesh(gpu, mesher, frames, samples, dims, region);
    assert_same(&cpu, &gpu_result, what);
    cpu
}

/// Compares each `(what, samples, region)` in one mesher; returns the triangles of each.
fn compare_all(
    gpu: &mut Gpu,
    dims: [usize; 3],
    cases: &[(&str, &[f32], GridRegion)],
) -> Vec<usize> {
    let device = gpu.device.clone();
    let mut mesher = GpuMesher::new(&device, Mesher::MarchingCubes).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();
    let triangles = cases
        .iter()
        .map(|&(what, samples, region)| {
            let what = format!("{what} {dims:?} {region:?}");
            compare(gpu, &mut mesher, &mut frames, samples, dims, region, &what).triangle_count()
        })
        .collect();
    drop(mesher);
    drop(frames);
    triangles
}

/// The comparisons are to the bit exactly where the device is lavapipe (IEEE arithmetic, as
/// CI runs the tests), and within Vulkan's precision on any other device.
#[test]
fn meshes_are_held_to_the_bit_on_lavapipe_and_to_the_tolerances_elsewhere() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let adapter = &gpu.device.adapter;
    let lavapipe = adapter.name.starts_with("llvmpipe");
    assert_eq!(
        common::ieee_arithmetic(adapter),
        lavapipe,
        "{}",
        adapter.name
    );
    assert_eq!(common::exact_arithmetic(), lavapipe, "{}", adapter.name);
}

#[test]
fn a_ball_meshes_on_the_gpu_to_the_bit_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let dims = [34; 3];
    let samples = field(dims, ball);
    let triangles = compare_all(
        &mut gpu,
        dims,
        &[
            ("ball", &samples, GridRegion::whole(dims)),
            (
                "ball",
                &samples,
                GridRegion::owned_edges_of_padded_grid(dims),
            ),
        ],
    );
    assert!(triangles[0] > 2000, "{triangles:?}");
    assert_eq!(
        triangles[0], triangles[1],
        "the ball lies inside the padding"
    );
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn the_dense_sine_field_meshes_on_the_gpu_to_the_bit_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let dims = [34; 3];
    let samples = field(dims, sine);
    let triangles = compare_all(
        &mut gpu,
        dims,
        &[
            ("sine", &samples, GridRegion::whole(dims)),
            (
                "sine",
                &samples,
                GridRegion::owned_edges_of_padded_grid(dims),
            ),
        ],
    );
    assert!(triangles[0] > 20_000, "{triangles:?}");
    assert!(triangles[1] < triangles[0], "{triangles:?}");
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn random_densities_with_many_ambiguous_faces_mesh_on_the_gpu_to_the_bit_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let dims = [34; 3];
    let first = random_field(dims, 0x2545_f491_4f6c_dd1d);
    let second = random_field(dims, 0x9e37_79b9_7f4a_7c15);
    // The fields have ambiguous faces and exact zeros (checked, so the test means what it
    // says).
    for samples in [&first, &second] {
        let ambiguous = ambiguous_z_faces(samples, dims);
        assert!(ambiguous > 1000, "{ambiguous} ambiguous faces across z");
        assert!(samples.contains(&0.0), "exact zeros");
    }
    let triangles = compare_all(
        &mut gpu,
        dims,
        &[
            ("random", &first, GridRegion::whole(dims)),
            (
                "random",
                &first,
                GridRegion::owned_edges_of_padded_grid(dims),
            ),
            ("random", &second, GridRegion::whole(dims)),
        ],
    );
    assert!(triangles.iter().all(|&t| t > 50_000), "{triangles:?}");
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn overflowing_gradients_take_the_edge_normal_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    // Samples near f32::MAX with both signs: differences overflow to infinities (and their
    // blends to NaN), so the normal falls back to the edge's own axis, solid to air; small
    // samples among them keep ordinary crossings too.
    let dims = [12, 9, 10];
    let mut state = 0x5851_f42d_4c95_7f2du64;
    let samples = field(dims, |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let sign = if state & 1 == 0 { 1.0 } else { -1.0 };
        match state >> 1 & 3 {
            0 => sign * 0.75,
            _ => sign * 3.0e38,
        }
    });
    let device = gpu.device.clone();
    let mut mesher = GpuMesher::new(&device, Mesher::MarchingCubes).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();
    let region = GridRegion::whole(dims);
    let cpu = compare(
        &mut gpu,
        &mut mesher,
        &mut frames,
        &samples,
        dims,
        region,
        "huge samples",
    );
    let axis_normals = cpu
        .normals
        .iter()
        .filter(|normal| normal.iter().filter(|&&value| value == 0.0).count() == 2)
        .count();
    assert!(
        axis_normals > 100,
        "{axis_normals} of {} normals along an axis",
        cpu.normals.len()
    );
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn terrain_chunks_mesh_on_the_gpu_to_the_bit_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let chunks = terrain_chunks_at(20);
    assert_eq!(chunks.len(), 20, "20 terrain chunks with a surface");
    let names: Vec<String> = chunks
        .iter()
        .map(|(coord, _)| format!("terrain chunk {coord:?}"))
        .collect();
    let cases: Vec<(&str, &[f32], GridRegion)> = chunks
        .iter()
        .zip(&names)
        .map(|((_, grid), name)| (name.as_str(), grid.samples.as_slice(), grid.region))
        .collect();
    assert!(cases
        .iter()
        .all(|case| case.2 == GridRegion::owned_edges_of_padded_grid([PADDED_SIZE; 3])));
    let triangles = compare_all(&mut gpu, [PADDED_SIZE; 3], &cases);
    assert!(
        triangles.iter().sum::<usize>() >= 20 * 1000,
        "a thousand triangles a chunk or more: {triangles:?}"
    );
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn grids_smaller_than_a_chunk_and_sub_regions_mesh_to_the_bit_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    // One mesher for all: a smaller grid after a larger one must not see the larger one's
    // flags or outputs.
    let mut mesher = GpuMesher::new(&device, Mesher::MarchingCubes).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();
    let mut meshed = 0;
    for (dims, seed) in [
        ([34, 34, 34], 1u64),
        ([10, 12, 7], 2),
        ([34, 5, 20], 3),
        ([2, 2, 2], 4),
        ([3, 34, 2], 5),
    ] {
        let samples = random_field(dims, 0x2545_f491_4f6c_dd1d ^ seed);
        let centre = dims.map(|n| n as f32 * 0.47);
        let radius = dims.iter().copied().min().unwrap_or(2) as f32 * 0.4;
        let round = field(dims, |point| {
            let d = [0, 1, 2].map(|axis| point[axis] - centre[axis]);
            radius - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        });
        let inner = GridRegion {
            min: dims.map(|n| n / 3),
            max: dims.map(|n| n - n / 4),
        };
        for region in [
            GridRegion::whole(dims),
            GridRegion::owned_edges_of_padded_grid(dims),
            inner,
            // Empty: no cell's min corner in it.
            GridRegion {
                min: dims.map(|n| n / 2),
                max: dims.map(|n| n / 2),
            },
            // Cells whose max corner would leave the grid are not meshed.
            GridRegion {
                min: dims.map(|n| n - 1),
                max: dims,
            },
        ] {
            for (what, samples) in [("random", &samples), ("round", &round)] {
                let what = format!("{what} {dims:?} {region:?}");
                let cpu = compare(
                    &mut gpu,
                    &mut mesher,
                    &mut frames,
                    samples,
                    dims,
                    region,
                    &what,
                );
                meshed += usize::from(!cpu.is_empty());
            }
        }
    }
    assert!(meshed > 10, "{meshed} meshes with triangles");
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_ball_meshes_to_the_bit_on_the_vulkan_1_2_path() {
    let Some(mut gpu) = common::gpu_vulkan_1_2() else {
        return;
    };
    let before = gpu.validation_errors();
    let dims = [34; 3];
    let samples = field(dims, ball);
    let triangles = compare_all(
        &mut gpu,
        dims,
        &[(
            "ball",
            &samples,
            GridRegion::owned_edges_of_padded_grid(dims),
        )],
    );
    assert!(triangles[0] > 2000, "{triangles:?}");
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn uniform_grids_give_empty_meshes_and_bad_grids_are_the_cpus_errors() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuMesher::new(&device, Mesher::MarchingCubes).unwrap();
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
    // All air (below zero, and zero: outside too) and all solid.
    for value in [-1.0f32, 0.0, 2.5] {
        let samples = vec![value; PADDED_SIZE.pow(3)];
        for region in [
            GridRegion::whole(dims),
            GridRegion::owned_edges_of_padded_grid(dims),
        ] {
            let mesh = gpu_mesh(&mut gpu, &mut mesher, &mut frames, &samples, dims, region);
            assert!(mesh.positions.is_empty(), "uniform {value}: vertices");
            assert!(mesh.normals.is_empty(), "uniform {value}: normals");
            assert!(mesh.indices.is_empty(), "uniform {value}: indices");
            assert_eq!(mesh, cpu_mesh(&samples, dims, region));
        }
    }

    let too_large = [PADDED_SIZE + 1, PADDED_SIZE, PADDED_SIZE];
    let samples = vec![1.0f32; too_large.iter().product()];
    let grid = DensityGrid::new(&samples, too_large).unwrap();
    let result = mesher.mesh(&mut gpu, &mut frames, grid, GridRegion::whole(too_large));
    assert!(
        matches!(result, Err(GpuMeshError::TooLarge { dims, max: 34 }) if dims == too_large),
        "{result:?}"
    );

    // The errors the CPU mesher gives, for the same grids.
    let mut samples = field(dims, ball);
    let mut cpu = MarchingCubes::new();
    let mut cpu_result = SurfaceMesh::new();
    for outside in [
        GridRegion {
            min: [0; 3],
            max: [PADDED_SIZE + 1, PADDED_SIZE, PADDED_SIZE],
        },
        GridRegion {
            min: [5, 2, 2],
            max: [4, 30, 30],
        },
        GridRegion {
            min: [PADDED_SIZE + 1; 3],
            max: [PADDED_SIZE + 2; 3],
        },
    ] {
        let grid = DensityGrid::new(&samples, dims).unwrap();
        let result = mesher.mesh(&mut gpu, &mut frames, grid, outside);
        let Err(GpuMeshError::Grid(MeshError::RegionOutsideGrid {
            min,
            max,
            dims: got,
        })) = result
        else {
            panic!("{outside:?}: {result:?}");
        };
        assert_eq!((min, max, got), (outside.min, outside.max, dims));
        assert!(matches!(
            cpu.mesh(grid, outside, &mut cpu_result),
            Err(MeshError::RegionOutsideGrid { min, max, .. })
                if min == outside.min && max == outside.max
        ));
        // A failed upload leaves nothing to read back rather than a stale mesh.
        assert!(mesher.read_back().is_err());
    }

    samples[1000] = f32::NAN;
    samples[2000] = f32::INFINITY;
    let grid = DensityGrid::new(&samples, dims).unwrap();
    let result = mesher.mesh(&mut gpu, &mut frames, grid, GridRegion::whole(dims));
    assert!(
        matches!(
            result,
            Err(GpuMeshError::Grid(MeshError::NotFinite { index: 1000, .. }))
        ),
        "{result:?}"
    );
    assert!(matches!(
        cpu.mesh(grid, GridRegion::whole(dims), &mut cpu_result),
        Err(MeshError::NotFinite { index: 1000, .. })
    ));
    assert!(mesher.read_back().is_err());

    // The mesher still meshes after errors.
    let samples = field(dims, ball);
    compare(
        &mut gpu,
        &mut mesher,
        &mut frames,
        &samples,
        dims,
        GridRegion::whole(dims),
        "a ball after errors",
    );
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}
