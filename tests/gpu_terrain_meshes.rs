//! The terrain mesh arenas: chunks meshed by the compute surface nets straight into one vertex,
//! one light and one index arena, each drawn through an indirect command the GPU writes into
//! the chunk's slot. Read back through those commands, every chunk equals the CPU mesher's mesh
//! and its light the CPU's trilinear blend of its light grid at the CPU's vertices (1 without a
//! grid); relighting changes one chunk's light and nothing else; loading, remeshing, relighting
//! and unloading 1,000 chunks makes no Vulkan allocation and leaves the arenas empty; what does
//! not fit is an error that disturbs nothing. Chunks meshed in batches (one size frame, one wait
//! and one write frame per K chunks) are the same bytes as the same chunks meshed one by one; a
//! batch with a bad grid, a bad light grid or a key twice changes nothing.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use blockfall_engine::gpu::GpuError;
use blockfall_engine::gpu::{FrameRing, Gpu};
use blockfall_engine::meshing::terrain_meshes::{
    ArenaKind, ChunkKey, ChunkToMesh, DrawIndexedIndirect, ResidentChunk, TerrainReadback,
    LIGHT_BYTES, LIGHT_PASS_NAME, RELIGHT_PASS_NAME, VERTEX_BYTES, WRITE_PASS_NAME,
};
use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GpuMeshError, GridRegion, MeshError, SurfaceMesh, SurfaceNets,
    TerrainMeshError, TerrainMeshes, TerrainMeshesDesc,
};
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order};
use blockfall_game::terrain::light::LightGrid;
use blockfall_game::terrain::{EditStore, Generator, PADDED_SIZE};

use common::assert_no_validation_errors;
use common::meshes::{compare, sphere_grid};

/// How far the GPU's light may lie from the CPU's blend.
const LIGHT_TOLERANCE: f32 = 1e-5;

/// A density grid with its dimensions, the region it owns and the light grid it is meshed with
/// (`None`: light 1 everywhere).
#[derive(Clone)]
struct TestGrid {
    samples: Vec<f32>,
    dims: [usize; 3],
    region: GridRegion,
    light: Option<Vec<f32>>,
}

impl TestGrid {
    fn sphere(dims: [usize; 3], centre: [f32; 3], radius: f32) -> Self {
        Self {
            samples: sphere_grid(dims, centre, radius),
            dims,
            region: GridRegion::owned_edges_of_padded_grid(dims),
            light: None,
        }
    }

    /// The same grid, lit by [`wavy_light`] with `phase`.
    fn lit(&self, phase: f32) -> Self {
        Self {
            light: Some(wavy_light(self.dims, phase)),
            ..self.clone()
        }
    }

    /// The light the CPU expects at each of the CPU mesher's vertices, in its order.
    fn cpu_light(&self, mesh: &SurfaceMesh) -> Vec<f32> {
        mesh.positions
            .iter()
            .map(|&position| match &self.light {
                Some(light) => blend(light, self.dims, position),
                None => 1.0,
            })
            .collect()
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
            light: None,
        });
    }
    assert_eq!(grids.len(), count, "chunks with a surface near the spawn");
    grids
}

/// A light grid that is no sky light but varies differently along every axis, so that a blend
/// with its axes mixed up cannot pass: `0.5 + 0.5 sin(0.3 x + 0.2 y + phase) cos(0.1 z)`.
fn wavy_light(dims: [usize; 3], phase: f32) -> Vec<f32> {
    let mut light = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
    for z in 0..dims[2] {
        for y in 0..dims[1] {
            for x in 0..dims[0] {
                let (x, y, z) = (x as f32, y as f32, z as f32);
                let value = 0.5 + 0.5 * (0.3 * x + 0.2 * y + phase).sin() * (0.1 * z).cos();
                light.push(value.clamp(0.0, 1.0));
            }
        }
    }
    light
}

