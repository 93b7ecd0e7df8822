//! Ambient occlusion per vertex of a block mesh: how open the space in front of a vertex is,
//! from which grid cells (0.5 m) around it are solid, as voxel games darken the corners where
//! blocks meet, made general enough for normals that are not along an axis (cut edges, slopes).
//!
//! The rule, for a vertex at `p` (meters) with unit normal `n`, in cells (`q = p / CELL`):
//!
//! 1. The cells counted are those a box of one cell, centred half a cell out along the normal
//!    (at `q + n / 2`), overlaps, each weighted by how much of the box lies in it (the trilinear
//!    weights of the box's low corner, summing to 1), and only those whose middle lies in front
//!    of the vertex's tangent plane (`(middle - q) · n > 0`). For a vertex of a face along an
//!    axis at a grid corner, these are the four cells of the layer in front of the face around
//!    the corner, a quarter each. A block never shades itself when its cells count as solid
//!    only where their middle is inside it ([`block_cells`]): its shape is convex, so such a
//!    middle is behind every tangent plane of its surface.
//! 2. `occluders = 4 × (weight of the solid cells)`: the classic count of solid cells among
//!    the four (the open cell in front of the face, side 1, side 2 and the corner).
//! 3. Pinched: two solid cells on opposite sides of the vertex along the tangent plane (their
//!    offsets from the vertex, projected on the plane, more than 120° apart) make it at least 3
//!    occluders, scaled by the smaller of their weights (a quarter is full). At a grid corner
//!    these are the classic "both sides solid": side 1 and side 2 lie diagonally to each other.
//! 4. `occluders` is held to at most [`DARKEST_OCCLUDERS`] (3), and
//!    `openness = 1 - OCCLUDER_SHADE × occluders` ([`OCCLUDER_SHADE`] = 0.2).
//!
//! So a face vertex along an axis gets the classic levels: 0, 1, 2 or 3 occluders (both sides
//! solid: 3) give 1.0, 0.8, 0.6 and 0.4. A vertex with nothing solid in front is exactly 1.0,
//! and so is one whose position or normal is not finite, or reaches beyond the grid.
//!
//! What is solid is the caller's: for blocks, [`block_cells`] (a cell whose middle is inside a
//! block: every cell of a plain block, those of a cut block its cuts leave the middle of); the
//! blocks' regions add the cells whose middle is inside the ground ([`with_ground`]), a piece
//! counts its own blocks only.
//!
//! Most vertices lie on a grid corner with a normal along an axis; they take a shortcut to the
//! same answer (the four cells, diagonal pairs pinching). [`occlude`] asks `solid` once per cell
//! for a whole mesh: a region's ground is asked tens of thousands of times otherwise.

use super::mesher::BlockMesh;
use super::shapes::block_distance;
use super::store::{BlockStore, CELL};

/// Openness lost per occluder.
pub const OCCLUDER_SHADE: f32 = 0.2;

/// The most occluders a vertex counts: the darkest level, `1 - 0.2 × 3 = 0.4`.
pub const DARKEST_OCCLUDERS: f32 = 3.0;

/// Fractions this near a whole cell count as on it: a grid corner meets exactly its own cells.
const SNAP: f64 = 1e-6;

/// How far in front of the tangent plane (in cells) a cell's middle must lie to count.
const AHEAD: f64 = 1e-3;

/// Two solid cells pinch the vertex when their offsets along the tangent plane are further apart
/// than this cosine (120°): diagonal cells at a grid corner are at 180°, neighbours at 90°.
const OPPOSITE: f64 = -0.5;

