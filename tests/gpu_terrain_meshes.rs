//! The terrain mesh arenas: chunks meshed by the compute surface nets straight into one vertex
//! and one index arena, each drawn through an indirect command the GPU writes into the chunk's
//! slot. Read back through those commands, every chunk equals the CPU mesher's mesh; loading,
//! remeshing and unloading 1,000 chunks makes no Vulkan allocation and leaves both arenas empty;
//! what does not fit is an error that disturbs nothing.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use blockfall::shaders::LIBRARY;
use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_engine::meshing::terrain_meshes::{
    ArenaKind, ChunkKey, DrawIndexedIndirect, ResidentChunk, TerrainReadback, VERTEX_BYTES,
    WRITE_PASS_NAME,
};
use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GpuMeshError, GridRegion, MeshError, SurfaceMesh, SurfaceNets,
    TerrainMeshError, TerrainMeshes, TerrainMeshesDesc,
};
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order};
use blockfall_game::terrain::{EditStore, Generator, PADDED_SIZE};

use common::assert_no_validation_errors;
use common::meshes::{compare, sphere_grid};

/// A density grid with its dimensions and the region it owns.
struct TestGrid {
    samples: Vec<f32>,
    dims: [usize; 3],
    region: GridRegion,
}

impl TestGrid {
    fn sphere(dims: [usize; 3], centre: [f32; 3], radius: f32) -> Self {
        Self {
            samples: sphere_grid(dims, centre, radius),
            dims,
            region: GridRegion::owned_edges_of_padded_grid(dims),
        }
    }

    fn grid(&self) -> DensityGrid<'_> {
        DensityGrid::new(&self.samples, self.dims).unwrap()
    }

    fn cpu_mesh(&self) -> SurfaceMesh {
        let mut mesh = SurfaceMesh::new();
        SurfaceNets::new()
            .mesh(self.grid(), self.region, &mut mesh)
            .unwrap();
        mesh
    }
}

/// The first `count` chunks with a surface of the default world, nearest the spawn first.
fn world_chunks(count: usize) -> Vec<TestGrid> {
    let edits = EditStore::new(Arc::new(Generator::new(Generator::DEFAULT_SEED)));
    let spawn = edits.generator().spawn_point();
    let dims = [PADDED_SIZE; 3];
    let mut grids = Vec::new();
    let mut samples = Vec::new();
    for coord in load_order(spawn, 4) {
        if grids.len() == count {
            break;
        }
        fill_padded_grid(&edits, coord, &mut samples);
        if is_uniform(&samples) {
            continue;
        }
        grids.push(TestGrid {
            samples: samples.clone(),
            dims,
            region: GridRegion::owned_edges_of_padded_grid(dims),
        });
    }
    assert_eq!(grids.len(), count, "chunks with a surface near the spawn");
    grids
}

fn mesh(
    meshes: &mut TerrainMeshes,
    frames: &mut FrameRing,
    key: ChunkKey,
    grid: &TestGrid,
) -> Result<Option<ResidentChunk>, TerrainMeshError> {
    meshes.mesh_chunk(frames, key, grid.grid(), grid.region)
}