/// The CPU's trilinear blend of a light grid at a point in grid units, as
/// `LightGrid::light_at` (game/src/terrain/light.rs) for a grid of any dimensions.
fn blend(light: &[f32], dims: [usize; 3], point: [f32; 3]) -> f32 {
    let local: [f32; 3] =
        std::array::from_fn(|axis| point[axis].clamp(0.0, (dims[axis] - 1) as f32));
    let low: [usize; 3] =
        std::array::from_fn(|axis| (local[axis].floor() as usize).min(dims[axis] - 2));
    let [fx, fy, fz]: [f32; 3] = std::array::from_fn(|axis| local[axis] - low[axis] as f32);
    let at = |i: usize, j: usize, k: usize| {
        light[(low[0] + i) + dims[0] * ((low[1] + j) + dims[1] * (low[2] + k))]
    };
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    lerp(
        lerp(
            lerp(at(0, 0, 0), at(1, 0, 0), fx),
            lerp(at(0, 1, 0), at(1, 1, 0), fx),
            fy,
        ),
        lerp(
            lerp(at(0, 0, 1), at(1, 0, 1), fx),
            lerp(at(0, 1, 1), at(1, 1, 1), fx),
            fy,
        ),
        fz,
    )
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

fn to_mesh(key: ChunkKey, grid: &TestGrid) -> ChunkToMesh<'_> {
    ChunkToMesh {
        key,
        grid: grid.grid(),
        region: grid.region,
        light: grid.light.as_deref(),
    }
}

/// Meshes `grids` under `keys` in one call of [`TerrainMeshes::mesh_chunks`].
fn mesh_all(
    meshes: &mut TerrainMeshes,
    frames: &mut FrameRing,
    keys: &[ChunkKey],
    grids: &[&TestGrid],
) -> Result<Vec<Option<ResidentChunk>>, TerrainMeshError> {
    assert_eq!(keys.len(), grids.len());
    let chunks: Vec<ChunkToMesh> = keys
        .iter()
        .zip(grids)
        .map(|(&key, grid)| to_mesh(key, grid))
        .collect();
    meshes.mesh_chunks(frames, &chunks)
}

fn mesh(
    meshes: &mut TerrainMeshes,
    frames: &mut FrameRing,
    key: ChunkKey,
    grid: &TestGrid,
) -> Result<Option<ResidentChunk>, TerrainMeshError> {
    meshes.mesh_chunk(frames, key, grid.grid(), grid.region, grid.light.as_deref())
}

/// A chunk's light range out of the read-back light arena.
fn chunk_light(readback: &TerrainReadback, chunk: ResidentChunk) -> &[f32] {
    let first = chunk.vertices.offset as usize;
    &readback.light[first..first + chunk.vertices.size as usize]
}

