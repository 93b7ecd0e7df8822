//! The block mesher (docs/blocks.md): the triangles of a set of blocks, per region or per piece.
//!
//! Each block's [`Shape`](super::shapes::Shape) is scaled to the block's size and moved to its place on the grid. Its
//! cut surfaces (`inner`) are always drawn; each cube side only where no neighbour covers it, as
//! [`covered`] decides for the collision question too (plain blocks must fill every cell beyond
//! the side). A piece passes the store of its own blocks, so the sides between them go as well.
//!
//! Every vertex carries its material (the texture layer), its normal and a texture coordinate
//! projected from its grid position in meters, one texture repeat per meter, along the dominant
//! axis of the triangle's normal (triplanar: ±x → (z, y), ±y → (x, z), ±z → (x, y)). So the
//! pattern runs on across neighbouring blocks and stays on a block when it later moves as a
//! piece, whose mesh keeps the grid positions. The axis is chosen per triangle, not per vertex,
//! so that no triangle of a rounded edge smears two projections; a vertex used with two axes is
//! emitted twice.
//!
//! Far from the origin an `f32` texture coordinate would lose its fraction, so each block's
//! coordinates are taken from its low corner wrapped by [`UV_WRAP_METERS`], a whole number of
//! repeats, into `±UV_WRAP_METERS / 2` (so near the origin they are the grid position itself):
//! the same texels under repeat sampling, and every triangle lies within one block.
//!
//! The vertices' ambient occlusion depends on what is around the blocks, not only on the store
//! meshed (a region's neighbours, the ground): the caller adds it afterwards
//! ([`super::occlusion::occlude`]).

use super::shapes::{shape_of, MeshPart};
use super::store::{covered, Block, BlockId, BlockStore, CELL};

/// Texture coordinates repeat every meter; a block's low corner is taken modulo this many
/// meters (a whole number of repeats) so that coordinates keep their precision far out.
pub const UV_WRAP_METERS: i32 = 1024;

/// Not yet emitted with this projection axis.
const NONE: u32 = u32::MAX;

/// Triangles of blocks, in the grid's frame in meters, ready for the renderer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlockMesh {
    /// Meters, in the grid's (world's) frame.
    pub positions: Vec<[f32; 3]>,
    /// Unit, pointing out of the block.
    pub normals: Vec<[f32; 3]>,
    /// Projected from the grid position, one repeat per meter.
    pub uvs: Vec<[f32; 2]>,
    /// The block's material index: its texture layer.
    pub layers: Vec<u32>,
    /// Counter-clockwise seen from outside.
    pub indices: Vec<u32>,
    /// How open each vertex is, 0 to 1 (ambient occlusion, see [`super::occlusion`]): filled by
    /// [`super::occlusion::occlude`] after meshing, empty until then (every vertex open).
    pub occlusion: Vec<f32>,
    /// Per vertex of the part being emitted, its index in the mesh for each projection axis.
    remap: Vec<[u32; 3]>,
}

impl BlockMesh {
    pub fn new() -> BlockMesh {
        BlockMesh::default()
    }

