//! The terrain mesh arenas: chunks meshed by the compute surface nets straight into one vertex,
//! one light and one index arena, each drawn through an indirect command the GPU writes into
//! the chunk's slot. Read back through those commands, every chunk equals the CPU mesher's mesh,
//! after loads, remeshes and unloads too; a uniform grid takes no slot and no range; loading,
//! remeshing, relighting and unloading 1,000 chunks (batches among them) makes no Vulkan
//! allocation and no buffer and leaves the arenas empty; what does not fit (the vertex arena,
//! the index arena, the slots) or cannot be meshed is an error that disturbs no other chunk.

use std::collections::HashMap;

use blockfall_engine::meshing::terrain_meshes::{
    ArenaKind, ChunkKey, ChunkToMesh, DrawIndexedIndirect, LIGHT_PASS_NAME, VERTEX_BYTES,
    WRITE_PASS_NAME,
};
use blockfall_engine::meshing::{
    GpuMeshError, GridRegion, MeshError, TerrainMeshError, TerrainMeshes, TerrainMeshesDesc,
};

use crate::common::{self, assert_no_validation_errors};
use crate::grids::{terrain_chunks, TestGrid, PADDED_SIZE};
use crate::readback::assert_timed_passes;
use crate::resident::{check_resident, desc, mesh, new_meshes, to_mesh, used};

#[test]
fn chunks_meshed_into_the_arenas_equal_the_cpu_meshes() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(8 << 20, 8 << 20, 64));
    let sphere = TestGrid::sphere([PADDED_SIZE; 3], [16.6, 17.2, 16.9], 10.0);
    let small = TestGrid::sphere([10, 12, 7], [4.3, 5.6, 3.2], 3.7);
    let terrain = terrain_chunks(6);
    let mut grids: Vec<&TestGrid> = vec![&sphere, &small];
    grids.extend(terrain.iter());

    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    for (index, grid) in grids.iter().enumerate() {
        let key = [index as i32, -3, 7, 0];
        let chunk = mesh(&mut meshes, &mut frames, key, grid)
            .unwrap()
            .expect("a surface");
        assert_eq!(chunk.slot, index as u32, "slots from the lowest");
        expected.insert(key, grid);
        if index == 0 {
            let passes = [
                WRITE_PASS_NAME,
                "surface nets: vertices",
                "surface nets: quads",
                LIGHT_PASS_NAME,
            ];
            assert_timed_passes(&gpu, &mut frames, &passes, "the write frame");
        }
    }
    assert_eq!(meshes.draw_count(), grids.len() as u32);
    let identical = check_resident(&mut meshes, &expected, "loaded");

    // A uniform grid has no surface: not resident, no range, no slot.
    let before_solid = used(&meshes);
    let solid = TestGrid::uniform(1.0);
    assert_eq!(
        mesh(&mut meshes, &mut frames, [99, 0, 0, 0], &solid).unwrap(),
        None
    );
    assert_eq!(used(&meshes), before_solid);

    // Remeshing swaps grids between chunks; unloading one zeroes its draw; a remesh to an
    // empty grid unloads.
    let (key_a, key_b) = ([0, -3, 7, 0], [2, -3, 7, 0]);
    mesh(&mut meshes, &mut frames, key_a, grids[2]).unwrap();
    mesh(&mut meshes, &mut frames, key_b, grids[0]).unwrap();
    expected.insert(key_a, grids[2]);
    expected.insert(key_b, grids[0]);
    assert!(meshes.unload([1, -3, 7, 0]));
    assert!(!meshes.unload([1, -3, 7, 0]), "unloaded already");
    expected.remove(&[1, -3, 7, 0]);
    assert_eq!(
        mesh(&mut meshes, &mut frames, [3, -3, 7, 0], &solid).unwrap(),
        None
    );
    expected.remove(&[3, -3, 7, 0]);
    let identical_after = check_resident(&mut meshes, &expected, "remeshed");
    eprintln!(
        "{} chunks equal the CPU's ({identical} in its order), after remeshing and unloading {} \
         ({identical_after} in its order); vertex arena {} of {} vertices, index arena {} of {} \
         indices",
        grids.len(),
        expected.len(),
        meshes.vertex_arena().used(),
        meshes.vertex_arena().capacity(),
        meshes.index_arena().used(),
        meshes.index_arena().capacity(),
    );
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