/// Asserts that a chunk's light equals, vertex by vertex, what the CPU expects at the CPU
/// mesher's vertices; returns the largest deviation.
fn check_light(gpu: &[f32], cpu: &[f32], what: &str) -> f32 {
    assert_eq!(gpu.len(), cpu.len(), "{what}: light values");
    let mut deviation = 0.0f32;
    for (index, (&gpu, &cpu)) in gpu.iter().zip(cpu).enumerate() {
        assert!(
            (gpu - cpu).abs() <= LIGHT_TOLERANCE,
            "{what}: vertex {index} has light {gpu}, the CPU's blend {cpu}"
        );
        deviation = deviation.max((gpu - cpu).abs());
    }
    deviation
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

/// As tests/gpu_surface_nets.rs: every GPU vertex matched one to one to a CPU vertex (positions
/// within 1e-4, normals within 1e-3), then the triangles, winding kept, equal through that
/// matching. Returns whether the meshes are also the same to the bit.
fn new_meshes(gpu: &Gpu, desc: TerrainMeshesDesc) -> (TerrainMeshes, FrameRing) {
    let meshes = TerrainMeshes::new(&gpu.device, &desc).unwrap();
    let frames = FrameRing::new(&gpu.device).unwrap();
    (meshes, frames)
}

/// Reads everything back and checks every resident chunk against the CPU mesh of its grid, and
/// its light against the CPU's blend of its light grid at the CPU's vertices; returns how many
/// meshes were the same to the bit.
fn check_resident(
    meshes: &mut TerrainMeshes,
    expected: &HashMap<ChunkKey, &TestGrid>,
    what: &str,
) -> usize {
    let readback = meshes.read_back().unwrap();
    assert_eq!(
        readback.light.len() * 6,
        readback.vertices.len(),
        "{what}: a light value per vertex"
    );
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
        let cpu = grid.cpu_mesh();
        let what = format!("{what}: chunk {key:?}");
        let comparison = compare(&cpu, &gpu, &what);
        identical += usize::from(comparison.identical);
        check_light(chunk_light(&readback, chunk), &grid.cpu_light(&cpu), &what);
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
            ..TerrainMeshesDesc::default()
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
                    "surface nets: quads",
                    LIGHT_PASS_NAME,
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
        light: None,
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
fn each_vertex_is_lit_by_the_cpus_blend_of_its_light_grid() {
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
            ..TerrainMeshesDesc::default()
        },
    );
    let world: Vec<TestGrid> = world_chunks(8)
        .iter()
        .enumerate()
        .map(|(index, grid)| grid.lit(0.9 * index as f32))
        .collect();
    // A grid that is not a cube: a blend with the dimensions mixed up reads the wrong samples.
    let odd = TestGrid::sphere([10, 13, 7], [4.3, 6.6, 3.2], 3.7).lit(0.4);

    // The test's blend is the game's: LightGrid::light_at of a padded grid at the origin.
    let grid = &world[0];
    let game = LightGrid {
        origin: [0; 3],
        values: grid.light.clone().unwrap(),
    };
    for &position in grid.cpu_mesh().positions.iter().step_by(7) {
        assert_eq!(
            blend(grid.light.as_deref().unwrap(), grid.dims, position).to_bits(),
            game.light_at(position).to_bits(),
            "the test's blend at {position:?}"
        );
    }

    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    for (index, grid) in world.iter().chain([&odd]).enumerate() {
        let key = [index as i32, 0, 0];
        mesh(&mut meshes, &mut frames, key, grid)
            .unwrap()
            .expect("a surface");
        expected.insert(key, grid);
    }
    let readback = meshes.read_back().unwrap();
    assert_eq!(
        meshes.light_buffer().size,
        meshes.vertex_arena().capacity() * LIGHT_BYTES,
        "a light value per vertex of the vertex arena"
    );
    assert_eq!(meshes.light_buffer().name(), "terrain meshes: light arena");
    let mut deviation = 0.0f32;
    let mut vertices = 0;
    let mut lights = Vec::new();
    for (&key, grid) in &expected {
        let chunk = meshes.chunk(key).unwrap();
        let cpu = grid.cpu_mesh();
        // The GPU's vertices come in the CPU's order, so vertex i's light is the blend at the
        // CPU's vertex i.
        let comparison = compare(&cpu, &chunk_mesh(&readback, chunk), "lit");
        assert!(
            comparison.identical,
            "chunk {key:?}: the CPU's vertices in its order"
        );
        let light = chunk_light(&readback, chunk);
        deviation = deviation.max(check_light(
            light,
            &grid.cpu_light(&cpu),
            &format!("chunk {key:?}"),
        ));
        vertices += light.len();
        lights.extend_from_slice(light);
    }
    // Not a constant: the blends vary across the chunks.
    let (low, high) = lights.iter().fold((f32::MAX, f32::MIN), |(low, high), &l| {
        (low.min(l), high.max(l))
    });
    assert!(low < 0.2 && high > 0.8, "light from {low} to {high}");
    eprintln!(
        "{} chunks, {vertices} vertices lit as the CPU blends (light {low:.3} to {high:.3}), \
         largest deviation {deviation:e}",
        expected.len()
    );
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn without_a_light_grid_every_vertex_has_light_one() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: 4 << 20,
            index_arena_bytes: 4 << 20,
            max_chunks: 16,
            ..TerrainMeshesDesc::default()
        },
    );
    let world = world_chunks(3);
    let sphere = TestGrid::sphere([12, 12, 12], [5.5, 5.7, 5.9], 3.6);
    // Lit first, then remeshed without light in the same place: no old light remains.
    let lit = world[0].lit(0.3);
    mesh(&mut meshes, &mut frames, [0, 0, 0], &lit).unwrap();
    let lit_chunk = meshes.chunk([0, 0, 0]).unwrap();
    assert!(meshes.unload([0, 0, 0]));
    let mut keys = Vec::new();
    for (index, grid) in world.iter().chain([&sphere]).enumerate() {
        let key = [index as i32, 1, 0];
        mesh(&mut meshes, &mut frames, key, grid)
            .unwrap()
            .expect("a surface");
        keys.push(key);
    }
    assert_eq!(
        meshes.chunk(keys[0]).unwrap().vertices.offset,
        lit_chunk.vertices.offset,
        "the unlit chunk took the lit one's range"
    );
    let readback = meshes.read_back().unwrap();
    for key in keys {
        let chunk = meshes.chunk(key).unwrap();
        let light = chunk_light(&readback, chunk);
        assert!(
            light.iter().all(|&value| value == 1.0),
            "chunk {key:?}: every vertex has light 1"
        );
    }
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn relighting_changes_one_chunks_light_and_nothing_else() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: 4 << 20,
            index_arena_bytes: 4 << 20,
            max_chunks: 16,
            ..TerrainMeshesDesc::default()
        },
    );
    let world = world_chunks(3);
    let grids: Vec<TestGrid> = vec![
        world[0].lit(0.5),
        world[1].clone(),
        world[2].lit(1.5),
        TestGrid::sphere([10, 13, 7], [4.3, 6.6, 3.2], 3.7).lit(2.5),
    ];
    let keys: Vec<ChunkKey> = (0..grids.len() as i32).map(|i| [i, 2, 0]).collect();
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    for (&key, grid) in keys.iter().zip(&grids) {
        mesh(&mut meshes, &mut frames, key, grid).unwrap().unwrap();
        expected.insert(key, grid);
    }
    check_resident(&mut meshes, &expected, "lit");
    let mut old = meshes.read_back().unwrap();

    // Relight two chunks, the unlit one and the one whose grid is no cube.
    let relit = [grids[1].lit(3.7), grids[3].lit(0.1)];
    for (&key, grid) in [keys[1], keys[3]].iter().zip(&relit) {
        let light = grid.light.as_deref().unwrap();
        assert!(meshes.relight(&mut frames, key, light).unwrap());
        if gpu.device.adapter.timestamps {
            frames.wait_all().unwrap();
            let names: Vec<&str> = frames
                .last_timings()
                .iter()
                .map(|t| t.name.as_str())
                .collect();
            assert_eq!(
                names,
                [
                    RELIGHT_PASS_NAME,
                    "terrain meshes: upload light",
                    LIGHT_PASS_NAME
                ],
                "the relight frame's passes are labelled and timed"
            );
        }
        let new = meshes.read_back().unwrap();
        let chunk = meshes.chunk(key).unwrap();
        assert_ne!(
            chunk_light(&old, chunk),
            chunk_light(&new, chunk),
            "chunk {key:?}: the light changed"
        );
        // Everything outside the chunk's light range is as it was, to the bit.
        let first = chunk.vertices.offset as usize;
        let range = first..first + chunk.vertices.size as usize;
        for (index, (before, after)) in old.light.iter().zip(&new.light).enumerate() {
            if !range.contains(&index) {
                assert_eq!(
                    before.to_bits(),
                    after.to_bits(),
                    "light {index}, outside chunk {key:?}"
                );
            }
        }
        let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&old.vertices), bits(&new.vertices), "the vertices");
        assert_eq!(old.indices, new.indices, "the indices");
        assert_eq!(old.draws, new.draws, "the draws");
        expected.insert(key, grid);
        check_resident(&mut meshes, &expected, &format!("relit {key:?}"));
        old = new;
    }
    let relit_readback = meshes.read_back().unwrap();
    let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();

    // Not resident: nothing to relight.
    let light = wavy_light(world[0].dims, 0.0);
    assert!(!meshes.relight(&mut frames, [9, 9, 9], &light).unwrap());
    // A wrong length, or a value that is not a number, is an error that changes nothing.
    let short = &light[..light.len() - 1];
    let error = meshes.relight(&mut frames, keys[0], short).unwrap_err();
    assert!(
        matches!(
            &error,
            TerrainMeshError::Mesh(GpuMeshError::Gpu(GpuError::Invalid(_)))
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("light grid holds"), "{error}");
    let mut nan = light.clone();
    nan[1000] = f32::NAN;
    let error = meshes.relight(&mut frames, keys[0], &nan).unwrap_err();
    assert!(error.to_string().contains("light value 1000"), "{error}");
    // The grid that is no cube takes a light grid of its own dimensions only.
    let error = meshes.relight(&mut frames, keys[3], &light).unwrap_err();
    assert!(error.to_string().contains("light grid holds"), "{error}");
    // And so does meshing.
    let used = (meshes.vertex_arena().used(), meshes.index_arena().used());
    let mut wrong = grids[0].clone();
    wrong.light = Some(short.to_vec());
    let error = mesh(&mut meshes, &mut frames, [7, 7, 7], &wrong).unwrap_err();
    assert!(error.to_string().contains("light grid holds"), "{error}");
    wrong.light = Some(nan);
    let error = mesh(&mut meshes, &mut frames, keys[0], &wrong).unwrap_err();
    assert!(error.to_string().contains("not a finite number"), "{error}");
    assert_eq!(
        (meshes.vertex_arena().used(), meshes.index_arena().used()),
        used
    );
    assert_eq!(meshes.resident_chunks(), keys.len());
    let after = meshes.read_back().unwrap();
    assert_eq!(bits(&relit_readback.light), bits(&after.light), "the light");
    assert_eq!(bits(&relit_readback.vertices), bits(&after.vertices));
    assert_eq!(relit_readback.indices, after.indices);
    assert_eq!(relit_readback.draws, after.draws);
    check_resident(&mut meshes, &expected, "after the errors");

    // A remesh from a grid of other dimensions changes those a relight takes.
    mesh(&mut meshes, &mut frames, keys[3], &world[0]).unwrap();
    assert!(meshes.relight(&mut frames, keys[3], &light).unwrap());
    let remeshed = TestGrid {
        light: Some(light.clone()),
        ..world[0].clone()
    };
    expected.insert(keys[3], &remeshed);
    check_resident(&mut meshes, &expected, "remeshed and relit");
    // An unloaded chunk is not resident.
    assert!(meshes.unload(keys[0]));
    assert!(!meshes.relight(&mut frames, keys[0], &light).unwrap());
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
            batch: 4,
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
    let mut loads = 0;
    let mut remeshes = 0;
    let mut unloads = 0;
    let mut relights = 0;
    let mut batches = 0;
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
        if let Some(&index) = resident.get(&key) {
            if next() % 4 == 0 {
                let relit = index % base + 2 * base;
                let light = grids[relit].light.as_deref().unwrap();
                assert!(meshes.relight(&mut frames, key, light).unwrap());
                resident.insert(key, relit);
                relights += 1;
                continue;
            }
        }
        // One load in five starts a batch of up to 6 chunks of distinct keys (K = 4: one or two
        // batches in a call).
        let mut batch = vec![(key, pick_grid(&mut next, base))];
        if next() % 5 == 0 {
            for _ in 0..next() % 6 {
                let key = [(next() % 12) as i32, (next() % 4) as i32 - 2, 5];
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
            batches += 1;
            meshes.mesh_chunks(&mut frames, &chunks).unwrap()
        };
        assert_eq!(results.len(), batch.len());
        for (&(key, index), chunk) in batch.iter().zip(results) {
            loads += 1;
            remeshes += usize::from(resident.contains_key(&key));
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
        peak.0 = peak.0.max(resident.len());
        peak.1 = peak.1.max(meshes.vertex_arena().used());
        peak.2 = peak.2.max(meshes.index_arena().used());
        if allocations_after_first.is_none() {
            allocations_after_first = Some(gpu.device.memory_report().allocations);
            buffers_after_first = Some(gpu.device.resources_created().0);
        }
    }
    let report = gpu.device.memory_report();
    let buffers = gpu.device.resources_created().0;
    let milliseconds_per_load = started.elapsed().as_secs_f64() * 1e3 / loads as f64;

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
        "{loads} loads ({remeshes} remeshes, {batches} calls of 2 to 6 chunks, \
         {milliseconds_per_load:.2} ms each), {unloads} unloads, {relights} relights; peak {} resident, {} vertices, {} indices; Vulkan allocations before the \
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
    assert!(relights > 0, "some chunks were relit");
    assert!(batches > 10, "some chunks were meshed in batches");
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
            ..TerrainMeshesDesc::default()
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
            ..TerrainMeshesDesc::default()
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
        &TerrainMeshesDesc {
            vertex_arena_bytes: 10,
            index_arena_bytes: 1 << 20,
            max_chunks: 8,
            ..TerrainMeshesDesc::default()
        },
    )
    .err()
    .expect("no room for a vertex");
    assert!(error.to_string().contains("no room"), "{error}");
    assert_no_validation_errors(&gpu, before);
}

