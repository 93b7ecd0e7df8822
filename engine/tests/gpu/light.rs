//! The terrain arenas' light: each vertex of a chunk meshed with a light grid is lit by the
//! CPU reference, `blockfall_engine::meshing::vertex_light::blend` of that grid at the CPU mesher's
//! vertex (within 1e-5; grids that are no cube included, so mixed-up axes fail); without a light
//! grid every vertex has light 1, even in a range a lit chunk held. Relighting a resident chunk
//! (a frame of labelled, timed passes) changes its light range and no other bit of any arena;
//! a light grid of the wrong length or with a value that is not a number is an error that
//! changes nothing, in a relight as in a mesh; a chunk not resident is not relit.

use std::collections::HashMap;

use blockfall_engine::gpu::GpuError;
use blockfall_engine::meshing::terrain_meshes::{
    ChunkKey, LIGHT_BYTES, LIGHT_PASS_NAME, RELIGHT_PASS_NAME,
};
use blockfall_engine::meshing::{GpuMeshError, TerrainMeshError};

use crate::common::{self, assert_no_validation_errors};
use crate::grids::{terrain_chunks, wavy_light, TestGrid};
use crate::meshes::compare;
use crate::readback::{assert_timed_passes, check_light, chunk_light, chunk_mesh, LIGHT_TOLERANCE};
use crate::resident::{assert_same_arenas, bits, check_resident, desc, mesh, new_meshes, used};

#[test]
fn each_vertex_is_lit_by_the_cpus_blend_of_its_light_grid() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let before = gpu.validation_errors();
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(8 << 20, 8 << 20, 64));
    let terrain: Vec<TestGrid> = terrain_chunks(8)
        .iter()
        .enumerate()
        .map(|(index, grid)| grid.lit(0.9 * index as f32))
        .collect();
    // A grid that is not a cube: a blend with the dimensions mixed up reads the wrong samples.
    let odd = TestGrid::sphere([10, 13, 7], [4.3, 6.6, 3.2], 3.7).lit(0.4);

    let mut expected: HashMap<ChunkKey, &TestGrid> = HashMap::new();
    for (index, grid) in terrain.iter().chain([&odd]).enumerate() {
        let key = [index as i32, 0, 0, 0];
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
            comparison.same(),
            "chunk {key:?}: the CPU's vertices in its order"
        );
        let light = chunk_light(&readback, chunk);
        deviation = deviation.max(check_light(
            light,
            &grid.cpu_light(&cpu),
            LIGHT_TOLERANCE,
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
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(4 << 20, 4 << 20, 16));
    let terrain = terrain_chunks(3);
    let sphere = TestGrid::sphere([12, 12, 12], [5.5, 5.7, 5.9], 3.6);
    // Lit first, then remeshed without light in the same place: no old light remains.
    let lit = terrain[0].lit(0.3);
    mesh(&mut meshes, &mut frames, [0, 0, 0, 0], &lit).unwrap();
    let lit_chunk = meshes.chunk([0, 0, 0, 0]).unwrap();
    assert!(meshes.unload([0, 0, 0, 0]));
    let mut keys = Vec::new();
    for (index, grid) in terrain.iter().chain([&sphere]).enumerate() {
        let key = [index as i32, 1, 0, 0];
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
    let (mut meshes, mut frames) = new_meshes(&gpu, desc(4 << 20, 4 << 20, 16));
    let terrain = terrain_chunks(3);
    let grids: Vec<TestGrid> = vec![
        terrain[0].lit(0.5),
        terrain[1].clone(),
        terrain[2].lit(1.5),
        TestGrid::sphere([10, 13, 7], [4.3, 6.6, 3.2], 3.7).lit(2.5),
    ];
    let keys: Vec<ChunkKey> = (0..grids.len() as i32).map(|i| [i, 2, 0, 0]).collect();
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
        let passes = [
            RELIGHT_PASS_NAME,
            "terrain meshes: upload light",
            LIGHT_PASS_NAME,
        ];
        assert_timed_passes(&gpu, &mut frames, &passes, "the relight frame");
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
        assert_eq!(bits(&old.vertices), bits(&new.vertices), "the vertices");
        assert_eq!(old.indices, new.indices, "the indices");
        assert_eq!(old.draws, new.draws, "the draws");
        expected.insert(key, grid);
        check_resident(&mut meshes, &expected, &format!("relit {key:?}"));
        old = new;
    }
    let relit_readback = meshes.read_back().unwrap();

    // Not resident: nothing to relight.
    let light = wavy_light(terrain[0].dims, 0.0);
    assert!(!meshes.relight(&mut frames, [9, 9, 9, 0], &light).unwrap());
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
    let before_errors = used(&meshes);
    let mut wrong = grids[0].clone();
    wrong.light = Some(short.to_vec());
    let error = mesh(&mut meshes, &mut frames, [7, 7, 7, 0], &wrong).unwrap_err();
    assert!(error.to_string().contains("light grid holds"), "{error}");
    wrong.light = Some(nan);
    let error = mesh(&mut meshes, &mut frames, keys[0], &wrong).unwrap_err();
    assert!(error.to_string().contains("not a finite number"), "{error}");
    assert_eq!(used(&meshes), before_errors);
    assert_eq!(meshes.resident_chunks(), keys.len());
    let after = meshes.read_back().unwrap();
    assert_same_arenas(&relit_readback, &after, "after the errors");
    check_resident(&mut meshes, &expected, "after the errors");

    // A remesh from a grid of other dimensions changes those a relight takes.
    mesh(&mut meshes, &mut frames, keys[3], &terrain[0]).unwrap();
    assert!(meshes.relight(&mut frames, keys[3], &light).unwrap());
    let remeshed = TestGrid {
        light: Some(light.clone()),
        ..terrain[0].clone()
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