/// How open the space in front of a vertex at `position` (meters) with the unit `normal` is, from
/// 0 (closed) to 1 (open), as the module documentation says; `solid` answers for a grid cell
/// (cell `c` spans `[c × CELL, (c + 1) × CELL)`). Never panics: a position or normal that is
/// not finite, a normal without length or cells beyond the grid give 1.
pub fn openness(position: [f32; 3], normal: [f32; 3], solid: impl FnMut([i32; 3]) -> bool) -> f32 {
    match grid_face(position, normal) {
        Some((corner, axis, positive)) => classic(corner, axis, positive, solid),
        None => general(position, normal, solid),
    }
}

/// A vertex on a grid corner (its cell coordinates) with a normal along an axis (and which way),
/// as most vertices of a block mesh are.
fn grid_face(position: [f32; 3], normal: [f32; 3]) -> Option<([i32; 3], usize, bool)> {
    let axis = (0..3).find(|&axis| normal[axis].abs() == 1.0)?;
    if (0..3).any(|other| other != axis && normal[other] != 0.0) {
        return None;
    }
    let mut corner = [0; 3];
    for (cell, &meters) in corner.iter_mut().zip(&position) {
        // Exact in f32 (CELL is a power of two); `as` saturates, and NaN becomes 0.
        let cells = meters / CELL;
        let whole = cells as i32;
        if whole as f32 != cells || whole == i32::MIN || whole == i32::MAX {
            return None;
        }
        *cell = whole;
    }
    Some((corner, axis, normal[axis] > 0.0))
}

/// [`general`] for a vertex on a grid corner facing along an axis: the four cells of the layer
/// in front around the corner, a quarter each, and diagonal pairs pinch. The same answer,
/// several times faster, for most vertices.
fn classic(
    corner: [i32; 3],
    axis: usize,
    positive: bool,
    mut solid: impl FnMut([i32; 3]) -> bool,
) -> f32 {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let layer = if positive {
        Some(corner[axis])
    } else {
        corner[axis].checked_sub(1)
    };
    // As `general`: a box whose low cell lies beyond the grid is open.
    let (Some(layer), Some(low_u), Some(low_v)) =
        (layer, corner[u].checked_sub(1), corner[v].checked_sub(1))
    else {
        return 1.0;
    };
    let mut cell = |cu: i32, cv: i32| {
        let mut cell = corner;
        cell[axis] = layer;
        cell[u] = cu;
        cell[v] = cv;
        solid(cell)
    };
    let low = cell(low_u, low_v);
    let high = cell(corner[u], corner[v]);
    let low_high = cell(low_u, corner[v]);
    let high_low = cell(corner[u], low_v);
    let occluders = if (low && high) || (low_high && high_low) {
        3
    } else {
        u8::from(low) + u8::from(high) + u8::from(low_high) + u8::from(high_low)
    };
    1.0 - OCCLUDER_SHADE * f32::from(occluders).min(DARKEST_OCCLUDERS)
}