/// One past the last vertex and the last index any of `chunks` took: below that the arenas
/// were all written at some time (their ranges are taken first fit from the start); above
/// it they hold what the memory held before.
fn written(chunks: &[Option<ResidentChunk>], high: &mut (usize, usize)) {
    for chunk in chunks.iter().flatten() {
        high.0 = high
            .0
            .max((chunk.vertices.offset + chunk.vertices.size) as usize);
        high.1 = high
            .1
            .max((chunk.indices.offset + chunk.indices.size) as usize);
    }
}

/// The same bits: every draw, and every vertex, light value and index below `high` (what
/// [`written`] found).
fn assert_same_readback(
    left: &TerrainReadback,
    right: &TerrainReadback,
    high: (usize, usize),
    what: &str,
) {
    let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
    assert_eq!(left.draws, right.draws, "{what}: the draws");
    let (vertices, indices) = high;
    assert!(
        bits(&left.vertices[..vertices * 6]) == bits(&right.vertices[..vertices * 6]),
        "{what}: the vertex arenas differ"
    );
    assert!(
        bits(&left.light[..vertices]) == bits(&right.light[..vertices]),
        "{what}: the light arenas differ"
    );
    assert!(
        left.indices[..indices] == right.indices[..indices],
        "{what}: the index arenas differ"
    );
}

