//! The two CPU meshers on the game's own world: the 50 chunks with a surface nearest the
//! default world's spawn, meshed by marching cubes (each chunk's own cells, as the terrain
//! meshes them) and by Paul Bourke's marching cubes over the same cells
//! (`blockfall_test_support::marching_cubes`): every vertex one of his, the same triangles
//! where no face is ambiguous, the same area within 0.1 %.

use std::sync::Arc;

use blockfall_engine::meshing::{
    is_uniform, DensityGrid, GridRegion, MarchingCubes, SurfaceMesh, SurfaceNets,
};
use blockfall_game::terrain::chunks::{fill_padded_grid, load_order};
use blockfall_game::terrain::{EditStore, Generator, PADDED_SIZE};
use blockfall_test_support::marching_cubes::compare;

#[test]
fn fifty_chunks_of_the_world_mesh_as_bourkes_marching_cubes_mesh_them() {
    let edits = EditStore::new(Arc::new(Generator::new(Generator::DEFAULT_SEED)));
    let spawn = edits.generator().spawn_point();
    let dims = [PADDED_SIZE; 3];
    let region = GridRegion::owned_edges_of_padded_grid(dims);
    let mut mesher = MarchingCubes::new();
    let mut nets = SurfaceNets::new();
    // Vertices and indices of both meshers: the terrain's arenas hold either.
    let (mut net_sizes, mut cube_sizes) = ((0, 0), (0, 0));
    let mut mesh = SurfaceMesh::new();
    let mut samples = Vec::new();
    let (mut chunks, mut ours, mut theirs, mut area, mut their_area, mut ambiguous) =
        (0, 0, 0, 0.0, 0.0, 0);
    for coord in load_order(spawn, 6) {
        if chunks == 50 {
            break;
        }
        fill_padded_grid(&edits, coord, &mut samples);
        if is_uniform(&samples) {
            continue;
        }
        let grid = DensityGrid::new(&samples, dims).expect("a chunk's grid");
        nets.mesh(grid, region, &mut mesh).expect("meshed");
        net_sizes.0 += mesh.positions.len();
        net_sizes.1 += mesh.indices.len();
        mesher.mesh(grid, region, &mut mesh).expect("meshed");
        cube_sizes.0 += mesh.positions.len();
        cube_sizes.1 += mesh.indices.len();
        let found = compare(
            (&mesh.positions, &mesh.indices),
            &samples,
            dims,
            (region.min, region.max),
        )
        .unwrap_or_else(|error| panic!("chunk {coord:?}: {error}"));
        if found.ambiguous_cells == 0 {
            assert_eq!(found.triangles.0, found.triangles.1, "chunk {coord:?}");
        }
        chunks += 1;
        ours += found.triangles.0;
        theirs += found.triangles.1;
        area += found.area.0;
        their_area += found.area.1;
        ambiguous += found.ambiguous_cells;
    }
    assert_eq!(
        chunks, 50,
        "chunks with a surface within 6 chunks of the spawn"
    );
    println!(
        "50 chunks: {ours} triangles (Bourke's {theirs}), area {area:.1} ({their_area:.1}), \
         {ambiguous} cells with an ambiguous face; vertices and indices: marching cubes \
         {cube_sizes:?}, surface nets {net_sizes:?}"
    );
    assert!(ours > 10_000, "{ours} triangles");
    assert!(
        ours.abs_diff(theirs) <= 4 * ambiguous,
        "{ours} {theirs} {ambiguous}"
    );
    assert!(
        (area - their_area).abs() <= 1e-3 * their_area,
        "{area} against {their_area}"
    );
}
