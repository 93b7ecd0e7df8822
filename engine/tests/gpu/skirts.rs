//! Skirts on the GPU: meshed with a skirt, the compute surface nets equal the CPU's
//! `SurfaceNets::mesh_with_skirt`, vertex order and index order included, to the bit on an
//! IEEE device (lavapipe; elsewhere within the tolerances of `meshes::assert_same`), for a
//! sphere, for 20 terrain chunks and for grids that are no cube, in padded, whole and narrow
//! regions; the marching cubes ignore the skirt. In the terrain arenas a batch of skirted and
//! plain chunks takes exactly the CPU meshes' counts (the scan's totals include the skirts),
//! each chunk the CPU's mesh (to the bit on an IEEE device) and every vertex, skirt vertices included, lit by the
//! CPU's blend. A skirt that is negative or not finite is refused before anything reaches the
//! GPU, changing nothing.

use std::collections::HashMap;

use blockfall_engine::gpu::FrameRing;
use blockfall_engine::meshing::terrain_meshes::ChunkKey;
use blockfall_engine::meshing::{
    DensityGrid, GpuMeshError, GpuMesher, GridRegion, MeshError, Mesher, SurfaceMesh,
    TerrainMeshError,
};

use crate::common::{self, assert_no_validation_errors};
use crate::grids::{terrain_chunks, TestGrid, PADDED_SIZE};
use crate::meshes::assert_same;
use crate::resident::{
    assert_same_arenas, check_resident, desc, mesh, mesh_all, new_meshes, to_mesh, used,
};

/// The mesh's floats as bits: equal to the bit, -0 apart from 0.
fn mesh_bits(mesh: &SurfaceMesh) -> (Vec<[u32; 3]>, Vec<[u32; 3]>, Vec<u32>) {
    (
        vector_bits(&mesh.positions),
        vector_bits(&mesh.normals),
        mesh.indices.clone(),
    )
}

fn vector_bits(values: &[[f32; 3]]) -> Vec<[u32; 3]> {
    values.iter().map(|v| v.map(f32::to_bits)).collect()
}

/// Meshes `grid` on the GPU with its skirt and reads the mesh back.
fn gpu_skirted_mesh(
    gpu: &mut blockfall_engine::gpu::Gpu,
    mesher: &mut GpuMesher,
    frames: &mut FrameRing,
    grid: &TestGrid,
) -> SurfaceMesh {
    mesher
        .mesh_with_skirt(gpu, frames, grid.grid(), grid.region, grid.skirt)
        .unwrap();
    frames.wait_all().unwrap();
    mesher.read_back().unwrap()
}

/// Asserts the GPU's mesh of `grid` is the CPU's, in its order ([`assert_same`]); returns the
/// triangles the skirt added.
fn assert_skirted_as_on_the_cpu(
    gpu: &mut blockfall_engine::gpu::Gpu,
    mesher: &mut GpuMesher,
    frames: &mut FrameRing,
    grid: &TestGrid,
    what: &str,
) -> usize {
    let cpu = grid.cpu_mesh();
    let plain = grid.skirted(0.0).cpu_mesh();
    let gpu_result = gpu_skirted_mesh(gpu, mesher, frames, grid);
    assert_same(&cpu, &gpu_result, what);
    assert!(cpu.positions.len() >= plain.positions.len());
    (cpu.indices.len() - plain.indices.len()) / 3
}

