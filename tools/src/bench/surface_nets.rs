//! `bench -- surface-nets`: blockfall's CPU surface nets against `fast-surface-nets` 0.2, and its
//! CPU marching cubes against Paul Bourke's (his tables, cell by cell:
//! `blockfall_test_support::marching_cubes`), in one run, on three cases of padded 34³-sample
//! grids: a sphere, a dense sine field, and the chunks of the default world nearest the spawn
//! point. Per case and mesher: nanoseconds per cell, triangles, triangles per second and the
//! speed-up over the other implementation of the same method, as a Markdown table.

use std::time::{Duration, Instant};

use blockfall_engine::meshing::{DensityGrid, GridRegion, MarchingCubes, SurfaceMesh, SurfaceNets};
use blockfall_test_support::marching_cubes::bourke;
use fast_surface_nets::ndshape::{ConstShape, ConstShape3u32};
use fast_surface_nets::{surface_nets, SurfaceNetsBuffer};

use crate::bench::shared::{padded_grid, world_chunks, PADDED};

/// One case of the surface-nets benchmark: grids of `PADDED`³ samples.
struct MeshCase {
    name: &'static str,
    grids: Vec<Vec<f32>>,
}

fn analytic_grid(density: impl Fn(f32, f32, f32) -> f32) -> Vec<f32> {
    let mut samples = Vec::with_capacity(PADDED * PADDED * PADDED);
    for z in 0..PADDED {
        for y in 0..PADDED {
            for x in 0..PADDED {
                samples.push(density(x as f32, y as f32, z as f32));
            }
        }
    }
    samples
}

/// Grids meshed per timed pass at least: a single grid is meshed this often per pass, so that a
/// pass lasts long enough for the clock and one stray interruption does not decide it.
const GRIDS_PER_PASS: usize = 500;

/// A mesher under test: meshes one grid, returns its triangle count.
type Mesher<'a> = dyn FnMut(&[f32]) -> usize + 'a;