/// The rule of the module documentation, for any vertex.
fn general(position: [f32; 3], normal: [f32; 3], mut solid: impl FnMut([i32; 3]) -> bool) -> f32 {
    let q = position.map(|c| f64::from(c) / f64::from(CELL));
    let n = normal.map(f64::from);
    if !q.iter().chain(&n).all(|c| c.is_finite()) {
        return 1.0;
    }
    let length = dot(n, n).sqrt();
    if length < 1e-6 {
        return 1.0;
    }
    let n = n.map(|c| c / length);
    // The box's low corner, its cell and where in it the corner lies.
    let low: [f64; 3] = std::array::from_fn(|axis| q[axis] + 0.5 * n[axis] - 0.5);
    let mut base = low.map(f64::floor);
    let mut fraction: [f64; 3] = std::array::from_fn(|axis| low[axis] - base[axis]);
    for axis in 0..3 {
        if fraction[axis] > 1.0 - SNAP {
            base[axis] += 1.0;
            fraction[axis] = 0.0;
        } else if fraction[axis] < SNAP {
            fraction[axis] = 0.0;
        }
    }
    let in_grid = |c: f64| c >= f64::from(i32::MIN) && c <= f64::from(i32::MAX);
    if !base.iter().all(|&c| in_grid(c)) {
        return 1.0;
    }
    // The solid cells counted: their weights and offsets along the tangent plane.
    let mut found = [(0.0f64, [0.0f64; 3]); 8];
    let mut count = 0;
    let mut occluded = 0.0;
    for corner in 0..8 {
        let step: [bool; 3] = std::array::from_fn(|axis| corner & (1 << axis) != 0);
        let weights: [f64; 3] = std::array::from_fn(|axis| {
            if step[axis] {
                fraction[axis]
            } else {
                1.0 - fraction[axis]
            }
        });
        let weight = weights[0] * weights[1] * weights[2];
        if weight <= 0.0 {
            continue;
        }
        let cell: [f64; 3] =
            std::array::from_fn(|axis| base[axis] + f64::from(u8::from(step[axis])));
        let offset: [f64; 3] = std::array::from_fn(|axis| cell[axis] + 0.5 - q[axis]);
        let ahead = dot(offset, n);
        if ahead <= AHEAD {
            continue;
        }
        // `base` is within the grid; one cell past its top edge is not.
        if !cell.iter().all(|&c| in_grid(c)) || !solid(cell.map(|c| c as i32)) {
            continue;
        }
        occluded += weight;
        let along: [f64; 3] = std::array::from_fn(|axis| offset[axis] - ahead * n[axis]);
        found[count] = (weight, along);
        count += 1;
    }
    let mut pinch: f64 = 0.0;
    for (a, &(weight_a, along_a)) in found[..count].iter().enumerate() {
        for &(weight_b, along_b) in &found[a + 1..count] {
            let scale = (dot(along_a, along_a) * dot(along_b, along_b)).sqrt();
            if scale > 0.0 && dot(along_a, along_b) < OPPOSITE * scale {
                pinch = pinch.max(4.0 * weight_a.min(weight_b));
            }
        }
    }
    let darkest = f64::from(DARKEST_OCCLUDERS);
    let occluders = (4.0 * occluded).max(darkest * pinch.min(1.0)).min(darkest);
    // In f32, so that whole counts give exactly `1 - OCCLUDER_SHADE × count`.
    1.0 - OCCLUDER_SHADE * occluders as f32
}

/// Fills `mesh.occlusion` with the [`openness`] of every vertex (replacing what was there).
/// `solid` is asked once per cell: neighbouring vertices share most of their cells, and a
/// region's `solid` asks the ground.
pub fn occlude(mesh: &mut BlockMesh, solid: impl Fn([i32; 3]) -> bool) {
    let BlockMesh {
        positions,
        normals,
        occlusion,
        ..
    } = mesh;
    occlusion.clear();
    let mut known = Known::around(positions);
    occlusion.extend(
        positions
            .iter()
            .zip(normals.iter())
            .map(|(&position, &normal)| {
                openness(position, normal, |cell| known.solid(cell, &solid))
            }),
    );
}

/// Cells whose most cells a box holds; a bigger mesh asks `solid` again for every vertex.
const MOST_KNOWN: i64 = 1 << 22;

/// What `solid` answered for the cells of a box: 0 not asked yet, 1 open, 2 solid.
struct Known {
    low: [i64; 3],
    size: [i64; 3],
    cells: Vec<u8>,
}