#[test]
fn skirted_meshes_on_the_gpu_equal_the_cpus_to_the_bit() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let device = gpu.device.clone();
    let mut mesher = GpuMesher::new(&device, Mesher::SurfaceNets).unwrap();
    let mut frames = FrameRing::new(&device).unwrap();

    let sphere = TestGrid::sphere([PADDED_SIZE; 3], [16.6, 17.2, 16.9], 19.0).skirted(2.0);
    let mut skirt_triangles = assert_skirted_as_on_the_cpu(
        &mut gpu,
        &mut mesher,
        &mut frames,
        &sphere,
        "a sphere cut by the chunk's border",
    );
    assert!(
        skirt_triangles > 100,
        "a skirt: {skirt_triangles} triangles"
    );

    // Most terrain chunks' surfaces reach their borders (a cave wholly inside one does not).
    let mut terrain_skirts = 0;
    for (index, grid) in terrain_chunks(20).iter().enumerate() {
        // Depths of all kinds, one not a whole number of grid units.
        let depth = [2.0, 0.75, 3.3][index % 3];
        let added = assert_skirted_as_on_the_cpu(
            &mut gpu,
            &mut mesher,
            &mut frames,
            &grid.skirted(depth),
            &format!("terrain chunk {index}, skirt {depth}"),
        );
        terrain_skirts += usize::from(added > 0);
        skirt_triangles += added;
    }
    assert!(
        terrain_skirts >= 15,
        "{terrain_skirts} of 20 chunks skirted"
    );

    // Grids that are no cube (mixed-up axes fail), in regions of every kind: padded, narrower
    // than the grid, one start wide on x (both borders of that axis at once).
    for (dims, centre, radius) in [
        ([10, 12, 7], [4.3, 5.6, 3.2], 4.1),
        ([34, 5, 20], [17.1, 2.4, 9.8], 8.3),
        ([13, 9, 11], [6.2, 4.4, 5.3], 4.6),
    ] {
        let grid = TestGrid::sphere(dims, centre, radius).skirted(1.5);
        let regions = [
            GridRegion::owned_edges_of_padded_grid(dims),
            GridRegion {
                min: [2, 1, 2],
                max: [dims[0] - 3, dims[1] - 1, dims[2] - 2],
            },
            GridRegion {
                min: [dims[0] / 2, 1, 1],
                max: [dims[0] / 2 + 1, dims[1] - 1, dims[2] - 1],
            },
        ];
        for region in regions {
            let grid = TestGrid {
                region,
                ..grid.clone()
            };
            let added = assert_skirted_as_on_the_cpu(
                &mut gpu,
                &mut mesher,
                &mut frames,
                &grid,
                &format!("{dims:?} {region:?}"),
            );
            assert!(added > 0, "{dims:?} {region:?}: a skirt");
            skirt_triangles += added;
        }
        // A whole grid has no open border: the plain mesh.
        let whole = TestGrid {
            region: GridRegion::whole(dims),
            ..grid.clone()
        };
        let gpu_result = gpu_skirted_mesh(&mut gpu, &mut mesher, &mut frames, &whole);
        assert_same(
            &whole.skirted(0.0).cpu_mesh(),
            &gpu_result,
            &format!("{dims:?} whole"),
        );
    }

    // Skirt 0 is the plain mesh.
    let plain = terrain_chunks(1)[0].clone();
    let gpu_result = gpu_skirted_mesh(&mut gpu, &mut mesher, &mut frames, &plain);
    assert_same(&plain.cpu_mesh(), &gpu_result, "skirt 0");

    // The marching cubes ignore the skirt.
    let mut cubes = GpuMesher::new(&device, Mesher::MarchingCubes).unwrap();
    let grid = terrain_chunks(1)[0].clone();
    let without = gpu_skirted_mesh(&mut gpu, &mut cubes, &mut frames, &grid);
    let with = gpu_skirted_mesh(&mut gpu, &mut cubes, &mut frames, &grid.skirted(2.0));
    assert!(!without.indices.is_empty());
    assert!(
        mesh_bits(&with) == mesh_bits(&without),
        "marching cubes: no skirt"
    );

    eprintln!("skirts: {skirt_triangles} skirt triangles, all the CPU's");
    drop(cubes);
    drop(mesher);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn skirted_chunks_in_the_arenas_take_the_cpus_counts_and_are_lit_as_the_cpu_blends() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(16 << 20, 16 << 20, 64));
    // Skirted and plain chunks in one call (two batches of K = 8), lit, and a lit grid that
    // is no cube.
    let mut grids: Vec<TestGrid> = terrain_chunks(10)
        .iter()
        .enumerate()
        .map(|(index, grid)| {
            let depth = if index % 4 == 3 {
                0.0
            } else {
                1.0 + index as f32
            };
            grid.lit(0.7 * index as f32).skirted(depth)
        })
        .collect();
    grids.push(
        TestGrid::sphere([10, 13, 7], [4.3, 6.6, 3.2], 4.4)
            .lit(0.4)
            .skirted(2.5),
    );
    let keys: Vec<ChunkKey> = (0..grids.len()).map(|i| [i as i32, 0, 0, 0]).collect();
    let refs: Vec<&TestGrid> = grids.iter().collect();
    let results = mesh_all(&mut meshes, &mut frames, &keys, &refs).unwrap();
    assert!(results.iter().all(Option::is_some), "every grid a surface");

    // The arenas hold exactly the CPU meshes: the counts read back include the skirts.
    let cpu: Vec<SurfaceMesh> = grids.iter().map(TestGrid::cpu_mesh).collect();
    let vertices: usize = cpu.iter().map(|mesh| mesh.positions.len()).sum();
    let indices: usize = cpu.iter().map(|mesh| mesh.indices.len()).sum();
    assert_eq!(used(&meshes), (vertices as u64, indices as u64));
    let mut skirted = 0;
    for ((grid, mesh), chunk) in grids.iter().zip(&cpu).zip(&results) {
        let chunk = chunk.unwrap();
        assert_eq!(chunk.vertices.size as usize, mesh.positions.len());
        assert_eq!(chunk.indices.size as usize, mesh.indices.len());
        let plain = grid.skirted(0.0).cpu_mesh();
        skirted += usize::from(mesh.indices.len() > plain.indices.len());
    }
    assert!(skirted >= 6, "{skirted} chunks with a skirt");
    let expected: HashMap<ChunkKey, &TestGrid> = keys.iter().copied().zip(&grids).collect();
    let same = check_resident(&mut meshes, &expected, "skirted");
    assert_eq!(same, grids.len(), "the CPU's meshes in its order");

    // Remeshed without the skirt, and back: the ranges follow the counts.
    let plain = grids[0].skirted(0.0);
    let chunk = mesh(&mut meshes, &mut frames, keys[0], &plain)
        .unwrap()
        .unwrap();
    assert_eq!(
        chunk.indices.size as usize,
        plain.cpu_mesh().indices.len(),
        "without the skirt"
    );
    let mut expected = expected;
    expected.insert(keys[0], &plain);
    let same = check_resident(&mut meshes, &expected, "one remeshed plain");
    assert_eq!(same, grids.len());
    mesh(&mut meshes, &mut frames, keys[0], &grids[0]).unwrap();
    expected.insert(keys[0], &grids[0]);
    check_resident(&mut meshes, &expected, "skirted again");
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn skirts_negative_or_not_finite_are_refused_before_anything_reaches_the_gpu() {
    let Some(mut gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(4 << 20, 4 << 20, 16));
    let terrain = terrain_chunks(3);
    let keys: Vec<ChunkKey> = (0..3).map(|i| [i, 7, 0, 0]).collect();
    let skirted: Vec<TestGrid> = terrain.iter().map(|grid| grid.skirted(2.0)).collect();
    let refs: Vec<&TestGrid> = skirted.iter().collect();
    mesh_all(&mut meshes, &mut frames, &keys[..2], &refs[..2]).unwrap();
    let old = meshes.read_back().unwrap();
    let old_used = used(&meshes);
    let device = gpu.device.clone();
    let mut mesher = GpuMesher::new(&device, Mesher::SurfaceNets).unwrap();

    for skirt in [
        f32::NAN,
        -1.0,
        -f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ] {
        let bad = terrain[2].skirted(skirt);
        let is_invalid_skirt = |error: &TerrainMeshError| {
            matches!(
                error,
                TerrainMeshError::Mesh(GpuMeshError::Grid(MeshError::InvalidSkirt { skirt: found }))
                    if found.to_bits() == skirt.to_bits()
            )
        };
        // The last of a batch: the chunks before it are not meshed either.
        let frame = frames.frame_number();
        let chunks = [to_mesh(keys[0], &skirted[1]), to_mesh(keys[2], &bad)];
        let error = meshes.mesh_chunks(&mut frames, &chunks).unwrap_err();
        assert!(is_invalid_skirt(&error), "{skirt}: {error:?}");
        assert!(error.to_string().contains("skirt depth"), "{error}");
        let error = mesh(&mut meshes, &mut frames, keys[2], &bad).unwrap_err();
        assert!(is_invalid_skirt(&error), "{skirt}: {error:?}");
        assert_eq!(frames.frame_number(), frame, "{skirt}: nothing submitted");
        assert_eq!(used(&meshes), old_used, "{skirt}: the arenas");
        assert_eq!(meshes.resident_chunks(), 2, "{skirt}: residents");
        assert_same_arenas(&old, &meshes.read_back().unwrap(), &format!("{skirt}"));

        // The compute mesher refuses it too, and leaves nothing to read back.
        let grid = DensityGrid::new(&bad.samples, bad.dims).unwrap();
        let result = mesher.mesh_with_skirt(&mut gpu, &mut frames, grid, bad.region, skirt);
        assert!(
            matches!(
                result,
                Err(GpuMeshError::Grid(MeshError::InvalidSkirt { .. }))
            ),
            "{skirt}: {result:?}"
        );
        assert!(mesher.read_back().is_err());
    }
    let expected: HashMap<ChunkKey, &TestGrid> =
        keys[..2].iter().copied().zip(&skirted[..2]).collect();
    check_resident(&mut meshes, &expected, "after the refusals");
    drop(mesher);
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}