#[test]
fn a_batch_is_the_same_bytes_as_its_chunks_meshed_one_by_one() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let desc = |batch| TerrainMeshesDesc {
        vertex_arena_bytes: 16 << 20,
        index_arena_bytes: 16 << 20,
        max_chunks: 64,
        batch,
    };
    let (mut batched, mut frames) = new_meshes(&gpu, desc(8));
    let (mut single, mut single_frames) = new_meshes(&gpu, desc(1));
    assert_eq!(batched.batch_capacity(), 8);
    assert_eq!(single.batch_capacity(), 1);
    assert_eq!(TerrainMeshesDesc::default().batch, 8, "the default batch");

    // Every other world chunk lit, each its own way.
    let world: Vec<TestGrid> = world_chunks(20)
        .iter()
        .enumerate()
        .map(|(index, grid)| {
            if index % 2 == 0 {
                grid.lit(0.37 * index as f32)
            } else {
                grid.clone()
            }
        })
        .collect();
    let dims = [PADDED_SIZE; 3];
    let solid = TestGrid {
        samples: vec![1.0; PADDED_SIZE.pow(3)],
        dims,
        region: GridRegion::owned_edges_of_padded_grid(dims),
        light: None,
    };
    let spheres = [
        TestGrid::sphere([12, 12, 12], [5.5, 5.7, 5.9], 3.6),
        TestGrid::sphere([10, 13, 7], [4.3, 6.6, 3.2], 3.7).lit(0.4),
        TestGrid::sphere([20, 20, 20], [9.3, 10.1, 9.7], 6.2),
        TestGrid::sphere([16, 16, 16], [7.1, 8.4, 7.7], 5.0),
    ];
    // Resident already, in both: four chunks that the batch remeshes or empties.
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    let mut high = (0, 0);
    for (index, grid) in spheres.iter().enumerate() {
        let key = [index as i32, 0, 0];
        let left = mesh(&mut batched, &mut frames, key, grid).unwrap();
        let right = mesh(&mut single, &mut single_frames, key, grid).unwrap();
        assert_eq!(left, right);
        written(&[left], &mut high);
        expected.insert(key, grid);
    }

    // A batch of 8 (one size frame, one write frame): three remeshes, an empty grid in place
    // of a resident chunk, four new chunks.
    let keys: Vec<ChunkKey> = (0..8).map(|i| [i, 0, 0]).collect();
    let mut grids: Vec<&TestGrid> = world[..8].iter().collect();
    grids[3] = &solid;
    let frame = frames.frame_number();
    let results = mesh_all(&mut batched, &mut frames, &keys, &grids).unwrap();
    assert_eq!(
        frames.frame_number() - frame,
        2,
        "one size frame and one write frame"
    );
    let one_by_one: Vec<Option<ResidentChunk>> = keys
        .iter()
        .zip(&grids)
        .map(|(&key, grid)| mesh(&mut single, &mut single_frames, key, grid).unwrap())
        .collect();
    assert_eq!(results, one_by_one, "where the chunks lie");
    written(&results, &mut high);
    assert_eq!(results[3], None, "the empty grid");
    assert_eq!(batched.chunk(keys[3]), None, "unloaded");
    for (key, grid) in keys.iter().zip(&grids) {
        if results[key[0] as usize].is_some() {
            expected.insert(*key, grid);
        } else {
            expected.remove(key);
        }
    }
    if gpu.device.adapter.timestamps {
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
                "surface nets: quads",
                LIGHT_PASS_NAME,
            ],
            "a batch's write frame: a labelled, timed pass around each pass of every chunk"
        );
    }
    let identical = check_resident(&mut batched, &expected, "a batch of 8");
    assert_eq!(identical, expected.len(), "the CPU's meshes to the bit");
    check_resident(&mut single, &expected, "one by one");
    assert_same_readback(
        &batched.read_back().unwrap(),
        &single.read_back().unwrap(),
        high,
        "a batch of 8",
    );

    // A batch of 20 with K = 8: three size frames and three write frames.
    let keys: Vec<ChunkKey> = (0..20).map(|i| [i, 1, 0]).collect();
    let grids: Vec<&TestGrid> = world.iter().collect();
    let frame = frames.frame_number();
    let results = mesh_all(&mut batched, &mut frames, &keys, &grids).unwrap();
    assert_eq!(
        frames.frame_number() - frame,
        6,
        "three batches of two frames"
    );
    let one_by_one: Vec<Option<ResidentChunk>> = keys
        .iter()
        .zip(&grids)
        .map(|(&key, grid)| mesh(&mut single, &mut single_frames, key, grid).unwrap())
        .collect();
    assert_eq!(results, one_by_one, "where the chunks lie");
    written(&results, &mut high);
    assert!(
        results.iter().all(Option::is_some),
        "world chunks with a surface"
    );
    for (key, grid) in keys.iter().zip(&grids) {
        expected.insert(*key, grid);
    }
    let identical = check_resident(&mut batched, &expected, "a batch of 20");
    assert_eq!(identical, expected.len(), "the CPU's meshes to the bit");
    assert_same_readback(
        &batched.read_back().unwrap(),
        &single.read_back().unwrap(),
        high,
        "a batch of 20",
    );
    eprintln!(
        "batches of 8 and 20 (K = 8) equal the same chunks meshed one by one, {} chunks the \
         CPU's to the bit",
        expected.len()
    );

    // An empty call does nothing.
    let frame = frames.frame_number();
    assert!(batched.mesh_chunks(&mut frames, &[]).unwrap().is_empty());
    assert_eq!(frames.frame_number(), frame);
    drop(batched);
    drop(single);
    drop(frames);
    drop(single_frames);
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_batch_with_a_bad_chunk_or_a_key_twice_changes_nothing() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: 8 << 20,
            index_arena_bytes: 8 << 20,
            max_chunks: 32,
            batch: 4,
        },
    );
    let world: Vec<TestGrid> = world_chunks(6)
        .iter()
        .enumerate()
        .map(|(index, grid)| grid.lit(0.5 * index as f32))
        .collect();
    let keys: Vec<ChunkKey> = (0..6).map(|i| [i, 3, 0]).collect();
    let grids: Vec<&TestGrid> = world.iter().collect();
    mesh_all(&mut meshes, &mut frames, &keys[..4], &grids[..4]).unwrap();
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    for (key, grid) in keys[..4].iter().zip(&grids) {
        expected.insert(*key, grid);
    }
    let old = meshes.read_back().unwrap();
    let used = (meshes.vertex_arena().used(), meshes.index_arena().used());
    // The arenas hold the four chunks from the start, nothing freed.
    let high = (used.0 as usize, used.1 as usize);
    let unchanged = |meshes: &mut TerrainMeshes, frames: &FrameRing, frame: u64, what: &str| {
        assert_eq!(frames.frame_number(), frame, "{what}: nothing submitted");
        assert_eq!(
            (meshes.vertex_arena().used(), meshes.index_arena().used()),
            used,
            "{what}: the arenas"
        );
        assert_eq!(meshes.resident_chunks(), 4, "{what}: residents");
        assert_same_readback(&old, &meshes.read_back().unwrap(), high, what);
    };

    // A grid that is not finite, the last of a batch of 6 (the second batch of K = 4).
    let mut nan = world[5].clone();
    nan.samples[777] = f32::NAN;
    let mut bad = grids.clone();
    bad[5] = &nan;
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &keys, &bad).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::Mesh(GpuMeshError::Grid(MeshError::NotFinite { index: 777, .. }))
        ),
        "{error:?}"
    );
    unchanged(&mut meshes, &frames, frame, "a grid not finite");

    // A light grid of the wrong length, in the middle.
    let mut short = world[2].clone();
    short.light.as_mut().unwrap().pop();
    let mut bad = grids.clone();
    bad[2] = &short;
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &keys, &bad).unwrap_err();
    assert!(error.to_string().contains("light grid holds"), "{error}");
    unchanged(&mut meshes, &frames, frame, "a light grid too short");

    // A key twice.
    let twice = [keys[4], keys[0], keys[4]];
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &twice, &grids[..3]).unwrap_err();
    assert!(
        matches!(
            &error,
            TerrainMeshError::Mesh(GpuMeshError::Gpu(GpuError::Invalid(_)))
        ),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("is both chunk 0 and chunk 2"),
        "{error}"
    );
    eprintln!("a key twice: {error}");
    unchanged(&mut meshes, &frames, frame, "a key twice");
    check_resident(&mut meshes, &expected, "after the errors");
    drop(meshes);
    drop(frames);

    // A batch of K = 0 is refused when made.
    let error = TerrainMeshes::new(
        &gpu.device,
        &TerrainMeshesDesc {
            batch: 0,
            ..TerrainMeshesDesc::default()
        },
    )
    .err()
    .expect("no batch slot");
    assert!(error.to_string().contains("batch 0"), "{error}");
    assert_no_validation_errors(&gpu, before);
}

