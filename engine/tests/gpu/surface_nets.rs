//! Compute-shader surface nets against the CPU mesher: for a sphere, for 20 chunk-like terrain
//! grids ([`crate::grids`]) and for grids smaller than a chunk, the GPU's vertices equal the
//! CPU's as sets (positions within 1e-4, normals within 1e-3) and so do the triangles, winding
//! included; every pass is labelled and timed. Uniform grids give empty meshes; grids the mesher
//! cannot take are errors, not panics, and leave nothing to read back.

use blockfall_engine::gpu::FrameRing;
use blockfall_engine::meshing::{
    DensityGrid, GpuMeshError, GpuMesher, GridRegion, MeshError, Mesher,
};

use crate::common::{self, assert_no_validation_errors};
use crate::grids::{terrain_chunks_at, PADDED_SIZE};
use crate::meshes::{compare, sphere_grid};
use crate::readback::{compare_padded_grids, cpu_mesh, gpu_mesh};

#[test]
fn a_sphere_meshes_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let dims = [PADDED_SIZE; 3];
    let sphere = (
        "sphere".to_owned(),
        sphere_grid(dims, [16.6, 17.2, 16.9], 10.0),
    );
    let comparison = compare_padded_grids(&mut gpu, dims, &[sphere]);
    assert!(comparison.triangles > 1000, "{comparison:?}");
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn twenty_terrain_chunks_mesh_on_the_gpu_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let grids: Vec<(String, Vec<f32>)> = terrain_chunks_at(20)
        .into_iter()
        .map(|(coord, grid)| (format!("terrain chunk {coord:?}"), grid.samples))
        .collect();
    assert_eq!(grids.len(), 20, "20 terrain chunks with a surface");
    let totals = compare_padded_grids(&mut gpu, [PADDED_SIZE; 3], &grids);
    assert!(
        totals.triangles >= 20 * 1000,
        "a thousand triangles a chunk or more: {totals:?}"
    );
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn grids_smaller_than_a_chunk_and_whole_regions_mesh_as_on_the_cpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuMesher::new(&device, Mesher::SurfaceNets).unwrap();
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
    let mut mesher = GpuMesher::new(&device, Mesher::SurfaceNets).unwrap();
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