/// Times two meshers on the same grids, passes taking turns so that a slow spell of the machine
/// hits both alike: for each, the fastest pass over every grid (a pass meshes the grids as often
/// as it takes to reach [`GRIDS_PER_PASS`]) and the triangles of one pass.
fn race(
    repeats: u32,
    grids: [&[Vec<f32>]; 2],
    mut meshers: [&mut Mesher<'_>; 2],
) -> [(Duration, usize); 2] {
    let mut results = [(Duration::MAX, 0); 2];
    for _ in 0..repeats {
        for ((grids, mesh), result) in grids.iter().zip(meshers.iter_mut()).zip(&mut results) {
            let rounds = GRIDS_PER_PASS.div_ceil(grids.len().max(1));
            let started = Instant::now();
            let mut triangles = 0;
            for _ in 0..rounds {
                triangles = grids.iter().map(|grid| mesh(grid)).sum();
            }
            result.0 = result.0.min(started.elapsed() / rounds as u32);
            result.1 = triangles;
        }
    }
    results
}

/// Meshes each case with both meshers, `repeats` passes each taking turns, on the `chunk_count`
/// chunks nearest the spawn point for the world's case; prints the table.
pub fn run(repeats: u32, chunk_count: u32) -> anyhow::Result<()> {
    type PaddedShape = ConstShape3u32<34, 34, 34>;
    anyhow::ensure!(
        PaddedShape::SIZE as usize == PADDED * PADDED * PADDED,
        "shape mismatch"
    );

    let (edits, nearest) = world_chunks(chunk_count, |_, _| true);
    anyhow::ensure!(
        nearest.len() == chunk_count as usize,
        "only {} chunks within the radius",
        nearest.len()
    );
    let world: Vec<Vec<f32>> = nearest
        .iter()
        .map(|&coord| padded_grid(&edits, coord))
        .collect();
    let cases = [
        MeshCase {
            name: "(a) sphere, r = 13, one 32³ chunk",
            grids: vec![analytic_grid(|x, y, z| {
                13.0 - ((x - 16.5).powi(2) + (y - 16.5).powi(2) + (z - 16.5).powi(2)).sqrt()
            })],
        },
        MeshCase {
            name: "(b) dense sine field, one 32³ chunk",
            grids: vec![analytic_grid(|x, y, z| {
                (x * 0.9).sin() + (y * 1.3).sin() + (z * 0.7).sin() + 0.3
            })],
        },
        MeshCase {
            name: "(c) the 500 chunks nearest the spawn point",
            grids: world,
        },
    ];

    let dims = [PADDED; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let cells_per_grid = ((PADDED - 1) * (PADDED - 1) * (PADDED - 1)) as f64;
    let mut ours = SurfaceNets::new();
    let mut mesh = SurfaceMesh::new();
    let mut theirs = SurfaceNetsBuffer::default();
    println!(
        "surface nets and marching cubes on {PADDED}³-sample grids ({} cells each), fastest of {repeats} passes of at least {GRIDS_PER_PASS} grids; the speed-up is over the other implementation of the same method",
        cells_per_grid
    );
    println!("| case | mesher | ns per cell | triangles | triangles per second | speed-up |");
    println!("|---|---|---|---|---|---|");
    for case in &cases {
        // fast-surface-nets takes negative as inside; negate outside the timing.
        let negated: Vec<Vec<f32>> = case
            .grids
            .iter()
            .map(|g| g.iter().map(|d| -d).collect())
            .collect();
        let mut failure = None;
        let mut ours_mesh = |grid: &[f32]| {
            let result = DensityGrid::new(grid, dims)
                .and_then(|density| ours.mesh(density, region, &mut mesh));
            if let Err(error) = result {
                failure = Some(error);
            }
            mesh.triangle_count()
        };
        let mut theirs_mesh = |grid: &[f32]| {
            surface_nets(grid, &PaddedShape {}, [0; 3], [33; 3], &mut theirs);
            theirs.indices.len() / 3
        };
        let [(our_time, our_triangles), (their_time, their_triangles)] = race(
            repeats,
            [&case.grids, &negated],
            [&mut ours_mesh, &mut theirs_mesh],
        );
        if let Some(error) = failure {
            anyhow::bail!("meshing {}: {error}", case.name);
        }
        // Marching cubes: ours, and Bourke's over the same cells (the chunk's own).
        let mut cubes = MarchingCubes::new();
        let mut cubes_mesh = |grid: &[f32]| {
            let result = DensityGrid::new(grid, dims)
                .and_then(|density| cubes.mesh(density, region, &mut mesh));
            if let Err(error) = result {
                failure = Some(error);
            }
            mesh.triangle_count()
        };
        let mut soup = Vec::new();
        let mut bourke_mesh = |grid: &[f32]| {
            bourke(grid, dims, (region.min, region.max), &mut soup);
            soup.len()
        };
        let [(cubes_time, cubes_triangles), (bourke_time, bourke_triangles)] = race(
            repeats,
            [&case.grids, &case.grids],
            [&mut cubes_mesh, &mut bourke_mesh],
        );
        if let Some(error) = failure {
            anyhow::bail!("meshing {}: {error}", case.name);
        }
        let cells = cells_per_grid * case.grids.len() as f64;
        for (mesher, time, triangles, other) in [
            (
                "blockfall surface nets",
                our_time,
                our_triangles,
                their_time,
            ),
            (
                "fast-surface-nets 0.2",
                their_time,
                their_triangles,
                our_time,
            ),
            (
                "blockfall marching cubes",
                cubes_time,
                cubes_triangles,
                bourke_time,
            ),
            (
                "Bourke's marching cubes",
                bourke_time,
                bourke_triangles,
                cubes_time,
            ),
        ] {
            let speed_up = other.as_secs_f64() / time.as_secs_f64();
            println!(
                "| {} | {mesher} | {:.2} | {triangles} | {:.1} M | {:.2}× |",
                case.name,
                time.as_secs_f64() * 1e9 / cells,
                triangles as f64 / time.as_secs_f64() / 1e6,
                speed_up
            );
        }
    }
    Ok(())
}