    /// Empties the mesh, keeping its memory for the next build.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.uvs.clear();
        self.layers.clear();
        self.indices.clear();
        self.occlusion.clear();
        self.remap.clear();
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Appends one part of a block's shape, scaled to the block and placed on the grid.
    fn push_mesh_part(&mut self, part: &MeshPart, block: &Block) {
        let meters = f64::from(block.size) * f64::from(CELL);
        let cell = f64::from(CELL);
        let low = block.low();
        let world_low = low.map(|c| f64::from(c) * cell);
        // The low corner for texture coordinates, wrapped by whole repeats into
        // [-UV_WRAP_METERS / 2, UV_WRAP_METERS / 2): the grid position itself near the origin.
        let wrap_cells = i64::from(UV_WRAP_METERS) * 2;
        let half = wrap_cells / 2;
        let uv_low =
            low.map(|c| ((i64::from(c) + half).rem_euclid(wrap_cells) - half) as f64 * cell);
        let layer = u32::from(block.material);

        self.remap.clear();
        self.remap.resize(part.positions.len(), [NONE; 3]);
        for triangle in part.indices.chunks_exact(3) {
            let mut sum = [0.0f32; 3];
            for &index in triangle {
                let normal = part.normals[index as usize];
                for axis in 0..3 {
                    sum[axis] += normal[axis];
                }
            }
            let axis = dominant_axis(sum);
            for &index in triangle {
                let index = index as usize;
                let emitted = self.remap[index][axis];
                if emitted != NONE {
                    self.indices.push(emitted);
                    continue;
                }
                let unit = part.positions[index];
                let local = unit.map(|c| f64::from(c) * meters);
                let position = [0, 1, 2].map(|a| (world_low[a] + local[a]) as f32);
                let textured = [0, 1, 2].map(|a| uv_low[a] + local[a]);
                let uv = match axis {
                    0 => [textured[2], textured[1]],
                    1 => [textured[0], textured[2]],
                    _ => [textured[0], textured[1]],
                };
                let next = self.positions.len() as u32;
                self.positions.push(position);
                self.normals.push(part.normals[index]);
                self.uvs.push(uv.map(|c| c as f32));
                self.layers.push(layer);
                self.indices.push(next);
                self.remap[index][axis] = next;
            }
        }
    }
}

/// The axis a normal points most along; ties go to the lower axis.
fn dominant_axis(normal: [f32; 3]) -> usize {
    let [x, y, z] = normal.map(f32::abs);
    if x >= y && x >= z {
        0
    } else if y >= z {
        1
    } else {
        2
    }
}

/// Appends the meshes of `blocks`, which live in `store`, leaving out every side a neighbour in
/// `store` covers. Ids of removed blocks are skipped. A piece passes its own store.
pub fn mesh_blocks(
    store: &BlockStore,
    blocks: impl IntoIterator<Item = BlockId>,
    out: &mut BlockMesh,
) {
    for id in blocks {
        let Some(block) = store.get(id) else {
            continue;
        };
        let shape = shape_of(block.cuts, block.slope);
        out.push_mesh_part(&shape.inner, block);
        for (side, part) in shape.sides.iter().enumerate() {
            if !part.indices.is_empty() && !covered(store, block, side) {
                out.push_mesh_part(part, block);
            }
        }
    }
}