impl Known {
    /// The box of the cells around `positions` (meters) that their vertices may ask about.
    fn around(positions: &[[f32; 3]]) -> Known {
        let mut low = [i64::MAX; 3];
        let mut high = [i64::MIN; 3];
        for position in positions {
            for axis in 0..3 {
                // Truncated toward 0 (`as` saturates, NaN becomes 0): within a cell of the
                // floor, which the margin of 3 covers. Too big a box is not kept at all.
                let cell = (position[axis] / CELL) as i64;
                low[axis] = low[axis].min(cell.saturating_sub(3));
                high[axis] = high[axis].max(cell.saturating_add(3));
            }
        }
        // No positions (low above high), or sides beyond i64: no box.
        let size: [Option<i64>; 3] = std::array::from_fn(|axis| {
            high[axis]
                .checked_sub(low[axis])
                .and_then(|side| side.checked_add(1))
                .filter(|&side| side > 0)
        });
        let volume = size
            .iter()
            .try_fold(1i64, |volume, &side| volume.checked_mul(side?));
        match volume {
            Some(volume) if volume > 0 && volume <= MOST_KNOWN => Known {
                low,
                size: size.map(|side| side.unwrap_or(0)),
                cells: vec![0; volume as usize],
            },
            _ => Known {
                low: [0; 3],
                size: [0; 3],
                cells: Vec::new(),
            },
        }
    }

    /// `solid(cell)`, asked once per cell of the box.
    fn solid(&mut self, cell: [i32; 3], solid: impl Fn([i32; 3]) -> bool) -> bool {
        let mut index = 0i64;
        for axis in (0..3).rev() {
            let offset = i64::from(cell[axis]) - self.low[axis];
            if offset < 0 || offset >= self.size[axis] {
                return solid(cell);
            }
            index = index * self.size[axis] + offset;
        }
        let known = &mut self.cells[index as usize];
        if *known == 0 {
            *known = if solid(cell) { 2 } else { 1 };
        }
        *known == 2
    }
}

/// Whether a cell of `store` is solid for the occlusion: a block fills it and its middle lies
/// inside the block's shape (every cell of a plain block; of a block with cut edges, those its
/// cuts leave the middle of, so that a big rounded or sloped block does not shade itself).
pub fn block_cells(store: &BlockStore) -> impl Fn([i32; 3]) -> bool + '_ {
    move |[x, y, z]| {
        let Some(block) = store.at(x, y, z).and_then(|id| store.get(id)) else {
            return false;
        };
        if block.cuts == 0 {
            return true;
        }
        block_distance(block, middle_of([x, y, z]), |_| true).distance < 0.0
    }
}

/// `blocks`, and the cells whose middle (meters) `ground` says is inside the ground: for a
/// region's blocks, which darken where they meet the terrain. The ground is asked only about
/// cells no block fills.
pub fn with_ground<'a>(
    blocks: impl Fn([i32; 3]) -> bool + 'a,
    ground: impl Fn([f32; 3]) -> bool + 'a,
) -> impl Fn([i32; 3]) -> bool + 'a {
    move |cell| blocks(cell) || ground(middle_of(cell))
}