#[test]
fn a_chunk_of_a_batch_that_does_not_fit_stops_the_batch_there() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let world = world_chunks(4);
    let vertices: Vec<u64> = world
        .iter()
        .map(|grid| grid.cpu_mesh().positions.len() as u64)
        .collect();
    // Room for the first two chunks and all but one vertex of the third.
    let (mut meshes, mut frames) = new_meshes(
        &gpu,
        TerrainMeshesDesc {
            vertex_arena_bytes: (vertices[0] + vertices[1] + vertices[2] - 1) * VERTEX_BYTES,
            index_arena_bytes: 8 << 20,
            max_chunks: 16,
            batch: 8,
        },
    );
    let keys: Vec<ChunkKey> = (0..4).map(|i| [i, 4, 0]).collect();
    let grids: Vec<&TestGrid> = world.iter().collect();
    let frame = frames.frame_number();
    let error = mesh_all(&mut meshes, &mut frames, &keys, &grids).unwrap_err();
    assert!(
        matches!(
            error,
            TerrainMeshError::ArenaFull {
                key,
                kind: ArenaKind::Vertex,
                previous_dropped: false,
                ..
            } if key == keys[2]
        ),
        "{error:?}"
    );
    assert_eq!(
        frames.frame_number() - frame,
        2,
        "the size frame, and the write frame of the chunks before"
    );
    // The chunks before it are meshed; it and those after it are not resident.
    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    expected.insert(keys[0], grids[0]);
    expected.insert(keys[1], grids[1]);
    check_resident(&mut meshes, &expected, "stopped at the third chunk");
    assert_eq!(meshes.chunk(keys[2]), None);
    assert_eq!(meshes.chunk(keys[3]), None);
    assert_eq!(
        meshes.vertex_arena().used(),
        vertices[0] + vertices[1],
        "no range for the chunks from the third on"
    );
    drop(meshes);
    drop(frames);
    assert_no_validation_errors(&gpu, before);
}