/// A grid of the 1,000-load test: mostly the small ones, so that 1,000 chunks stay quick on
/// lavapipe; a third of them with a light grid.
fn pick_grid(next: &mut impl FnMut() -> u64, base: usize) -> usize {
    let choice = next() % 20;
    let index = if choice < 16 {
        1 + (choice as usize % 5)
    } else {
        [0, 6, 7, 0][choice as usize - 16]
    };
    if next() % 3 == 0 {
        index + base
    } else {
        index
    }
}

/// How the 1,000-load test went.
#[derive(Debug, Default)]
struct Churn {
    loads: usize,
    remeshes: usize,
    unloads: usize,
    relights: usize,
    batches: usize,
    /// Resident chunks, vertices and indices at most.
    peak: (usize, u64, u64),
}

#[test]
fn a_thousand_chunks_load_and_unload_without_a_vulkan_allocation() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    // What earlier tests on this shared device retired is destroyed first: its freeing during
    // the churn would change the counts below.
    gpu.device.wait_idle().unwrap();
    let allocations_before = gpu.device.memory_report().allocations;
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            batch: 4,
            ..desc(16 << 20, 16 << 20, 256)
        },
    );
    let mut grids = vec![
        TestGrid::sphere([PADDED_SIZE; 3], [16.6, 17.2, 16.9], 10.0),
        TestGrid::sphere([20, 20, 20], [9.3, 10.1, 9.7], 6.2),
        TestGrid::sphere([12, 9, 14], [5.5, 4.1, 6.6], 3.9),
        TestGrid::sphere([16, 16, 16], [7.1, 8.4, 7.7], 12.0),
        TestGrid::sphere([8, 8, 8], [3.5, 3.5, 3.5], 2.2),
        // No surface: loads as nothing.
        TestGrid::sphere([10, 10, 10], [50.0, 50.0, 50.0], 3.0),
    ];
    grids.extend(terrain_chunks(2));
    // Each grid also lit (a third of the loads), and lit otherwise (for relights).
    let base = grids.len();
    let lit: Vec<TestGrid> = grids.iter().map(|grid| grid.lit(0.7)).collect();
    let relit: Vec<TestGrid> = grids.iter().map(|grid| grid.lit(2.1)).collect();
    grids.extend(lit);
    grids.extend(relit);
    let mut random = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        random
    };

    let mut resident: HashMap<ChunkKey, usize> = HashMap::new();
    let mut churn = Churn::default();
    let mut allocations_after_first = None;
    let mut buffers_after_first = None;
    let started = std::time::Instant::now();
    while churn.loads < 1000 {
        let key = [(next() % 12) as i32, (next() % 4) as i32 - 2, 5, 0];
        if resident.contains_key(&key) && next() % 3 == 0 {
            assert!(meshes.unload(key));
            resident.remove(&key);
            churn.unloads += 1;
            continue;
        }
        if let Some(&index) = resident.get(&key) {
            if next() % 4 == 0 {
                let relit = index % base + 2 * base;
                let light = grids[relit].light.as_deref().unwrap();
                assert!(meshes.relight(&mut frames, key, light).unwrap());
                resident.insert(key, relit);
                churn.relights += 1;
                continue;
            }
        }
        // One load in five starts a batch of up to 6 chunks of distinct keys (K = 4: one or two
        // batches in a call).
        let mut batch = vec![(key, pick_grid(&mut next, base))];
        if next() % 5 == 0 {
            for _ in 0..next() % 6 {
                let key = [(next() % 12) as i32, (next() % 4) as i32 - 2, 5, 0];
                if batch.iter().all(|(other, _)| *other != key) {
                    batch.push((key, pick_grid(&mut next, base)));
                }
            }
        }
        let results = if batch.len() == 1 {
            vec![mesh(&mut meshes, &mut frames, key, &grids[batch[0].1]).unwrap()]
        } else {
            let chunks: Vec<ChunkToMesh> = batch
                .iter()
                .map(|&(key, index)| to_mesh(key, &grids[index]))
                .collect();
            churn.batches += 1;
            meshes.mesh_chunks(&mut frames, &chunks).unwrap()
        };
        assert_eq!(results.len(), batch.len());
        for (&(key, index), chunk) in batch.iter().zip(results) {
            churn.loads += 1;
            churn.remeshes += usize::from(resident.contains_key(&key));
            match chunk {
                Some(_) => {
                    resident.insert(key, index);
                }
                None => {
                    assert_eq!(index % base, 5, "only the far sphere is empty");
                    resident.remove(&key);
                }
            }
        }
        assert_eq!(meshes.resident_chunks(), resident.len());
        let (vertices, indices) = used(&meshes);
        let peak = &mut churn.peak;
        *peak = (
            peak.0.max(resident.len()),
            peak.1.max(vertices),
            peak.2.max(indices),
        );
        if allocations_after_first.is_none() {
            allocations_after_first = Some(gpu.device.memory_report().allocations);
            buffers_after_first = Some(gpu.device.resources_created().0);
        }
    }
    let report = gpu.device.memory_report();
    let buffers = gpu.device.resources_created().0;
    let milliseconds_per_load = started.elapsed().as_secs_f64() * 1e3 / churn.loads as f64;

    // Some chunks still resident: they read back as their grids' CPU meshes.
    let expected: HashMap<ChunkKey, &TestGrid> = resident
        .iter()
        .map(|(&key, &index)| (key, &grids[index]))
        .collect();
    check_resident(&mut meshes, &expected, "after 1,000 loads");

    for key in resident.keys() {
        assert!(meshes.unload(*key));
    }
    let readback = meshes.read_back().unwrap();
    assert!(
        readback
            .draws
            .iter()
            .all(|draw| *draw == DrawIndexedIndirect::default()),
        "every draw slot is empty again"
    );
    eprintln!(
        "{churn:?} ({milliseconds_per_load:.2} ms a load); Vulkan allocations before the arenas \
         {allocations_before}, after the first chunk {} and after the 1,000th {} ({} blocks), \
         buffers created {} and {buffers}",
        allocations_after_first.unwrap(),
        report.allocations,
        report.blocks,
        buffers_after_first.unwrap(),
    );
    assert_eq!(
        report.allocations,
        allocations_after_first.unwrap(),
        "no Vulkan allocation per chunk"
    );
    assert_eq!(buffers, buffers_after_first.unwrap(), "no buffer per chunk");
    assert!(churn.relights > 0, "some chunks were relit");
    assert!(churn.batches > 10, "some chunks were meshed in batches");
    assert!(
        allocations_before < report.allocations,
        "the count sees the arenas' buffers"
    );
    assert!(
        meshes.vertex_arena().is_empty(),
        "the vertex arena is empty"
    );
    assert!(meshes.index_arena().is_empty(), "the index arena is empty");
    assert_eq!(meshes.resident_chunks(), 0);
    assert_eq!(meshes.free_slot_count(), meshes.max_chunks());
    assert_eq!(meshes.draw_count(), 0, "every slot is free");
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn what_does_not_fit_is_an_error_that_disturbs_nothing() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let small = TestGrid::sphere([12, 12, 12], [5.5, 5.7, 5.9], 3.6);
    let big = TestGrid::sphere([PADDED_SIZE; 3], [16.6, 17.2, 16.9], 10.0);
    let (small_cpu, big_cpu) = (small.cpu_mesh(), big.cpu_mesh());
    let small_vertices = small_cpu.positions.len() as u64;
    let big_vertices = big_cpu.positions.len() as u64;
    let big_indices = big_cpu.indices.len() as u64;

    // Room for the small chunk and a bit, not for the big one.
    let vertex_bytes = (small_vertices + big_vertices - 1) * VERTEX_BYTES;
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(vertex_bytes, 4 << 20, 2));
    let small_key = [0, 0, 0, 0];
    let small_chunk = mesh(&mut meshes, &mut frames, small_key, &small)
        .unwrap()
        .unwrap();
    let before_big = used(&meshes);
    let error = mesh(&mut meshes, &mut frames, [1, 0, 0, 0], &big).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::ArenaFull {
                kind: ArenaKind::Vertex,
                count,
                previous_dropped: false,
                ..
            } if count == big_vertices
        ),
        "{error:?}"
    );
    eprintln!("a chunk too large: {error}");
    assert!(
        error
            .to_string()
            .contains("vertices do not fit the vertex arena"),
        "{error}"
    );
    assert_eq!(used(&meshes), before_big);
    assert_eq!(meshes.resident_chunks(), 1);
    assert_eq!(meshes.chunk(small_key), Some(small_chunk));
    assert_eq!(meshes.draw_count(), 1, "the failed chunk's slot is free");

    // Bad grids are errors before anything reaches the GPU.
    let mut nan = TestGrid::sphere([12, 12, 12], [5.5, 5.7, 5.9], 3.6);
    nan.samples[100] = f32::NAN;
    let error = mesh(&mut meshes, &mut frames, [2, 0, 0, 0], &nan).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::Mesh(GpuMeshError::Grid(MeshError::NotFinite { index: 100, .. }))
        ),
        "{error:?}"
    );
    let mut too_large = TestGrid::sphere([PADDED_SIZE + 1, 4, 4], [2.0, 2.0, 2.0], 1.5);
    too_large.region = GridRegion::whole(too_large.dims);
    let error = mesh(&mut meshes, &mut frames, [2, 0, 0, 0], &too_large).unwrap_err();
    assert!(
        matches!(error, TerrainMeshError::Mesh(GpuMeshError::TooLarge { .. })),
        "{error:?}"
    );

    // Out of slots: max_chunks 2, one taken, a second fits, a third does not.
    let second = TestGrid::sphere([12, 12, 12], [6.1, 5.2, 5.3], 3.1);
    mesh(&mut meshes, &mut frames, [3, 0, 0, 0], &second)
        .unwrap()
        .unwrap();
    let before_third = used(&meshes);
    let error = mesh(&mut meshes, &mut frames, [4, 0, 0, 0], &second).unwrap_err();
    assert!(
        matches!(error, TerrainMeshError::TooManyChunks { max_chunks: 2, .. }),
        "{error:?}"
    );
    assert_eq!(used(&meshes), before_third);
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    expected.insert(small_key, &small);
    expected.insert([3, 0, 0, 0], &second);
    check_resident(&mut meshes, &expected, "after the errors");

    // A remesh that fits nowhere, not even in place of the old mesh, unloads the chunk; the
    // others stay.
    let error = mesh(&mut meshes, &mut frames, [3, 0, 0, 0], &big).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::ArenaFull {
                kind: ArenaKind::Vertex,
                previous_dropped: true,
                ..
            }
        ),
        "{error:?}"
    );
    expected.remove(&[3, 0, 0, 0]);
    check_resident(&mut meshes, &expected, "after the failed remesh");
    // A remesh that fits only in place of the old mesh replaces it.
    assert_eq!(
        meshes.vertex_arena().capacity() - meshes.vertex_arena().used(),
        big_vertices - 1,
        "no room for the big mesh beside the small one"
    );
    mesh(&mut meshes, &mut frames, small_key, &big)
        .unwrap()
        .unwrap();
    expected.insert(small_key, &big);
    check_resident(&mut meshes, &expected, "after the remesh in place");
    assert!(meshes.unload(small_key));
    assert_eq!(meshes.resident_chunks(), 0);
    assert!(meshes.vertex_arena().is_empty() && meshes.index_arena().is_empty());
    check_resident(&mut meshes, &HashMap::new(), "after unloading");
    drop(meshes);
    drop(frames);

    // The index arena full, the vertex arena roomy.
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(4 << 20, (big_indices - 1) * 4, 8));
    let error = mesh(&mut meshes, &mut frames, [0, 0, 0, 0], &big).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::ArenaFull {
                kind: ArenaKind::Index,
                previous_dropped: false,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(meshes.vertex_arena().is_empty() && meshes.index_arena().is_empty());
    assert_eq!(meshes.draw_count(), 0);
    drop(meshes);
    drop(frames);

    // Arenas too small for anything are refused when made.
    let error = TerrainMeshes::new(&gpu.device, &desc(10, 1 << 20, 8))
        .err()
        .expect("no room for a vertex");
    assert!(error.to_string().contains("no room"), "{error}");
    assert_no_validation_errors(&gpu, before);
}
