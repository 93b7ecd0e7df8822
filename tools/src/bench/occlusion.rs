//! `bench -- occlusion`: what the blocks' ambient occlusion adds to meshing a region
//! (`region_vertices`, as the renderer meshes a region after an edit), on two dense regions
//! standing on the generated ground at the spawn: a city of 1 m columns and a heap of 0.5 m
//! blocks. Each timed as the mesh and its vertices alone, with the occlusion by the blocks, and
//! with the ground's too (through a `GroundSampler`, and probed per cell for comparison); mean
//! of 20 runs after one warm-up.

use std::time::Instant;

use blockfall_game::blocks::mesher::{mesh_region, BlockMesh};
use blockfall_game::blocks::store::{region_of, Block, BlockStore};
use blockfall_game::terrain::Generator;
use blockfall_game::world::World;
use blockfall_game_render::structures::blocks::region_vertices;
use blockfall_game_render::structures::{vertices_of, LitGround};
use blockfall_physics::workers::WorkerPool;

/// A plain block of `size` cells, its low cell at (x, y, z).
fn plain(x: i32, y: i32, z: i32, size: u8) -> Block {
    Block::new(x, y, z, size, 0, 0, false).expect("a plain block of a valid size")
}

/// Builds the two regions and prints their meshing times.
pub fn run() -> anyhow::Result<()> {
    let pool = WorkerPool::new(1)?;
    let world = World::at_spawn(Generator::DEFAULT_SEED, 1, pool);
    let spawn = world.player().position;
    let origin = region_of(
        (spawn.x * 2.0) as i32,
        (spawn.y * 2.0) as i32,
        (spawn.z * 2.0) as i32,
    )
    .map(|r| r * 64);
    let ground_cell = |x: i32, z: i32| {
        (origin[1] - 64..origin[1] + 128)
            .find(|&y| !world.inside_ground([x, y, z].map(|c| (c as f32 + 0.5) * 0.5)))
            .unwrap_or(origin[1])
    };
    let mut seed = 0x9E37_79B9_u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    // A city: a column of 1 m blocks on every other 1 m square, 1 to 16 blocks high, from
    // the ground up; and a checkerboard-ish heap of 0.5 m blocks.
    let mut city = BlockStore::new();
    for x in (0..64).step_by(4) {
        for z in (0..64).step_by(2) {
            let (x, z) = (origin[0] + x + (z / 2 % 2) * 2, origin[2] + z);
            let floor = ground_cell(x, z).max(origin[1]);
            let height = 1 + next() % 16;
            for level in 0..height as i32 {
                let y = floor + 2 * level;
                if region_of(x, y, z)[1] != origin[1] / 64 {
                    break;
                }
                let _ = city.add(plain(x, y, z, 2));
            }
        }
    }
    let mut heap = BlockStore::new();
    for x in 0..64 {
        for z in 0..64 {
            let floor = ground_cell(origin[0] + x, origin[2] + z).max(origin[1]);
            for y in floor..origin[1] + 24 {
                if next() % 3 == 0 {
                    let _ = heap.add(plain(origin[0] + x, y, origin[2] + z, 1));
                }
            }
        }
    }
    let region = origin.map(|c| c / 64);

    for (name, store) in [("city", &city), ("heap", &heap)] {
        let mut mesh = BlockMesh::new();
        let repeats = 20;
        let mut time = |run: &mut dyn FnMut(&mut BlockMesh) -> usize| {
            run(&mut BlockMesh::new());
            let start = Instant::now();
            let mut vertices = 0;
            for _ in 0..repeats {
                vertices = run(&mut mesh);
            }
            (
                start.elapsed().as_secs_f64() * 1e3 / f64::from(repeats),
                vertices,
            )
        };
        let (before, vertices) = time(&mut |mesh| {
            mesh.clear();
            mesh_region(store, region, mesh);
            vertices_of(mesh, |_| 1.0).len()
        });
        let (blocks, _) =
            time(&mut |mesh| region_vertices(mesh, store, region, &|_: [f32; 3]| 1.0).len());
        // A sampler per sync, as `WorldRenderer::sync` makes: the bounds looked at anew.
        let (ground, _) = time(&mut |mesh| {
            let grounds = world.ground_sampler();
            let around = LitGround {
                light: &|_| 1.0,
                ground: &|point| grounds.inside(point),
            };
            region_vertices(mesh, store, region, &around).len()
        });
        // The ground probed for every cell instead (`World::inside_ground`).
        let (probed, _) = time(&mut |mesh| {
            let around = LitGround {
                light: &|_| 1.0,
                ground: &|point| world.inside_ground(point),
            };
            region_vertices(mesh, store, region, &around).len()
        });
        let grounds = world.ground_sampler();
        let around = LitGround {
            light: &|_| 1.0,
            ground: &|point| grounds.inside(point),
        };
        let darker = region_vertices(&mut mesh, store, region, &around)
            .iter()
            .filter(|v| v.occlusion < 1.0)
            .count();
        println!(
            "{name}: {} blocks, {vertices} vertices ({darker} darker): mesh + vertices \
             {before:.2} ms; with occlusion by the blocks {blocks:.2} ms; and the ground \
             {ground:.2} ms (probed per cell: {probed:.2} ms)",
            store.count()
        );
    }
    Ok(())
}