/// Appends the mesh of the blocks whose lowest cell lies in `region` (see
/// [`BlockStore::in_region`]); neighbours in other regions still cover their sides.
pub fn mesh_region(store: &BlockStore, region: [i32; 3], out: &mut BlockMesh) {
    mesh_blocks(store, store.in_region(region), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(x: i32, y: i32, z: i32, size: u8) -> Block {
        Block::new(x, y, z, size, 2, 0, false).unwrap()
    }

    /// Triangles of one side of a plain block, whatever the shape module makes of it.
    fn side_triangles() -> usize {
        let shape = shape_of(0, false);
        let counts: Vec<usize> = shape.sides.iter().map(|p| p.indices.len() / 3).collect();
        assert!(counts.iter().all(|&c| c == counts[0] && c > 0));
        assert!(shape.inner.indices.is_empty());
        counts[0]
    }

    fn mesh_all(store: &BlockStore) -> BlockMesh {
        let mut mesh = BlockMesh::new();
        mesh_blocks(store, store.iter().map(|(id, _)| id), &mut mesh);
        mesh
    }

    fn check_consistent(mesh: &BlockMesh) {
        let n = mesh.positions.len();
        assert_eq!(mesh.normals.len(), n);
        assert_eq!(mesh.uvs.len(), n);
        assert_eq!(mesh.layers.len(), n);
        // The mesher leaves the occlusion to the caller.
        assert!(mesh.occlusion.is_empty());
        assert_eq!(mesh.indices.len() % 3, 0);
        assert!(mesh.indices.iter().all(|&i| (i as usize) < n));
    }

    fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    fn check_outward(mesh: &BlockMesh) {
        for t in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[t[k] as usize]);
            let geometric = cross(sub(b, a), sub(c, a));
            let area2 = dot(geometric, geometric).sqrt();
            if area2 < 1e-9 {
                continue;
            }
            for &i in t {
                let n = mesh.normals[i as usize];
                assert!((dot(n, n).sqrt() - 1.0).abs() < 1e-3, "unit normal {n:?}");
                assert!(
                    dot(geometric, n) / area2 > 0.0,
                    "triangle {a:?} {b:?} {c:?} faces against its normal {n:?}"
                );
            }
        }
    }

    #[test]
    fn single_plain_block() {
        let side = side_triangles();
        let mut store = BlockStore::new();
        store.add(plain(0, 0, 0, 2)).unwrap();
        let mesh = mesh_all(&store);
        check_consistent(&mesh);
        assert_eq!(mesh.triangle_count(), 6 * side);
        if side == 2 {
            assert_eq!(mesh.triangle_count(), 12);
        }
        check_outward(&mesh);
        for p in &mesh.positions {
            assert!(p.iter().all(|&c| (0.0..=1.0).contains(&c)), "{p:?}");
        }
        assert!(mesh.layers.iter().all(|&l| l == 2));
        assert!(!mesh.is_empty());
    }

    #[test]
    fn touching_sides_are_left_out() {
        let side = side_triangles();
        let mut store = BlockStore::new();
        store.add(plain(0, 0, 0, 2)).unwrap();
        store.add(plain(2, 0, 0, 2)).unwrap();
        let mesh = mesh_all(&store);
        check_consistent(&mesh);
        assert_eq!(mesh.triangle_count(), 10 * side);
        check_outward(&mesh);
        // Nothing lies on the shared plane x = 1 m facing along x.
        for (p, n) in mesh.positions.iter().zip(&mesh.normals) {
            assert!(!((p[0] - 1.0).abs() < 1e-6 && n[0].abs() > 0.99));
        }
    }

    #[test]
    fn rounded_neighbour_does_not_cover() {
        let side = side_triangles();
        let mut store = BlockStore::new();
        let a = store.add(plain(0, 0, 0, 2)).unwrap();
        store
            .add(Block::new(2, 0, 0, 2, 1, 0xFFF, false).unwrap())
            .unwrap();
        let mut mesh = BlockMesh::new();
        mesh_blocks(&store, [a], &mut mesh);
        assert_eq!(mesh.triangle_count(), 6 * side);
        // The rounded block's side toward the plain one is covered though.
        let mut all = mesh_all(&store);
        check_consistent(&all);
        check_outward(&all);
        let rounded = shape_of(0xFFF, false);
        let rounded_all: usize = rounded.inner.indices.len() / 3
            + rounded
                .sides
                .iter()
                .map(|p| p.indices.len() / 3)
                .sum::<usize>();
        let rounded_side = rounded.sides[0].indices.len() / 3;
        assert_eq!(all.triangle_count(), 6 * side + rounded_all - rounded_side);
        all.clear();
        assert!(all.is_empty());
        assert_eq!(all.triangle_count(), 0);
    }

    #[test]
    fn cluster_has_no_interior_faces() {
        let side = side_triangles();
        let mut store = BlockStore::new();
        for x in [0, 2] {
            for y in [0, 2] {
                for z in [0, 2] {
                    store.add(plain(x, y, z, 2)).unwrap();
                }
            }
        }
        let mesh = mesh_all(&store);
        check_consistent(&mesh);
        assert_eq!(mesh.triangle_count(), 24 * side);
        if side == 2 {
            assert_eq!(mesh.triangle_count(), 48);
        }
        check_outward(&mesh);
        // Every vertex is on the outside of the 2 m cube.
        for p in &mesh.positions {
            assert!(p.iter().any(|&c| c.abs() < 1e-6 || (c - 2.0).abs() < 1e-6));
        }
    }

    #[test]
    fn partly_covered_side_is_kept() {
        let side = side_triangles();
        let mut store = BlockStore::new();
        let big = store.add(plain(0, 0, 0, 4)).unwrap();
        store.add(plain(4, 0, 0, 2)).unwrap();
        let mut mesh = BlockMesh::new();
        mesh_blocks(&store, [big], &mut mesh);
        assert_eq!(mesh.triangle_count(), 6 * side);
        // Its +x side is fully covered once four size-2 blocks fill it.
        store.add(plain(4, 2, 0, 2)).unwrap();
        store.add(plain(4, 0, 2, 2)).unwrap();
        store.add(plain(4, 2, 2, 2)).unwrap();
        mesh.clear();
        mesh_blocks(&store, [big], &mut mesh);
        assert_eq!(mesh.triangle_count(), 5 * side);
    }

    #[test]
    fn cut_shapes_face_outward() {
        let mut store = BlockStore::new();
        store
            .add(Block::new(0, 0, 0, 2, 3, 0xFFF, false).unwrap())
            .unwrap();
        store
            .add(Block::new(4, 0, 0, 4, 3, 0x0F0, true).unwrap())
            .unwrap();
        store
            .add(Block::new(-3, 1, 5, 1, 3, 0x00F, false).unwrap())
            .unwrap();
        let mesh = mesh_all(&store);
        check_consistent(&mesh);
        assert!(!mesh.is_empty());
        check_outward(&mesh);
        assert!(mesh.layers.iter().all(|&l| l == 3));
        assert!(mesh.uvs.iter().flatten().all(|c| c.is_finite()));
    }

    /// The texture coordinate of a vertex as the projection defines it near the origin.
    fn projected(p: [f32; 3], n: [f32; 3]) -> [f32; 2] {
        match dominant_axis(n) {
            0 => [p[2], p[1]],
            1 => [p[0], p[2]],
            _ => [p[0], p[1]],
        }
    }

    #[test]
    fn texture_is_continuous_and_fixed_to_the_grid() {
        let mut store = BlockStore::new();
        store.add(plain(0, 0, 0, 2)).unwrap();
        store.add(plain(2, 0, 0, 2)).unwrap();
        store.add(plain(-1, 3, 7, 1)).unwrap();
        let mesh = mesh_all(&store);
        for ((p, n), uv) in mesh.positions.iter().zip(&mesh.normals).zip(&mesh.uvs) {
            let expect = projected(*p, *n);
            assert!((uv[0] - expect[0]).abs() < 1e-6 && (uv[1] - expect[1]).abs() < 1e-6);
        }
        // The top faces' shared edge at x = 1 m: equal coordinates at equal positions.
        let top_edge: Vec<_> = mesh
            .positions
            .iter()
            .zip(&mesh.normals)
            .zip(&mesh.uvs)
            .filter(|((p, n), _)| n[1] > 0.99 && (p[0] - 1.0).abs() < 1e-6)
            .map(|((p, _), uv)| (*p, *uv))
            .collect();
        assert!(top_edge.len() >= 4);
        for (p, uv) in &top_edge {
            for (q, other) in &top_edge {
                if p == q {
                    assert_eq!(uv, other);
                }
            }
        }
        let distinct = top_edge.iter().filter(|(p, _)| p[2] == 0.0).count();
        assert!(distinct >= 2, "both blocks reach the corner at z = 0");
    }

    #[test]
    fn texture_is_the_same_on_a_moved_store() {
        // A piece meshes its own store of the same blocks: the same coordinates.
        let mut world = BlockStore::new();
        world.add(plain(10, 4, -6, 2)).unwrap();
        world.add(plain(12, 4, -6, 2)).unwrap();
        world.add(plain(0, 0, 0, 1)).unwrap();
        let mut piece = BlockStore::new();
        piece.add(plain(10, 4, -6, 2)).unwrap();
        piece.add(plain(12, 4, -6, 2)).unwrap();
        let mut a = mesh_all(&piece);
        let mut b = BlockMesh::new();
        let ids: Vec<_> = world
            .iter()
            .filter(|(_, block)| block.size == 2)
            .map(|(id, _)| id)
            .collect();
        mesh_blocks(&world, ids, &mut b);
        assert_eq!(a, b);
        a.clear();
        assert!(a.is_empty());
    }

    #[test]
    fn far_block_is_sane() {
        let side = side_triangles();
        let mut store = BlockStore::new();
        store
            .add(plain(1_000_000, -1_000_000, 1_000_000, 2))
            .unwrap();
        store
            .add(Block::new(1_000_004, -1_000_000, 1_000_000, 2, 0, 0xFFF, true).unwrap())
            .unwrap();
        let mesh = mesh_all(&store);
        check_consistent(&mesh);
        assert!(mesh.triangle_count() > 6 * side);
        for p in &mesh.positions {
            assert!(p.iter().all(|c| c.is_finite()));
            assert!((499_999.0..=500_004.0).contains(&p[0]), "{p:?}");
            assert!((-500_001.0..=-499_999.0).contains(&p[1]), "{p:?}");
            assert!((499_999.0..=500_002.0).contains(&p[2]), "{p:?}");
        }
        // Texture coordinates stay small and precise: wrapped by whole repeats.
        for uv in &mesh.uvs {
            assert!(uv
                .iter()
                .all(|c| c.is_finite() && c.abs() <= UV_WRAP_METERS as f32 / 2.0 + 2.0));
        }
        // The plain block's top face still spans exactly one repeat per meter.
        let top: Vec<[f32; 2]> = mesh
            .normals
            .iter()
            .zip(&mesh.uvs)
            .zip(&mesh.positions)
            .filter(|((n, _), p)| n[1] > 0.99 && p[0] <= 500_001.0)
            .map(|((_, uv), _)| *uv)
            .collect();
        let min_u = top.iter().map(|uv| uv[0]).fold(f32::MAX, f32::min);
        let max_u = top.iter().map(|uv| uv[0]).fold(f32::MIN, f32::max);
        assert!((max_u - min_u - 1.0).abs() < 1e-4, "{min_u} {max_u}");
        assert!(
            (min_u - min_u.round()).abs() < 1e-4,
            "grid-aligned: {min_u}"
        );
    }

    #[test]
    fn region_mesh_holds_only_its_blocks() {
        let side = side_triangles();
        let mut store = BlockStore::new();
        // Cells 63 and 64 lie in neighbouring regions, touching.
        store.add(plain(63, 0, 0, 1)).unwrap();
        store.add(plain(64, 0, 0, 1)).unwrap();
        store.add(plain(200, 0, 0, 1)).unwrap();
        let mut mesh = BlockMesh::new();
        mesh_region(&store, [0, 0, 0], &mut mesh);
        check_consistent(&mesh);
        assert_eq!(mesh.triangle_count(), 5 * side);
        assert!(mesh.positions.iter().all(|p| (31.5..=32.0).contains(&p[0])));
        mesh.clear();
        mesh_region(&store, [1, 0, 0], &mut mesh);
        assert_eq!(mesh.triangle_count(), 5 * side);
        assert!(mesh.positions.iter().all(|p| (32.0..=32.5).contains(&p[0])));
        mesh.clear();
        mesh_region(&store, [5, 5, 5], &mut mesh);
        assert!(mesh.is_empty());
    }

    #[test]
    fn removed_blocks_are_skipped() {
        let mut store = BlockStore::new();
        let id = store.add(plain(0, 0, 0, 1)).unwrap();
        store.remove(id);
        let mut mesh = BlockMesh::new();
        mesh_blocks(&store, [id], &mut mesh);
        assert!(mesh.is_empty());
    }
}