/// The middle of a cell, in meters.
fn middle_of(cell: [i32; 3]) -> [f32; 3] {
    cell.map(|c| ((f64::from(c) + 0.5) * f64::from(CELL)) as f32)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::mesher::mesh_blocks;
    use crate::blocks::store::Block;

    fn plain(x: i32, y: i32, z: i32, size: u8) -> Block {
        Block::new(x, y, z, size, 0, 0, false).unwrap()
    }

    fn store_of(blocks: &[Block]) -> BlockStore {
        let mut store = BlockStore::new();
        for block in blocks {
            store.add(*block).unwrap();
        }
        store
    }

    /// Every block of `store` meshed and occluded by its own cells.
    fn occluded(store: &BlockStore) -> BlockMesh {
        let mut mesh = BlockMesh::new();
        mesh_blocks(store, store.iter().map(|(id, _)| id), &mut mesh);
        occlude(&mut mesh, block_cells(store));
        assert_eq!(mesh.occlusion.len(), mesh.vertex_count());
        mesh
    }

    /// The openness of the vertices at `position` facing along `normal`.
    fn at(mesh: &BlockMesh, position: [f32; 3], normal: [f32; 3]) -> Vec<f32> {
        let near = |a: [f32; 3], b: [f32; 3]| (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5);
        let found: Vec<f32> = (0..mesh.vertex_count())
            .filter(|&i| near(mesh.positions[i], position) && near(mesh.normals[i], normal))
            .map(|i| mesh.occlusion[i])
            .collect();
        assert!(
            !found.is_empty(),
            "no vertex at {position:?} facing {normal:?}"
        );
        found
    }

    /// The classic rule's openness for 0 to 3 occluders.
    fn level(occluders: u32) -> f32 {
        1.0 - OCCLUDER_SHADE * occluders as f32
    }

    #[test]
    fn a_lone_block_is_open_everywhere() {
        for size in [1, 2, 4] {
            let mesh = occluded(&store_of(&[plain(3, -2, 5, size)]));
            assert!(mesh.occlusion.iter().all(|&o| o == 1.0), "size {size}");
        }
    }

    #[test]
    fn the_inner_corner_of_an_l_is_darker_than_an_open_face() {
        // Three 1 m blocks: a floor of two along x, a wall on the first.
        let store = store_of(&[plain(0, 0, 0, 2), plain(2, 0, 0, 2), plain(0, 2, 0, 2)]);
        let mesh = occluded(&store);
        let up = [0.0, 1.0, 0.0];
        // The floor's top meets the wall along x = 1 m: one occluder beside the edge's ends
        // (the wall's cell and none past its end), two along the middle... the mesh has
        // vertices only at the block's corners: (1, 1, 0) and (1, 1, 1).
        let corner = at(&mesh, [1.0, 1.0, 0.0], up);
        assert!(corner.iter().all(|&o| o == level(1)), "{corner:?}");
        // The wall's +x side meets the floor at its foot: one occluder too.
        let foot = at(&mesh, [1.0, 1.0, 1.0], [1.0, 0.0, 0.0]);
        assert!(foot.iter().all(|&o| o == level(1)), "{foot:?}");
        // The open far end of the floor, and the middle of any open face, is fully open.
        let open = at(&mesh, [2.0, 1.0, 0.0], up);
        assert!(open.iter().all(|&o| o == 1.0), "{open:?}");
        assert_eq!(openness([1.5, 1.0, 0.5], up, block_cells(&store)), 1.0);
        assert!(corner[0] < open[0] && foot[0] < open[0]);
        assert!(mesh.occlusion.iter().all(|o| (0.0..=1.0).contains(o)));
    }

    #[test]
    fn a_floor_corner_between_two_walls_is_darkest() {
        // A floor of 2 × 2 blocks, walls on its -x and -z edges.
        let mut blocks = Vec::new();
        for x in [0, 2] {
            for z in [0, 2] {
                blocks.push(plain(x, 0, z, 2));
            }
        }
        blocks.push(plain(-2, 2, 0, 2));
        blocks.push(plain(-2, 2, 2, 2));
        blocks.push(plain(0, 2, -2, 2));
        blocks.push(plain(2, 2, -2, 2));
        blocks.push(plain(-2, 2, -2, 2));
        let mesh = occluded(&store_of(&blocks));
        let up = [0.0, 1.0, 0.0];
        // The floor's corner where the walls meet: side, side and corner all solid.
        assert!(at(&mesh, [0.0, 1.0, 0.0], up)
            .iter()
            .all(|&o| o == level(3)));
        // Along one wall: two occluders; the open corner: none.
        assert!(at(&mesh, [1.0, 1.0, 0.0], up)
            .iter()
            .all(|&o| o == level(2)));
        assert!(at(&mesh, [2.0, 1.0, 2.0], up).iter().all(|&o| o == 1.0));
    }

    /// The classic rule, for every face along an axis, every corner of the face and every set
    /// of side 1, side 2 and corner cells (the cell in front of the face open, the layer behind
    /// it anything): `openness` gives its levels.
    #[test]
    fn face_vertices_follow_the_classic_rule() {
        let corner = [4, -3, 7];
        let position = corner.map(|c| c as f32 * CELL);
        for axis in 0..3 {
            for positive in [false, true] {
                let mut normal = [0.0; 3];
                normal[axis] = if positive { 1.0 } else { -1.0 };
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                // The layer in front of the face, and the one behind it (the face's block).
                let front = if positive {
                    corner[axis]
                } else {
                    corner[axis] - 1
                };
                let behind = if positive {
                    corner[axis] - 1
                } else {
                    corner[axis]
                };
                let cell = |layer: i32, du: i32, dv: i32| {
                    let mut cell = corner;
                    cell[axis] = layer;
                    cell[u] += du;
                    cell[v] += dv;
                    cell
                };
                // The face lies on the corner's (fu, fv) quadrant.
                for (fu, fv) in [(0, 0), (-1, 0), (0, -1), (-1, -1)] {
                    let (ou, ov) = (-1 - fu, -1 - fv);
                    let side1 = cell(front, ou, fv);
                    let side2 = cell(front, fu, ov);
                    let diagonal = cell(front, ou, ov);
                    for mask in 0..8u32 {
                        let [s1, s2, c] = [0, 1, 2].map(|bit| mask & (1 << bit) != 0);
                        let solid = |probe: [i32; 3]| {
                            probe[axis] == behind
                                || (s1 && probe == side1)
                                || (s2 && probe == side2)
                                || (c && probe == diagonal)
                        };
                        let classic = if s1 && s2 {
                            3
                        } else {
                            u32::from(s1) + u32::from(s2) + u32::from(c)
                        };
                        assert_eq!(
                            openness(position, normal, solid),
                            level(classic),
                            "axis {axis} {positive} face ({fu}, {fv}) mask {mask}"
                        );
                    }
                }
            }
        }
    }

    /// The shortcut for grid corners gives what the general rule gives, for every set of the
    /// cells around the corner.
    #[test]
    fn grid_corners_take_a_shortcut_to_the_same_answer() {
        for corner in [[0, 0, 0], [4, -3, 7], [-1000, 77, 123_456]] {
            let position = corner.map(|c| c as f32 * CELL);
            for axis in 0..3 {
                for sign in [-1.0, 1.0] {
                    let mut normal = [0.0; 3];
                    normal[axis] = sign;
                    assert!(grid_face(position, normal).is_some());
                    for mask in 0..1u32 << 8 {
                        let solid = |cell: [i32; 3]| {
                            let d = [0, 1, 2].map(|k| cell[k] - corner[k]);
                            let near = d.iter().all(|c| (-1..=0).contains(c));
                            let bit = (d[0] + 1) + 2 * (d[1] + 1) + 4 * (d[2] + 1);
                            near && mask & (1 << bit) != 0
                        };
                        assert_eq!(
                            openness(position, normal, solid),
                            general(position, normal, solid),
                            "{corner:?} axis {axis} {sign} mask {mask:#x}"
                        );
                    }
                }
            }
        }
        // Off the corners, or slanted, the general rule answers.
        assert!(grid_face([0.25, 0.0, 0.0], [0.0, 1.0, 0.0]).is_none());
        assert!(grid_face([0.0; 3], [0.6, 0.8, 0.0]).is_none());
        assert!(grid_face([f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]).is_none());
        assert!(grid_face([1e30, 0.0, 0.0], [0.0, 1.0, 0.0]).is_none());
    }

    #[test]
    fn both_sides_solid_is_the_darkest_level() {
        let up = [0.0, 1.0, 0.0];
        // The face on the quadrant x >= 0, z >= 0 of the corner at the origin: side 1 at
        // x < 0, side 2 at z < 0, the corner cell between them open.
        let solid = |cell: [i32; 3]| cell == [-1, 0, 0] || cell == [0, 0, -1];
        let darkest = openness([0.0; 3], up, solid);
        assert_eq!(darkest, 1.0 - OCCLUDER_SHADE * DARKEST_OCCLUDERS);
        assert!((darkest - 0.4).abs() < 1e-6);
        // Everything in front solid is no darker.
        assert_eq!(openness([0.0; 3], up, |cell| cell[1] >= 0), darkest);
        assert_eq!(openness([0.0; 3], up, |_| true), darkest);
    }

    #[test]
    fn cut_and_sloped_blocks_stay_in_range_and_do_not_shade_themselves() {
        let shapes = [
            (0xFFF, false),
            (0xFFF, true),
            (0x0F0, true),
            (0x00F, false),
            (0x101, true),
        ];
        for size in [1, 2, 4] {
            for (cuts, slope) in shapes {
                let block = Block::new(0, 0, 0, size, 1, cuts, slope).unwrap();
                let lone = occluded(&store_of(&[block]));
                assert!(
                    lone.occlusion.iter().all(|&o| o == 1.0),
                    "a lone block of size {size}, cuts {cuts:#x}, slope {slope}"
                );
                // Among plain neighbours, every value is a level between the darkest and 1.
                let s = i32::from(size);
                let around = [
                    block,
                    plain(s, 0, 0, size),
                    plain(0, s, 0, size),
                    plain(0, 0, s, size),
                    plain(-s, 0, 0, size),
                    plain(0, -s, -s, size),
                    plain(s, s, 0, size),
                ];
                let mesh = occluded(&store_of(&around));
                assert!(!mesh.is_empty());
                for &o in &mesh.occlusion {
                    assert!((0.4 - 1e-6..=1.0).contains(&o), "{o}");
                }
                assert!(mesh.occlusion.iter().any(|&o| o < 1.0));
            }
        }
    }

    #[test]
    fn big_cut_blocks_count_only_the_cells_their_shape_holds() {
        // 2 m blocks cut along one edge: the cells in that corner lie outside the shape.
        for slope in [false, true] {
            let block = Block::new(0, 0, 0, 4, 0, 1, slope).unwrap();
            let store = store_of(&[block]);
            let cells = block_cells(&store);
            let outside = block.cells().filter(|&cell| !cells(cell)).count();
            assert!((4..64).contains(&outside), "slope {slope}: {outside}");
            assert!(cells([0, 3, 3]) && !cells([0, 0, 0]) && !cells([3, 0, 0]));
        }
        // Counting every cell a rounded block fills, the middle of its arc would shade itself.
        let store = store_of(&[Block::new(0, 0, 0, 4, 0, 1, false).unwrap()]);
        let mut mesh = BlockMesh::new();
        mesh_blocks(&store, store.iter().map(|(id, _)| id), &mut mesh);
        occlude(&mut mesh, |[x, y, z]| store.at(x, y, z).is_some());
        assert!(mesh.occlusion.iter().any(|&o| o < 1.0));
        occlude(&mut mesh, block_cells(&store));
        assert!(mesh.occlusion.iter().all(|&o| o == 1.0));
    }

    #[test]
    fn blocks_darken_where_they_meet_the_ground() {
        // The ground below y = 0; a 1 m block standing on it.
        let store = store_of(&[plain(0, 0, 0, 2)]);
        let ground = |point: [f32; 3]| point[1] < 0.0;
        let mut mesh = BlockMesh::new();
        mesh_blocks(&store, store.iter().map(|(id, _)| id), &mut mesh);
        occlude(&mut mesh, with_ground(block_cells(&store), ground));
        for i in 0..mesh.vertex_count() {
            let [_, y, _] = mesh.positions[i];
            let [_, ny, _] = mesh.normals[i];
            let expected = if ny < -0.5 {
                // The bottom, in the ground: everything in front solid.
                level(3)
            } else if y == 0.0 {
                // The sides' feet: the two cells below the edge.
                level(2)
            } else {
                1.0
            };
            assert_eq!(
                mesh.occlusion[i], expected,
                "{:?} {:?}",
                mesh.positions[i], mesh.normals[i]
            );
        }
        // Lifted off the ground, it is open everywhere again.
        let lifted = store_of(&[plain(0, 2, 0, 2)]);
        mesh.clear();
        mesh_blocks(&lifted, lifted.iter().map(|(id, _)| id), &mut mesh);
        occlude(&mut mesh, with_ground(block_cells(&lifted), ground));
        assert!(mesh.occlusion.iter().all(|&o| o == 1.0));
    }

    #[test]
    fn slanted_normals_give_values_in_range() {
        let solid = |cell: [i32; 3]| (cell[0] + cell[1] * 3 + cell[2] * 7).rem_euclid(3) == 0;
        let mut state = 0x1234_5678_u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            ((state >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
        };
        for _ in 0..2000 {
            let position = [next() * 5.0, next() * 5.0, next() * 5.0];
            let normal = [next(), next(), next()];
            let o = openness(position, normal, solid);
            assert!(
                (0.4 - 1e-6..=1.0).contains(&o),
                "{position:?} {normal:?}: {o}"
            );
        }
    }

    #[test]
    fn positions_and_normals_that_are_not_finite_or_too_far_are_open() {
        let solid = |_: [i32; 3]| true;
        let up = [0.0, 1.0, 0.0];
        assert_eq!(openness([f32::NAN, 0.0, 0.0], up, solid), 1.0);
        assert_eq!(openness([0.0, f32::INFINITY, 0.0], up, solid), 1.0);
        assert_eq!(openness([0.0; 3], [f32::NAN, 1.0, 0.0], solid), 1.0);
        assert_eq!(openness([0.0; 3], [0.0; 3], solid), 1.0);
        assert_eq!(openness([1e30, 0.0, -1e30], up, solid), 1.0);
        assert_eq!(openness([f32::MAX, f32::MIN, 0.0], up, solid), 1.0);
        // The last cells of the grid still answer; one past them does not exist.
        let edge = f64::from(i32::MAX) * f64::from(CELL);
        let o = openness([edge as f32, 0.0, 0.0], [1.0, 0.0, 0.0], solid);
        assert!((0.0..=1.0).contains(&o));
    }

    #[test]
    fn occlusion_is_one_per_vertex_and_cleared_with_the_mesh() {
        let store = store_of(&[plain(0, 0, 0, 2), plain(2, 0, 0, 2)]);
        let mut mesh = occluded(&store);
        assert_eq!(mesh.occlusion.len(), mesh.vertex_count());
        // Occluding again replaces the values.
        occlude(&mut mesh, |_| false);
        assert_eq!(mesh.occlusion.len(), mesh.vertex_count());
        assert!(mesh.occlusion.iter().all(|&o| o == 1.0));
        mesh.clear();
        assert!(mesh.occlusion.is_empty());
        // An empty mesh, and vertices far apart or not finite, occlude without a panic.
        occlude(&mut mesh, |_| true);
        assert!(mesh.occlusion.is_empty());
        mesh.positions = vec![
            [-1e30, f32::NEG_INFINITY, 0.0],
            [1e30, f32::NAN, 3.0],
            [0.0; 3],
        ];
        mesh.normals = vec![[0.0, 1.0, 0.0]; 3];
        occlude(&mut mesh, |_| true);
        assert_eq!(mesh.occlusion[..2], [1.0, 1.0]);
        assert!((mesh.occlusion[2] - 0.4).abs() < 1e-6);
        mesh.positions = vec![[-1e6, 0.0, 0.0], [1e6, 0.0, 0.0]];
        mesh.normals = vec![[1.0, 0.0, 0.0]; 2];
        occlude(&mut mesh, |cell| cell[0] == -2_000_000);
        assert!(mesh.occlusion[0] < 1.0 && mesh.occlusion[1] == 1.0);
    }
}