/// A chunk's mesh out of the read-back arenas, found through its draw command (checked against
/// the bookkeeping).
fn chunk_mesh(readback: &TerrainReadback, chunk: ResidentChunk) -> SurfaceMesh {
    let draw = readback.draws[chunk.slot as usize];
    assert_eq!(
        draw,
        DrawIndexedIndirect {
            index_count: chunk.indices.size as u32,
            instance_count: 1,
            first_index: chunk.indices.offset as u32,
            vertex_offset: chunk.vertices.offset as i32,
            first_instance: chunk.slot,
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

/// As tests/gpu_surface_nets.rs: every GPU vertex matched one to one to a CPU vertex (positions
/// within 1e-4, normals within 1e-3), then the triangles, winding kept, equal through that
/// matching. Returns whether the meshes are also the same to the bit.
fn new_meshes(gpu: &Gpu, desc: TerrainMeshesDesc) -> (TerrainMeshes, FrameRing) {
    let meshes = TerrainMeshes::new(&gpu.device, &LIBRARY, &desc).unwrap();
    let frames = FrameRing::new(&gpu.device).unwrap();
    (meshes, frames)
}

/// Reads everything back and checks every resident chunk against the CPU mesh of its grid;
/// returns how many were the same to the bit.
fn check_resident(
    meshes: &mut TerrainMeshes,
    expected: &HashMap<ChunkKey, &TestGrid>,
    what: &str,
) -> usize {
    let readback = meshes.read_back().unwrap();
    assert_eq!(
        meshes.resident_chunks(),
        expected.len(),
        "{what}: residents"
    );
    let mut identical = 0;
    let mut slots_seen = vec![false; meshes.max_chunks() as usize];
    for (&key, grid) in expected {
        let chunk = meshes.chunk(key).expect("resident");
        assert!(!slots_seen[chunk.slot as usize], "{what}: a slot twice");
        slots_seen[chunk.slot as usize] = true;
        let gpu = chunk_mesh(&readback, chunk);
        let comparison = compare(&grid.cpu_mesh(), &gpu, &format!("{what}: chunk {key:?}"));
        identical += usize::from(comparison.identical);
    }
    // Every other slot is an empty draw.
    for (slot, draw) in readback.draws.iter().enumerate() {
        if !slots_seen[slot] {
            assert_eq!(
                *draw,
                DrawIndexedIndirect::default(),
                "{what}: slot {slot} holds no chunk"
            );
        }
    }
    identical
}

#[test]
fn chunks_meshed_into_the_arenas_equal_the_cpu_meshes() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: 8 << 20,
            index_arena_bytes: 8 << 20,
            max_chunks: 64,
        },
    );
    let dims = [PADDED_SIZE; 3];
    let sphere = TestGrid::sphere(dims, [16.6, 17.2, 16.9], 10.0);
    let small = TestGrid::sphere([10, 12, 7], [4.3, 5.6, 3.2], 3.7);
    let world = world_chunks(6);
    let mut grids: Vec<&TestGrid> = vec![&sphere, &small];
    grids.extend(world.iter());

    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    for (index, grid) in grids.iter().enumerate() {
        let key = [index as i32, -3, 7];
        let chunk = mesh(&mut meshes, &mut frames, key, grid)
            .unwrap()
            .expect("a surface");
        assert_eq!(chunk.slot, index as u32, "slots from the lowest");
        expected.insert(key, grid);
        if gpu.device.adapter.timestamps && index == 0 {
            frames.wait_all().unwrap();
            let names: Vec<&str> = frames
                .last_timings()
                .iter()
                .map(|t| t.name.as_str())
                .collect();
            assert_eq!(
                names,
                [
                    WRITE_PASS_NAME,
                    "surface nets: vertices",
                    "surface nets: quads"
                ],
                "the write frame's passes are labelled and timed"
            );
        }
    }
    assert_eq!(meshes.draw_count(), grids.len() as u32);
    let identical = check_resident(&mut meshes, &expected, "loaded");

    // A uniform grid has no surface: not resident, no range, no slot.
    let used = (meshes.vertex_arena().used(), meshes.index_arena().used());
    let solid = TestGrid {
        samples: vec![1.0; PADDED_SIZE.pow(3)],
        dims,
        region: GridRegion::owned_edges_of_padded_grid(dims),
    };
    assert_eq!(
        mesh(&mut meshes, &mut frames, [99, 0, 0], &solid).unwrap(),
        None
    );
    assert_eq!(
        (meshes.vertex_arena().used(), meshes.index_arena().used()),
        used
    );

    // Remeshing swaps grids between chunks; unloading one zeroes its draw; a remesh to an
    // empty grid unloads.
    let (key_a, key_b) = ([0, -3, 7], [2, -3, 7]);
    mesh(&mut meshes, &mut frames, key_a, grids[2]).unwrap();
    mesh(&mut meshes, &mut frames, key_b, grids[0]).unwrap();
    expected.insert(key_a, grids[2]);
    expected.insert(key_b, grids[0]);
    assert!(meshes.unload([1, -3, 7]));
    assert!(!meshes.unload([1, -3, 7]), "unloaded already");
    expected.remove(&[1, -3, 7]);
    assert_eq!(
        mesh(&mut meshes, &mut frames, [3, -3, 7], &solid).unwrap(),
        None
    );
    expected.remove(&[3, -3, 7]);
    let identical_after = check_resident(&mut meshes, &expected, "remeshed");
    eprintln!(
        "{} chunks equal the CPU's ({identical} to the bit), after remeshing and unloading {} \
         ({identical_after} to the bit); vertex arena {} of {} vertices, index arena {} of {} \
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

#[test]
fn a_thousand_chunks_load_and_unload_without_a_vulkan_allocation() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let allocations_before = gpu.device.memory_report().allocations;
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: 16 << 20,
            index_arena_bytes: 16 << 20,
            max_chunks: 256,
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
    grids.extend(world_chunks(2));
    let mut random = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        random
    };

    let mut resident: HashMap<ChunkKey, usize> = HashMap::new();
    let mut loads = 0;
    let mut remeshes = 0;
    let mut unloads = 0;
    let mut allocations_after_first = None;
    let mut buffers_after_first = None;
    let mut peak = (0, 0, 0);
    let started = std::time::Instant::now();
    while loads < 1000 {
        let key = [(next() % 12) as i32, (next() % 4) as i32 - 2, 5];
        if resident.contains_key(&key) && next() % 3 == 0 {
            assert!(meshes.unload(key));
            resident.remove(&key);
            unloads += 1;
            continue;
        }
        // Mostly the small grids, so that 1,000 chunks stay quick on lavapipe.
        let choice = next() % 20;
        let index = if choice < 16 {
            1 + (choice as usize % 5)
        } else {
            [0, 6, 7, 0][choice as usize - 16]
        };
        let was_resident = resident.contains_key(&key);
        let chunk = mesh(&mut meshes, &mut frames, key, &grids[index]).unwrap();
        loads += 1;
        remeshes += usize::from(was_resident);
        match chunk {
            Some(_) => {
                resident.insert(key, index);
            }
            None => {
                assert_eq!(index, 5, "only the far sphere is empty");
                resident.remove(&key);
            }
        }
        assert_eq!(meshes.resident_chunks(), resident.len());
        peak.0 = peak.0.max(resident.len());
        peak.1 = peak.1.max(meshes.vertex_arena().used());
        peak.2 = peak.2.max(meshes.index_arena().used());
        if loads == 1 {
            allocations_after_first = Some(gpu.device.memory_report().allocations);
            buffers_after_first = Some(gpu.device.resources_created().0);
        }
    }
    let report = gpu.device.memory_report();
    let buffers = gpu.device.resources_created().0;
    let milliseconds_per_load = started.elapsed().as_secs_f64() * 1e3 / 1000.0;

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
        "1,000 loads ({remeshes} remeshes, {milliseconds_per_load:.2} ms each), {unloads} \
         unloads; peak {} resident, {} vertices, {} indices; Vulkan allocations before the \
         arenas {allocations_before}, after the first chunk {} and after the 1,000th {} ({} \
         blocks), buffers created {} and {}",
        peak.0,
        peak.1,
        peak.2,
        allocations_after_first.unwrap(),
        report.allocations,
        report.blocks,
        buffers_after_first.unwrap(),
        buffers,
    );
    assert_eq!(
        report.allocations,
        allocations_after_first.unwrap(),
        "no Vulkan allocation per chunk"
    );
    assert_eq!(buffers, buffers_after_first.unwrap(), "no buffer per chunk");
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
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: (small_vertices + big_vertices - 1) * VERTEX_BYTES,
            index_arena_bytes: 4 << 20,
            max_chunks: 2,
        },
    );
    let small_key = [0, 0, 0];
    let small_chunk = mesh(&mut meshes, &mut frames, small_key, &small)
        .unwrap()
        .unwrap();
    let used = (meshes.vertex_arena().used(), meshes.index_arena().used());
    let error = mesh(&mut meshes, &mut frames, [1, 0, 0], &big).unwrap_err();
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
    assert_eq!(
        (meshes.vertex_arena().used(), meshes.index_arena().used()),
        used
    );
    assert_eq!(meshes.resident_chunks(), 1);
    assert_eq!(meshes.chunk(small_key), Some(small_chunk));
    assert_eq!(meshes.draw_count(), 1, "the failed chunk's slot is free");

    // Bad grids are errors before anything reaches the GPU.
    let mut nan = TestGrid::sphere([12, 12, 12], [5.5, 5.7, 5.9], 3.6);
    nan.samples[100] = f32::NAN;
    let error = mesh(&mut meshes, &mut frames, [2, 0, 0], &nan).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::Mesh(GpuMeshError::Grid(MeshError::NotFinite { index: 100, .. }))
        ),
        "{error:?}"
    );
    let mut too_large = TestGrid::sphere([PADDED_SIZE + 1, 4, 4], [2.0, 2.0, 2.0], 1.5);
    too_large.region = GridRegion::whole(too_large.dims);
    let error = mesh(&mut meshes, &mut frames, [2, 0, 0], &too_large).unwrap_err();
    assert!(
        matches!(error, TerrainMeshError::Mesh(GpuMeshError::TooLarge { .. })),
        "{error:?}"
    );

    // Out of slots: max_chunks 2, one taken, a second fits, a third does not.
    let second = TestGrid::sphere([12, 12, 12], [6.1, 5.2, 5.3], 3.1);
    mesh(&mut meshes, &mut frames, [3, 0, 0], &second)
        .unwrap()
        .unwrap();
    let used = (meshes.vertex_arena().used(), meshes.index_arena().used());
    let error = mesh(&mut meshes, &mut frames, [4, 0, 0], &second).unwrap_err();
    assert!(
        matches!(error, TerrainMeshError::TooManyChunks { max_chunks: 2, .. }),
        "{error:?}"
    );
    assert_eq!(
        (meshes.vertex_arena().used(), meshes.index_arena().used()),
        used
    );
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    expected.insert(small_key, &small);
    expected.insert([3, 0, 0], &second);
    check_resident(&mut meshes, &expected, "after the errors");

    // A remesh that fits nowhere, not even in place of the old mesh, unloads the chunk; the
    // others stay.
    let error = mesh(&mut meshes, &mut frames, [3, 0, 0], &big).unwrap_err();
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
    expected.remove(&[3, 0, 0]);
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
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: 4 << 20,
            index_arena_bytes: (big_indices - 1) * 4,
            max_chunks: 8,
        },
    );
    let error = mesh(&mut meshes, &mut frames, [0, 0, 0], &big).unwrap_err();
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
    let error = TerrainMeshes::new(
        &gpu.device,
        &LIBRARY,
        &TerrainMeshesDesc {
            vertex_arena_bytes: 10,
            index_arena_bytes: 1 << 20,
            max_chunks: 8,
        },
    )
    .err()
    .expect("no room for a vertex");
    assert!(error.to_string().contains("no room"), "{error}");
    assert_no_validation_errors(&gpu, before);
}
